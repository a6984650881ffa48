/**
 * The JSONL lazy open (`SessionManager.open`, see `lazy_index.ts`): the context-only pass
 * of `context_scan.ts` (every check the full parser runs, so an invalid entry anywhere
 * still stops it) that also keeps the file's bytes and each entry's byte offset, the
 * listing fold and the label positions. An entry body is parsed again from its bytes when
 * the manager first needs it; the entries of the pass's window come parsed already.
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
import { ContextScanner, feed } from "./context_scan.ts";
import { SessionStorageError } from "./errors.ts";
import type { Detachable, LazySession } from "./lazy_index.ts";
import { applyEntryToListing, emptyListingState } from "./listing.ts";
import type { SessionEntry } from "./schema.ts";

/** The bytes of a file as read, in chunks, addressable by file offset. */
class RetainedBytes {
  readonly #chunks: Uint8Array[] = [];
  readonly #starts: number[] = [];
  #length = 0;
  readonly #decoder = new TextDecoder();

  get length(): number {
    return this.#length;
  }

  add(chunk: Uint8Array): void {
    this.#chunks.push(chunk);
    this.#starts.push(this.#length);
    this.#length += chunk.length;
  }

  /** Keep `chunks` as they pass (the reader hands out a fresh buffer per chunk). */
  async *keep(chunks: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
    for await (const chunk of chunks) {
      this.add(chunk);
      yield chunk;
    }
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
 * Where a lazily opened file's entry bodies come from: the file itself, read by offset
 * (`readSync`; nothing of the file is kept), or the bytes kept as they were scanned. Its
 * store detaches it (reads the file's bytes into memory once) before rewriting the file,
 * whose offsets would then move.
 */
class FileBodies implements Detachable {
  readonly key: string;
  readonly #readSync?: (start: number, end: number) => Uint8Array;
  #kept?: RetainedBytes;
  readonly #decoder = new TextDecoder();
  length = 0;

  constructor(key: string, readSync?: (start: number, end: number) => Uint8Array) {
    this.key = key;
    this.#readSync = readSync;
    if (!readSync) this.#kept = new RetainedBytes();
  }

  /** The scanned chunks (kept when there is no `readSync`), counted. */
  async *pass(chunks: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
    const counted = this.#kept ? this.#kept.keep(chunks) : chunks;
    for await (const chunk of counted) {
      this.length += chunk.length;
      yield chunk;
    }
  }

  /** Whether a read could see a file changed since the scan (the caller checks the id). */
  get fromFile(): boolean {
    return !this.#kept;
  }

  text(start: number, end: number): string {
    if (this.#kept) return this.#kept.text(start, end);
    return this.#decoder.decode(this.#readSync!(start, end));
  }

  detach(): void {
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
  /** The file as shown to people (the session's `path`, error messages). */
  source: string;
  /** Bytes `[start, end)` of the file, synchronously, when the backend can. */
  readSync?: (start: number, end: number) => Uint8Array;
}

/**
 * The lazy open of the format-4 JSONL session in `chunks`, with the link its store can
 * detach, or `undefined` whenever the full parser should decide instead.
 *
 * @example
 * ```ts
 * import { scanLazy } from "./lazy_scan.ts";
 * const text = '{"type":"session","version":4,"id":"s","createdAt":"2026-01-01T00:00:00.000Z","cwd":"/p"}\n';
 * const read = async function* () { yield new TextEncoder().encode(text); };
 * (await scanLazy(read(), { key: "s.jsonl", source: "/sessions/s.jsonl" }))?.session.ids; // []
 * ```
 */
export async function scanLazy(
  chunks: AsyncIterable<Uint8Array>,
  options: LazyScanOptions,
): Promise<{ session: LazySession; bodies: Detachable } | undefined> {
  const scanner = new ContextScanner();
  const bodies = new FileBodies(options.key, options.readSync);
  const offsets: number[] = [];
  const labels: number[] = [];
  const listing = emptyListingState();
  scanner.onEntry = (entry, record) => {
    if (entry.type === "label") labels.push(offsets.length);
    offsets.push(record.byteOffset);
    applyEntryToListing(listing, entry);
  };
  try {
    await feed(bodies.pass(chunks), scanner.onRecord, options.source);
    const header = scanner.checkedHeader();
    const parsed = new Map<number, SessionEntry>(scanner.rare);
    scanner.kept.forEach((entry, i) => parsed.set(scanner.keptStart + i, entry));
    const { ids } = scanner;
    const read = (i: number) => {
      // From an entry's first byte to the next one's: only line breaks follow the record.
      const text = bodies.text(offsets[i], offsets[i + 1] ?? bodies.length);
      let entry: SessionEntry | undefined;
      try {
        entry = JSON.parse(text);
      } catch { /* the file changed: below */ }
      if (entry?.id !== ids[i]) {
        throw new SessionStorageError(`${options.source} changed since it was opened`);
      }
      return entry;
    };
    const labelPositions = () => [...labels];
    const { parents, flags } = scanner;
    const session = {
      header,
      path: options.source,
      ids,
      parents,
      flags,
      listing,
      parsed,
      read,
      labelPositions,
    };
    return { session, bodies };
  } catch {
    return undefined; // any doubt (an Unsure, a parse or format error): the full load decides
  }
}
