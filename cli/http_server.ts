/**
 * A `(Request) => Response` handler served over `node:http`, which Deno and Node both
 * provide, so `mu serve` runs the same in both. The raw `Host` header reaches the handler
 * untouched (the same-origin guard depends on it), a client that goes away aborts
 * `request.signal`, and response bodies stream.
 *
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { Readable } from "node:stream";

/** A running server. */
export interface RunningServer {
  port: number;
  close(): Promise<void>;
}

function toRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  // node:http keeps the first of repeated Host headers; pass them all so the guard sees them.
  const hostValues: string[] = [];
  for (let at = 0; at < req.rawHeaders.length; at += 2) {
    if (req.rawHeaders[at].toLowerCase() === "host") hostValues.push(req.rawHeaders[at + 1]);
  }
  if (hostValues.length > 1) {
    headers.delete("host");
    for (const value of hostValues) headers.append("host", value);
  }
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  // The URL's host is a placeholder: the real one is the Host header the guard checks.
  return new Request(`http://127.0.0.1${req.url ?? "/"}`, {
    method: req.method,
    headers,
    signal,
    body: hasBody ? Readable.toWeb(req) as unknown as ReadableStream<Uint8Array> : undefined,
    // @ts-ignore: Node and Deno need duplex for streamed request bodies
    duplex: hasBody ? "half" : undefined,
  });
}

async function send(response: Response, res: ServerResponse): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) return void res.end();
  const reader = response.body.getReader();
  res.on("close", () => void reader.cancel().catch(() => {}));
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await new Promise((resolve) => res.once("drain", resolve));
    }
  } catch {
    // The client went away mid-body.
  } finally {
    res.end();
  }
}

/** Discard what is still arriving for at most 2 s or 8 MiB, then close the socket. */
function lingerThenClose(req: IncomingMessage): void {
  let discarded = 0;
  const socket = req.socket; // node clears req.socket once the response is done
  const close = () => {
    clearTimeout(timer);
    socket?.destroy();
  };
  const timer = setTimeout(close, 2000);
  req.on("data", (chunk: Uint8Array) => {
    discarded += chunk.byteLength;
    if (discarded > 8 * 1024 * 1024) close();
  });
  req.on("end", close);
  req.resume();
}

/** Serve `handler` on `hostname:port` (0: any free port). Rejects when the port is taken. */
export function serveHttp(
  handler: (request: Request) => Promise<Response>,
  hostname: string,
  port: number,
): Promise<RunningServer> {
  const server = createServer(async (req, res) => {
    const abort = new AbortController();
    res.on("close", () => abort.abort());
    let response: Response;
    try {
      response = await handler(toRequest(req, abort.signal));
    } catch {
      response = new Response('{"error":"InternalError"}', { status: 500 });
    }
    // A refused upload (413, 403) is not read to its end: answer, then close the
    // connection. Closing at once would reset it while the client is still sending, and a
    // reset can destroy the answer before the client reads it, so the rest of the upload
    // is discarded for a short, bounded time first (as web servers' lingering close does).
    const unread = req.method !== "GET" && req.method !== "HEAD" && !req.complete;
    if (unread) response.headers.set("connection", "close");
    await send(response, res);
    if (unread && !req.complete) lingerThenClose(req);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, hostname, () => {
      const address = server.address();
      const actual = typeof address === "object" && address ? address.port : port;
      resolve({
        port: actual,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections?.();
            server.close(() => done());
          }),
      });
    });
  });
}
