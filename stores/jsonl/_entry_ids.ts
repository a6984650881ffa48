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
  /** Parent ids lines name that no line carries as its id (dangling parents): few or none. */
  dangling: Set<string>;
}

const OWN = 0;
const NONE: ReadonlySet<string> = new Set();

const SCAN_CHUNK = 1 << 20;
const NEWLINE = 0x0a;
const decoder = new TextDecoder();
/** A line as `JSON.stringify` writes an entry: its top-level id (and parent) without a parse. */
const PLAIN_ID = /^\{"type":"[^"\\]*","id":"([^"\\]*)"(?:,"parentId":(?:null|"([^"\\]*)"))?/;

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
  appended(
    path: string,
    entries: readonly { id: string; parentId: string | null }[],
    bytes: number,
    after?: FileStat,
  ) {
    const file = this.#files.get(path);
    if (!file) return;
    for (const { id } of entries) file.places.set(id, OWN);
    for (const entry of entries) noteLine(file, entry.id, entry.parentId);
    if (after && after.size === file.size + bytes) Object.assign(file, after);
  }

  /**
   * Which of `ids` a line of the file, as last scanned or appended, names as a parent that
   * no line carries (a cycle could close through it): usually none, at the cost of a lookup.
   */
  danglingAmong(path: string, ids: readonly string[]): ReadonlySet<string> {
    const dangling = this.#files.get(path)?.dangling;
    return dangling?.size ? new Set(ids.filter((id) => dangling.has(id))) : NONE;
  }

  /** Each entry id's parent id in the file, read whole (the rare walk through the tree). */
  async parentLinks(path: string): Promise<Map<string, string | null>> {
    const file: ScannedFile = {
      size: 0,
      mtimeMs: 0,
      scanned: 0,
      places: new Map(),
      dangling: new Set(),
    };
    const parents = new Map<string, string | null>();
    const stat = await this.#fs.stat(path);
    if (stat) await this.#scan(path, file, stat.size, (id, parentId) => parents.set(id, parentId));
    return parents;
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
    if (!file || stat.size < file.scanned) {
      file = { ...stat, scanned: 0, places: new Map(), dangling: new Set() };
    }
    await this.#scan(path, file, stat.size);
    this.#files.set(path, Object.assign(file, stat));
    return file;
  }

  /** Record the places of the complete lines between `file.scanned` and `size`. */
  async #scan(
    path: string,
    file: ScannedFile,
    size: number,
    onLine?: (id: string, parentId: string | null) => void,
  ): Promise<void> {
    let start = file.scanned;
    let chunk = SCAN_CHUNK;
    while (start < size) {
      const bytes = await this.#fs.read(path, start, Math.min(size, start + chunk));
      let lineStart = 0;
      for (let i = bytes.indexOf(NEWLINE); i !== -1; i = bytes.indexOf(NEWLINE, lineStart)) {
        if (start + lineStart > 0) { // the header line names no entry
          const { id, parentId } = linkOf(decoder.decode(bytes.subarray(lineStart, i)));
          if (id !== undefined) {
            file.places.set(id, [start + lineStart, start + i]);
            noteLine(file, id, parentId);
            onLine?.(id, parentId);
          }
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
  return linkOf(line).id;
}

/** A line's top-level entry id and parent id (null: a root, or none readable). */
function linkOf(line: string): { id?: string; parentId: string | null } {
  const plain = PLAIN_ID.exec(line);
  if (plain && plain[0].endsWith('parentId":null')) return { id: plain[1], parentId: null };
  if (plain?.[2] !== undefined) return { id: plain[1], parentId: plain[2] };
  try {
    const { id, parentId } = (JSON.parse(line) ?? {}) as { id?: unknown; parentId?: unknown };
    return {
      id: typeof id === "string" ? id : undefined,
      parentId: typeof parentId === "string" ? parentId : null,
    };
  } catch {
    return { parentId: null };
  }
}

/** Keep `file.dangling` in step with a line just placed (the file's ids include it). */
function noteLine(file: ScannedFile, id: string, parentId: string | null): void {
  file.dangling.delete(id);
  if (parentId !== null && !file.places.has(parentId)) file.dangling.add(parentId);
}
