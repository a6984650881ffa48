/**
 * The JSONL lazy open (`SessionManager.open`, see `lazy_index.ts`): the context-only pass
 * of `context_scan.ts` (every check the full parser runs, so an invalid entry anywhere
 * still stops it) that also keeps the file's bytes and each entry's byte offset, the
 * listing fold and the label positions. An entry body is parsed again from its bytes when
 * the manager first needs it; the entries of the pass's window come parsed already.
 *
 * The bytes are the file as read (about its size in memory, against 2-4 times that for
 * parsed objects). Like the context pass, any doubt (an error, an older format, duplicate
 * ids, a parent written after its child) answers `undefined`, and the store's full load
 * decides and words any error.
 *
 * @module
 */
import { ContextScanner, feed } from "./context_scan.ts";
import type { LazySession } from "./lazy_index.ts";
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

  /** Keep `chunks` as they pass (the reader hands out a fresh buffer per chunk). */
  async *keep(chunks: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
    for await (const chunk of chunks) {
      this.#chunks.push(chunk);
      this.#starts.push(this.#length);
      this.#length += chunk.length;
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
 * The lazy open of the format-4 JSONL session in `read()`'s bytes, or `undefined` whenever
 * the full parser should decide instead.
 *
 * @example
 * ```ts
 * import { scanLazy } from "./lazy_scan.ts";
 * const text = '{"type":"session","version":4,"id":"s","createdAt":"2026-01-01T00:00:00.000Z","cwd":"/p"}\n';
 * const read = async function* () { yield new TextEncoder().encode(text); };
 * (await scanLazy(read(), "/sessions/s.jsonl"))?.ids; // []
 * ```
 */
export async function scanLazy(
  chunks: AsyncIterable<Uint8Array>,
  path?: string,
): Promise<LazySession | undefined> {
  const scanner = new ContextScanner();
  const bytes = new RetainedBytes();
  const offsets: number[] = [];
  const labels: number[] = [];
  const listing = emptyListingState();
  scanner.onEntry = (entry, record) => {
    if (entry.type === "label") labels.push(offsets.length);
    offsets.push(record.byteOffset);
    applyEntryToListing(listing, entry);
  };
  try {
    await feed(bytes.keep(chunks), scanner.onRecord, path);
    const header = scanner.checkedHeader();
    const parsed = new Map<number, SessionEntry>(scanner.rare);
    scanner.kept.forEach((entry, i) => parsed.set(scanner.keptStart + i, entry));
    return {
      header,
      path,
      ids: scanner.ids,
      parents: scanner.parents,
      flags: scanner.flags,
      listing,
      parsed,
      labelPositions: () => [...labels],
      // From an entry's first byte to the next one's: only whitespace follows the record.
      read: (i) => JSON.parse(bytes.text(offsets[i], offsets[i + 1] ?? bytes.length)),
    };
  } catch {
    return undefined; // any doubt (an Unsure, a parse or format error): the full load decides
  }
}
