/**
 * The JSONL lazy open (`SessionManager.open`, see `lazy_index.ts`): the checking pass of
 * `_scan.ts` (every check the full parser runs, so an invalid entry anywhere still
 * stops it; from the file's resume index when that still matches) gives each entry's byte
 * offset, the listing fold and the label positions. An entry body is parsed again from its
 * bytes when the manager first needs it; the pass's rare entries (settings, system,
 * compactions) come parsed already.
 *
 * Bodies are read back from the file by offset when its backend reads synchronously
 * (Deno, Node), so nothing of the file stays in memory; otherwise (File System Access) the
 * bytes are kept as read, about the file's size against 2-4 times that for parsed objects.
 * A body read from the file must carry the id indexed at the open, else the file changed
 * under the manager (another process rewrote it) and the read raises `SessionStorageError`.
 * Like the context pass, any doubt (an error, an older format, duplicate
 * ids, a parent written after its child) answers `undefined`, and the store's full load
 * decides and words any error.
 *
 * @module
 */
import { entryFromText, type ScanFile, scanFile } from "./_scan.ts";
import { SessionStorageError } from "../../../src/errors.ts";
import type { Detachable, LazySession } from "../../../src/lazy_index.ts";
import type { SessionEntry } from "../../../src/schema.ts";

/** The bytes of a file as read, in chunks, addressable by file offset. */
class RetainedBytes {
  #chunks: Uint8Array[] = [];
  #starts: number[] = [];
  #length = 0;
  readonly #decoder = new TextDecoder();

  add(chunk: Uint8Array): void {
    this.#chunks.push(chunk);
    this.#starts.push(this.#length);
    this.#length += chunk.length;
  }

  clear(): void {
    this.#chunks = [];
    this.#starts = [];
    this.#length = 0;
  }

  /** The text of bytes `[start, end)`. */
  text(start: number, end: number): string {
    let lo = 0;
    let hi = this.#starts.length - 1;
    while (lo < hi) { // the last chunk starting at or before `start`
      const mid = (lo + hi + 1) >> 1;
      if (this.#starts[mid] <= start) lo = mid;
      else hi = mid - 1;
    }
    const first = this.#chunks[lo];
    const from = start - this.#starts[lo];
    if (from + (end - start) <= first.length) {
      return this.#decoder.decode(first.subarray(from, from + end - start));
    }
    const bytes = new Uint8Array(end - start);
    for (let i = lo, at = 0; at < bytes.length; i++) {
      const chunk = this.#chunks[i];
      const part = chunk.subarray(
        i === lo ? from : 0,
        Math.min(chunk.length, (i === lo ? from : 0) + bytes.length - at),
      );
      bytes.set(part, at);
      at += part.length;
    }
    return this.#decoder.decode(bytes);
  }
}

/**
 * Bytes read past a body when bodies are read in file order: a context's entries lie
 * together, and reading them one by one cost a large session's open thousands of reads (each
 * opening, reading and closing the file) where a few dozen serve.
 */
export const READ_AHEAD_BYTES = 256 << 10;

/**
 * Where a lazily opened file's entry bodies come from: the file itself, read by offset
 * (`readSync`; nothing of the file is kept but the last {@link READ_AHEAD_BYTES} window),
 * or the bytes kept as they were scanned. Its store detaches it (reads the file's bytes
 * into memory once) before rewriting the file, whose offsets would then move.
 */
class FileBodies implements Detachable {
  readonly key: string;
  readonly #readSync?: (start: number, end: number) => Uint8Array;
  #kept?: RetainedBytes;
  /** The last bytes read from the file, from offset `start` (a read-ahead window). */
  #lastRead?: { start: number; bytes: Uint8Array };
  readonly #decoder = new TextDecoder();
  length = 0;

  constructor(key: string, readSync?: (start: number, end: number) => Uint8Array) {
    this.key = key;
    this.#readSync = readSync;
    if (!readSync) this.#kept = new RetainedBytes();
  }

  /** Where the pass hands the bytes it reads (kept only when there is no `readSync`). */
  get keep(): RetainedBytes | undefined {
    return this.#kept;
  }

  /** Whether a read could see a file changed since the scan (the caller checks the id). */
  get fromFile(): boolean {
    return !this.#kept;
  }

  text(start: number, end: number): string {
    if (this.#kept) return this.#kept.text(start, end);
    let last = this.#lastRead;
    if (!last || start < last.start || end > last.start + last.bytes.length) {
      // Read ahead only going forward: read backwards, each body would cost a whole read-ahead.
      const forward = !last || start >= last.start;
      const bytes = this.#readSync!(start, forward ? Math.max(end, start + READ_AHEAD_BYTES) : end);
      this.#lastRead = last = { start, bytes };
    }
    const from = start - last.start;
    return this.#decoder.decode(last.bytes.subarray(from, from + end - start));
  }

  detach(): void {
    this.#lastRead = undefined;
    if (this.#kept) return;
    const kept = new RetainedBytes();
    kept.add(this.#readSync!(0, this.length));
    this.#kept = kept;
  }
}

/** What {@link scanLazy} needs to know about the file. */
export interface LazyScanOptions {
  /** The store's key for the file (its `Detachable` key). */
  key: string;
  /** Bytes `[start, end)` of the file, synchronously, when the backend can. */
  readSync?: (start: number, end: number) => Uint8Array;
}

/**
 * The lazy open of the format-4 JSONL session in `file` (its `source` is the session's
 * `path`), with the link its store can detach, or `undefined` whenever the full parser
 * should decide instead.
 *
 * @example
 * ```ts
 * import { scanLazy } from "./_lazy_open.ts";
 * const bytes = new TextEncoder().encode('{"type":"session","version":4,"id":"s","createdAt":"2026-01-01T00:00:00.000Z","cwd":"/p"}\n');
 * const file = {
 *   source: "/sessions/s.jsonl",
 *   stream: async function* (start = 0) { yield bytes.subarray(start); },
 *   read: (start: number, end: number) => Promise.resolve(bytes.subarray(start, end)),
 * };
 * (await scanLazy(file, { key: "s.jsonl" }))?.session.ids; // []
 * ```
 */
export async function scanLazy(
  file: ScanFile,
  options: LazyScanOptions,
): Promise<{ session: LazySession; bodies: Detachable } | undefined> {
  const bodies = new FileBodies(options.key, options.readSync);
  try {
    const { scanner, header } = await scanFile({ ...file, keep: bodies.keep });
    bodies.length = scanner.end;
    const parsed = new Map<number, SessionEntry>(scanner.rare);
    // Not the scanner itself: the index takes its id map over, nothing else of it lives on.
    const { ids, parents, flags, listing, labels, offsets, end, at: positions } = scanner;
    const read = (i: number) => {
      // From an entry's first byte to the next one's: only line breaks follow the record.
      const text = bodies.text(offsets[i], offsets[i + 1] ?? end);
      const entry = entryFromText(text, ids[i], parents[i]);
      if (!entry) throw new SessionStorageError(`${file.source} changed since it was opened`);
      return entry;
    };
    const labelPositions = () => [...labels];
    const session = {
      header,
      path: file.source,
      ids,
      parents,
      flags,
      listing,
      parsed,
      positions,
      read,
      labelPositions,
    };
    return { session, bodies };
  } catch {
    return undefined; // any doubt (an Unsure, a parse or format error): the full load decides
  }
}
