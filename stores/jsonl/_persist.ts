/**
 * The listing cache on disk, so a new process lists a folder without reading its sessions
 * (without it, most of a cold listing was folding every file again).
 *
 * Where: `.mu-listing-cache.json` in the folder's root, written through the store's own
 * {@link JsonlFolderFs}. That is the one place every backend can reach (an OPFS or File
 * System Access folder has no agent directory), it moves and is deleted with the folder, and
 * every agent directory or process that lists the folder shares it. The name starts with a
 * dot and does not end in `.jsonl`, so no reader (this one, pi, Atomic) takes it for a
 * session. A read-only folder simply gets no cache: failing to write it is not an error.
 *
 * Trust: nothing in it is believed unless the whole file checks out (`_side_file.ts`: the
 * first line names the format, its {@link LISTING_CACHE_VERSION}, and the SHA-256 and length
 * of the rest); a torn, truncated, edited or foreign-version file is ignored (and replaced by the next
 * listing). Each entry is then only used while its file's (size, mtime) still match, as in
 * memory; a file changed behind its back is read again. Writes are atomic (temp + rename)
 * without `fsync`: a cache lost in a power cut is rebuilt, a torn one is refused.
 *
 * A save that changed few entries since the cache file was last written whole writes them
 * to the journal beside it instead (`_listing_journal.ts`, trusted on the same terms and
 * only on top of the cache file it names); the next whole save folds it in.
 *
 * @module
 */
import type { FileStat, JsonlFolderFs } from "./_folder.ts";
import type { CachedFile, JsonlListingCache } from "./_cache.ts";
import type { HeaderInfo } from "./_head_line.ts";
import { decodeSideFile, encodeSideFile } from "./_side_file.ts";
import {
  encodeListingJournal,
  headChecksum,
  LISTING_JOURNAL_FILE,
  readListingJournal,
} from "./_listing_journal.ts";

/** The cache file's name in the folder root. */
export const LISTING_CACHE_FILE = ".mu-listing-cache.json";
/**
 * Bump when {@link CachedFile} or the listing fold (`src/_listing.ts`) changes meaning: a
 * cache written by another version is never read.
 */
export const LISTING_CACHE_VERSION = 2;
const KIND = { format: "mu-sessions-listing-cache", version: LISTING_CACHE_VERSION };
const JOURNAL_KIND = { format: "mu-sessions-listing-journal", version: LISTING_CACHE_VERSION };
/**
 * A journal larger than this part of the cache file is folded into a whole save instead: a
 * journal is rewritten with every save, so past that it saves little and reading it costs.
 */
const JOURNAL_SHARE = 1 / 8;

/** The cache file as this cache last read or wrote it: what a journal is written on. */
interface Base {
  /** `fs.describe` of the cache file: a cache shared with another folder writes whole. */
  file: string;
  /** Its head's checksum, which the journal names. */
  checksum: string;
  /** Its (size, mtime) then: another writer's whole save since makes this a stale base. */
  stat: FileStat;
  /** Body length, against which a journal's size is weighed. */
  length: number;
  /** Path -> the cache entry the file holds for it (entries are replaced, never changed). */
  entries: Map<string, CachedFile>;
  /** A journal file is in the folder (ours or stale): removed after a whole save. */
  journal: boolean;
}
const bases = new WeakMap<JsonlListingCache, Base>();

/** One file's entry: the header is kept as its line's text (parsed again on load) unless
 * it was upgraded from an older format, which keeps the cache file small to read. */
interface Stored {
  size: number;
  mtimeMs: number;
  headText: string;
  /** Only when the file needs an upgrade (then it differs from `headText`'s record). */
  header?: HeaderInfo["header"];
  version: number;
  needsUpgrade: boolean;
  end: number;
  line: number;
  state?: CachedFile["state"];
  /** The last bytes read, base64. */
  probe?: string;
}

const encoder = new TextEncoder();
// Not fatal: the checksum already vouches for the bytes, and validation doubled the time.
const decoder = new TextDecoder();

/** Node's `Buffer` where the runtime has one (Node, Deno), typed locally for the browser. */
const NodeBuffer = (globalThis as {
  Buffer?: {
    from(b: ArrayBufferLike, at: number, length: number): { toString(e: "utf8"): string };
  };
}).Buffer;

/**
 * The cache file's text. Deno's `TextDecoder` took several times as long as `Buffer` on a
 * large cache file; both replace invalid bytes the same way.
 */
