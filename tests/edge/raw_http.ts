/**
 * A bare HTTP/1.1 POST with a chunked body that keeps reading the answer while it sends:
 * a server refusing a body (413, `connection: close`) answers and stops reading, which
 * `fetch` reports as a broken pipe instead of the answer a real client gets.
 *
 * @module
 */

const encoder = new TextEncoder();

/** The answer's status and body (chunked transfer-encoding decoded). */
export interface RawAnswer {
  status: number;
  text: string;
  /** Body bytes written before the server answered or stopped reading. */
  sent: number;
}

function decodeChunked(bytes: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [];
  let at = 0;
  while (at < bytes.length) {
    const lineEnd = bytes.indexOf(10, at);
    const size = parseInt(new TextDecoder().decode(bytes.subarray(at, lineEnd)), 16);
    if (!size) break;
    parts.push(bytes.subarray(lineEnd + 1, lineEnd + 1 + size));
    at = lineEnd + 1 + size + 2;
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) out.set(part, offset), offset += part.length;
  return out;
}

/**
 * POST `chunks` to `url` (http, loopback) chunked, or with `declaredLength` a content-length
 * header and no body at all; the answer even if sending stopped.
 */
export async function rawPost(
  url: string,
  chunks: Iterable<Uint8Array>,
  declaredLength?: number,
): Promise<RawAnswer> {
  const target = new URL(url);
  const conn = await Deno.connect({ hostname: target.hostname, port: Number(target.port) });
  const received: Uint8Array[] = [];
  let answered = false;
  const reading = (async () => {
    const buffer = new Uint8Array(64 * 1024);
    while (true) {
      let n: number | null;
      try {
        n = await conn.read(buffer);
      } catch {
        return; // reset after the answer
      }
      if (n === null) return;
      received.push(buffer.slice(0, n));
      answered = true;
    }
  })();
  let sent = 0;
  const write = async (bytes: Uint8Array) => { // a write may take only part of the bytes
    for (let at = 0; at < bytes.length;) at += await conn.write(bytes.subarray(at));
  };
  try {
    await write(encoder.encode(
      `POST ${target.pathname}${target.search} HTTP/1.1\r\nhost: ${target.host}\r\n` +
        (declaredLength === undefined
          ? "transfer-encoding: chunked\r\n"
          : `content-length: ${declaredLength}\r\n`) +
        "connection: close\r\n\r\n",
    ));
    if (declaredLength !== undefined) chunks = [];
    for (const chunk of chunks) {
      if (answered) break;
      await write(encoder.encode(`${chunk.length.toString(16)}\r\n`));
      await write(chunk);
      await write(encoder.encode("\r\n"));
      sent += chunk.length;
    }
    if (!answered && declaredLength === undefined) await write(encoder.encode("0\r\n\r\n"));
  } catch {
    // The server stopped reading: its answer is already on the way.
  }
  await reading;
  try {
    conn.close();
  } catch { /* closed by the server */ }
  const all = new Uint8Array(await new Blob(received as Uint8Array<ArrayBuffer>[]).arrayBuffer());
  const headEnd = all.findIndex((_, i) =>
    all[i] === 13 && all[i + 1] === 10 && all[i + 2] === 13 && all[i + 3] === 10
  );
  const head = new TextDecoder().decode(all.subarray(0, headEnd));
  let body: Uint8Array = all.subarray(headEnd + 4);
  if (/^transfer-encoding:\s*chunked/im.test(head)) body = decodeChunked(body);
  return { status: Number(head.split(" ")[1]), text: new TextDecoder().decode(body), sent };
}
