/**
 * Reading a local file as a stream of chunks for the JSONL file-system backend (`fs.ts`):
 * chunks grow from 64 KiB to 1 MiB, each in its own buffer (a caller may keep them), and
 * once a chunk came back full the next one is read while the caller works on it. Read one
 * after the other, the 100k session's open spent a quarter of its time waiting for reads;
 * 1 MiB for every file made a listing of 2,000 small sessions five times slower. Small
 * files get one small buffer and no read ahead.
 *
 * @module
 */
import { open } from "node:fs/promises";

/** Largest chunk read (the bench floor reads 1 MiB too). */
const CHUNK = 1024 * 1024;
/** First chunk read: most session files are smaller. */
const FIRST_CHUNK = 64 * 1024;

/**
 * The bytes of the file at `abs` from `start`, in chunks.
 *
 * @example
 * ```ts
 * import { readAhead } from "./_read_ahead.ts";
 * for await (const chunk of readAhead("/tmp/sessions/a.jsonl", 0)) console.log(chunk.length);
 * ```
 */
export async function* readAhead(abs: string, start: number): AsyncIterable<Uint8Array> {
  const handle = await open(abs, "r");
  let size = FIRST_CHUNK;
  const readAt = async (position: number) => {
    const buffer = new Uint8Array(size);
    const { bytesRead } = await handle.read(buffer, 0, size, position);
    size = Math.min(CHUNK, size * 2);
    return buffer.subarray(0, bytesRead);
  };
  let ahead: Promise<Uint8Array> | undefined;
  try {
    let position = start;
    let chunk: Uint8Array = await readAt(position);
    while (chunk.length > 0) {
      position += chunk.length;
      const full = chunk.length === chunk.buffer.byteLength;
      ahead = full ? readAt(position) : undefined;
      yield chunk;
      chunk = await (ahead ?? readAt(position));
    }
  } finally {
    await ahead?.catch(() => {}); // a read still in flight finishes before the close
    await handle.close();
  }
}