function utf8(bytes: Uint8Array): string {
  if (!NodeBuffer) return decoder.decode(bytes);
  return NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("utf8");
}

function toBase64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}

/**
 * Fill `cache` from the folder's cache file and the journal written on top of it (when that
 * checks out too), for paths it does not know yet. Resolves how many entries were taken; 0
 * when there is no file or it is not trustworthy.
 *
 * @example
 * ```ts
 * import { loadListingCache } from "./_persist.ts";
 * import { JsonlListingCache } from "./_cache.ts";
 * import { NodeJsonlFolderFs } from "@mu/sessions/stores/jsonl";
 * const taken = await loadListingCache(new NodeJsonlFolderFs("/tmp/sessions"), new JsonlListingCache());
 * ```
 */
export async function loadListingCache(
  fs: JsonlFolderFs,
  cache: JsonlListingCache,
): Promise<number> {
  let files: Record<string, Stored>;
  let base: Base;
  try {
    const stat = await fs.stat(LISTING_CACHE_FILE);
    if (!stat) return 0;
    const bytes = await fs.read(LISTING_CACHE_FILE, 0, stat.size);
    const body = await decodeSideFile(KIND, bytes);
    const checksum = body && headChecksum(bytes);
    if (!body || !checksum) return 0;
    files = JSON.parse(utf8(body)).files;
    if (!files || typeof files !== "object") return 0;
    const file = fs.describe(LISTING_CACHE_FILE);
    base = { file, checksum, stat, length: body.length, entries: new Map(), journal: false };
  } catch {
    return 0; // unreadable, torn or not ours: listed from the files themselves
  }
  const journal = await readListingJournal(fs, JOURNAL_KIND, base.checksum);
  base.journal = journal.found;
  bases.set(cache, base);
  let taken = 0;
  const take = (path: string, stored: Stored) => {
    const key = fs.describe(path);
    const entry = cachedOf(stored);
    if (!cache.get(key)) {
      cache.set(key, entry);
      taken++;
    }
    return entry;
  };
  for (const [path, stored] of Object.entries(files)) {
    // Recorded even when the journal replaces it, so the next journal carries that again.
    if (journal.files && path in journal.files) base.entries.set(path, cachedOf(stored));
    else base.entries.set(path, take(path, stored));
  }
  for (const [path, stored] of Object.entries(journal.files ?? {})) {
    if (stored !== null) take(path, stored as Stored);
  }
  return taken;
}

function cachedOf(stored: Stored): CachedFile {
  const { size, mtimeMs, headText, version, needsUpgrade, end, line, state, probe } = stored;
  const header = stored.header ?? JSON.parse(headText);
  const info = { header, id: header.id, version, needsUpgrade, end, line };
  const entry: CachedFile = { size, mtimeMs, info, headText, state };
  if (probe !== undefined) entry.probe64 = probe; // decoded when needed (`probeOf`)
  return entry;
}

/**
 * Around a listing: read the cache file the first time this cache lists the folder, and
 * write it back afterwards when the listing (or the store's writes) changed the cache.
 *
 * @example
 * ```ts
 * import { persistedListing } from "./_persist.ts";
 * import { JsonlListingCache } from "./_cache.ts";
 * import { NodeJsonlFolderFs } from "@mu/sessions/stores/jsonl";
 * const fs = new NodeJsonlFolderFs("/tmp/sessions");
 * const rows = await persistedListing(fs, new JsonlListingCache(), ["a.jsonl"], async () => []);
 * ```
 */
export async function persistedListing<T>(
  fs: JsonlFolderFs,
  cache: JsonlListingCache,
  paths: readonly string[],
  list: () => Promise<T>,
): Promise<T> {
  if (cache.persistedAt === undefined) {
    await loadListingCache(fs, cache);
    cache.persistedAt = cache.changes;
  }
  const result = await list();
  // An empty folder gets no cache file (listing never creates the folder).
  if (paths.length > 0 && cache.changes !== cache.persistedAt) {
    await saveListingCache(fs, cache, paths);
    cache.persistedAt = cache.changes; // written or not writable: not retried until it changes
  }
  return result;
}

/**
 * Each cache entry's stored JSON, kept with the entry: a listing replaces the entries of
 * changed files and never changes one in place (only a probe read back from base64 is
 * decoded, which keeps its text), so a save after a few changes among thousands of files
 * serialises only those instead of the whole cache file again.
 */
const storedTexts = new WeakMap<CachedFile, string>();

