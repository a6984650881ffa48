/**
 * Where each entry id's line is in the session files a store appends to, so an append can
 * refuse an id the session already holds (`newEntries` in `src/guarded_store.ts`) without
 * parsing the session: a file is scanned once; the store's own appends are recorded as
 * they commit (no read, no extra stat: the append's own stat says the file is unchanged);
 * only bytes another process appended are scanned. A place found stale (the line read
 * there does not carry the id) or not yet known (an own append) scans the file again.
 *
 * @module
 */
import type { FileStat, JsonlFolderFs } from "./_folder.ts";

interface ScannedFile extends FileStat {
  /** Bytes scanned: the end of the last complete line. */
  scanned: number;
  /** Byte range of each id's line; `OWN` for a line this store appended since the scan. */
  places: Map<string, readonly [start: number, end: number] | typeof OWN>;
}

const OWN = 0;

const SCAN_CHUNK = 1 << 20;
const NEWLINE = 0x0a;
const decoder = new TextDecoder();
/** A line as `JSON.stringify` writes an entry: its top-level id without a parse. */
const PLAIN_ID = /^\{"type":"[^"\\]*","id":"([^"\\]*)"/;

/**
 * The entry ids of the session files one store appends to.
 *
 * @example
 * ```ts
 * import { EntryIdPlaces } from "./_entry_ids.ts";
 * import type { JsonlFolderFs } from "./_folder.ts";
 * declare const fs: JsonlFolderFs;
 * const stored = await new EntryIdPlaces(fs).storedLines("a.jsonl", ["e1"]);
 * stored.get("e1"); // the line stored under e1, if any
 * ```
 */
export class EntryIdPlaces {
  readonly #fs: JsonlFolderFs;
  readonly #files = new Map<string, ScannedFile>();

  constructor(fs: JsonlFolderFs) {
    this.#fs = fs;
  }

  /**
   * The stored line of each of `ids` the file holds (none for a missing file). `known`:
   * the file's stat after this store's last write to it, when it has one.
   */
  async storedLines(
    path: string,
    ids: readonly string[],
    known?: FileStat,
  ): Promise<Map<string, string>> {
    for (let attempt = 0;; attempt++) {
      const file = await this.#current(path, attempt > 0, attempt > 0 ? undefined : known);
      const stored = new Map<string, string>();
      let stale = false;
      for (const id of ids) {
        const place = file?.places.get(id);
        if (place === undefined) continue;
        if (place === OWN) {
          stale = true;
          continue;
        }
        const line = decoder.decode(await this.#fs.read(path, place[0], place[1]));
        if (idOf(line) === id) stored.set(id, line);
        else stale = true;
      }
      if (!stale || attempt > 0) return stored;
    }
  }

  /**
   * Whether the file, as it was at `stat`, is known to hold none of `ids` without reading
   * it: scanned at that very stat and none of them placed (a line this store appended
   * counts as placed). False means "ask {@link storedLines}", not "held".
   */
  holdsNoneOf(path: string, ids: readonly string[], stat: FileStat): boolean {
    const file = this.#files.get(path);
    if (!file || file.size !== stat.size || file.mtimeMs !== stat.mtimeMs) return false;
    for (const id of ids) if (file.places.has(id)) return false;
    return true;
  }

  /**
   * Record this store's committed append of `entries` (`bytes` long) to a file, which
   * `after` describes: in step when the file grew by exactly these bytes since the stat
   * the cache is at; otherwise the next call scans what it has not seen.
   */
  appended(path: string, entries: readonly { id: string }[], bytes: number, after?: FileStat) {
    const file = this.#files.get(path);
    if (!file) return;
    for (const { id } of entries) file.places.set(id, OWN);
    if (after && after.size === file.size + bytes) Object.assign(file, after);
  }

  /** Forget a file (deleted or replaced by this store). */
  forget(path: string): void {
    this.#files.delete(path);
  }

  async #current(
    path: string,
    rescan: boolean,
    known: FileStat | undefined,
  ): Promise<ScannedFile | undefined> {
    const cached = rescan ? undefined : this.#files.get(path);
    if (cached && known && cached.size === known.size && cached.mtimeMs === known.mtimeMs) {
      return cached;
    }
    const stat = await this.#fs.stat(path);
    if (!stat) {
      this.#files.delete(path);
      return undefined;
    }
    let file = rescan ? undefined : this.#files.get(path);
    if (file && file.size === stat.size && file.mtimeMs === stat.mtimeMs) return file;
    if (!file || stat.size < file.scanned) file = { ...stat, scanned: 0, places: new Map() };
    await this.#scan(path, file, stat.size);
    this.#files.set(path, Object.assign(file, stat));
    return file;
  }

  /** Record the places of the complete lines between `file.scanned` and `size`. */
  async #scan(path: string, file: ScannedFile, size: number): Promise<void> {
    let start = file.scanned;
    let chunk = SCAN_CHUNK;
    while (start < size) {
      const bytes = await this.#fs.read(path, start, Math.min(size, start + chunk));
      let lineStart = 0;
      for (let i = bytes.indexOf(NEWLINE); i !== -1; i = bytes.indexOf(NEWLINE, lineStart)) {
        if (start + lineStart > 0) { // the header line names no entry
          const id = idOf(decoder.decode(bytes.subarray(lineStart, i)));
          if (id !== undefined) file.places.set(id, [start + lineStart, start + i]);
        }
        lineStart = i + 1;
      }
      if (lineStart === 0) {
        if (start + bytes.length >= size) break; // a torn last line: scanned once complete
        chunk *= 2; // a line longer than the chunk
        continue;
      }
      start += lineStart;
    }
    file.scanned = start;
  }
}

/** A line's top-level entry id; a line that is not a JSON object has none. */
function idOf(line: string): string | undefined {
  const plain = PLAIN_ID.exec(line);
  if (plain) return plain[1];
  try {
    const id = (JSON.parse(line) as { id?: unknown } | null)?.id;
    return typeof id === "string" ? id : undefined;
  } catch {
    return undefined;
  }
}