function storedText(cached: CachedFile): string {
  const known = storedTexts.get(cached);
  if (known !== undefined) return known;
  const { size, mtimeMs, info, headText, state, probe, probe64 } = cached;
  const { version, needsUpgrade, end, line } = info!;
  const stored: Stored = {
    size,
    mtimeMs,
    headText: headText!,
    version,
    needsUpgrade,
    end,
    line,
    state,
  };
  if (needsUpgrade) stored.header = info!.header;
  if (probe) stored.probe = toBase64(probe);
  else if (probe64 !== undefined) stored.probe = probe64;
  const text = JSON.stringify(stored);
  storedTexts.set(cached, text);
  return text;
}

/**
 * Write the cache entries of `paths` (folder paths) to the folder's cache file, atomically.
 * Entries for unloadable files and I/O failures are left out (they are re-read). Never
 * throws: a folder that cannot be written is listed without a cache next time.
 *
 * @example
 * ```ts
 * import { saveListingCache } from "./_persist.ts";
 * import { JsonlListingCache } from "./_cache.ts";
 * import { NodeJsonlFolderFs } from "@mu/sessions/stores/jsonl";
 * await saveListingCache(new NodeJsonlFolderFs("/tmp/sessions"), new JsonlListingCache(), ["a.jsonl"]);
 * ```
 */
export async function saveListingCache(
  fs: JsonlFolderFs,
  cache: JsonlListingCache,
  paths: readonly string[],
): Promise<boolean> {
  try {
    if (await saveJournal(fs, cache, paths)) return true;
    // The text of `JSON.stringify({ files })`, put together from each entry's own text.
    const members: string[] = [];
    const entries = new Map<string, CachedFile>();
    for (const path of paths) {
      const cached = storable(cache.get(fs.describe(path)));
      if (!cached) continue;
      members.push(`${JSON.stringify(path)}:${storedText(cached)}`);
      entries.set(path, cached);
    }
    const body = encoder.encode(`{"files":{${members.join(",")}}}`);
    const bytes = await encodeSideFile(KIND, body);
    await fs.writeAtomic(LISTING_CACHE_FILE, bytes, { durability: "relaxed" });
    const previous = bases.get(cache);
    const stat = await fs.stat(LISTING_CACHE_FILE);
    const checksum = headChecksum(bytes);
    if (stat && checksum) {
      const file = fs.describe(LISTING_CACHE_FILE);
      bases.set(cache, { file, checksum, stat, length: body.length, entries, journal: false });
    } else bases.delete(cache);
    // Now naming a base that is gone; readers would ignore it anyway.
    if (previous?.journal) await fs.remove(LISTING_JOURNAL_FILE).catch(() => {});
    return true;
  } catch {
    return false; // read-only folder, no permission, full disk: list without it next time
  }
}

/** The entry as a save keeps it: unloadable files and I/O failures are re-read instead. */
function storable(cached: CachedFile | undefined): CachedFile | undefined {
  return cached?.info && cached.headText !== undefined && !cached.error && !cached.transient
    ? cached
    : undefined;
}

/**
 * Write the entries changed since the cache file was last read or written whole as its
 * journal; false (nothing written) when there is no such file this cache knows, another
 * writer replaced it since, or the journal would be too large a part of it.
 */
async function saveJournal(
  fs: JsonlFolderFs,
  cache: JsonlListingCache,
  paths: readonly string[],
): Promise<boolean> {
  const base = bases.get(cache);
  if (!base || base.file !== fs.describe(LISTING_CACHE_FILE)) return false;
  const members: string[] = [];
  let length = 0;
  const add = (path: string, text: string) => {
    members.push(`${JSON.stringify(path)}:${text}`);
    length += members.at(-1)!.length + 1;
    return length <= base.length * JOURNAL_SHARE;
  };
  const listed = new Set(paths);
  for (const path of paths) {
    const cached = storable(cache.get(fs.describe(path)));
    if (cached === base.entries.get(path)) continue;
    if (!add(path, cached ? storedText(cached) : "null")) return false;
  }
  for (const path of base.entries.keys()) {
    if (!listed.has(path) && !add(path, "null")) return false;
  }
  const stat = await fs.stat(LISTING_CACHE_FILE);
  if (stat?.size !== base.stat.size || stat.mtimeMs !== base.stat.mtimeMs) return false;
  const bytes = await encodeListingJournal(JOURNAL_KIND, base.checksum, members);
  await fs.writeAtomic(LISTING_JOURNAL_FILE, bytes, { durability: "relaxed" });
  base.journal = true;
  return true;
}
