/**
 * The listing side of the JSONL store: a streaming fold of a file's entries into the shared
 * listing state (no entry array, no tree), cached by (path, size, mtime). A file that only
 * grew is folded from where the cache left off; the store's own writes update the cache
 * directly.
 *
 * @module
 */
import { unparseableLineReason } from "../../src/_line_reason.ts";
import { SessionError, SessionFormatError, SessionStorageError } from "../../src/errors.ts";
import { JsonlLineSplitter, parseSessionJsonl } from "../../src/jsonl.ts";
import { applyEntryToListing, type ListingState, listingStateOf } from "../../src/_listing.ts";
import type { SessionEntry, SessionHeader } from "../../src/schema.ts";
import { validateEntry } from "../../src/_entry_check.ts";
import type { FileStat, JsonlFolderFs } from "./_folder.ts";
import { type HeaderInfo, parseHeaderLine, readHeadLine } from "./_head_line.ts";

const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * What the listing cache keeps per file.
 *
 * @example
 * ```ts
 * import { type CachedFile } from "./_cache.ts";
 * declare const cached: CachedFile;
 * if (cached.error) console.log("unloadable:", cached.error.message);
 * ```
 */
export interface CachedFile {
  size: number;
  mtimeMs: number;
  info?: HeaderInfo;
  /** The folded entries; undefined when only the header was needed so far. */
  state?: ListingState;
  /** Why the file cannot be loaded (cached: re-reported without re-reading). */
  error?: Error;
  /** The last bytes read, to recognise a file that was only appended to. */
  probe?: Uint8Array;
  /**
   * `probe` as the persisted cache keeps it (base64), decoded only when needed
   * ({@link probeOf}): a cold listing of 10,000 files needs none of them.
   */
  probe64?: string;
  /** The header line's text, same purpose. */
  headText?: string;
  /** An I/O failure: reported, never cached. */
  transient?: true;
}

/**
 * The listing cache: described path → what was learned at (size, mtime). Share one between
 * store instances over the same folder to keep listings warm across them.
 *
 * @example
 * ```ts
 * import { JsonlListingCache } from "./_cache.ts";
 * const cache = new JsonlListingCache();
 * cache.size; // 0
 * ```
 */
export class JsonlListingCache {
  readonly #files = new Map<string, CachedFile>();
  #changes = 0;
  /** {@link changes} when the folder's cache file was last read or written (`_persist.ts`). */
  persistedAt?: number;
  get size(): number {
    return this.#files.size;
  }
  /** Counts changes, so a listing that changed nothing writes no cache file. */
  get changes(): number {
    return this.#changes;
  }
  get(key: string): CachedFile | undefined {
    return this.#files.get(key);
  }
  set(key: string, value: CachedFile): void {
    if (this.#files.get(key) === value) return;
    this.#files.set(key, value);
    this.#changes++;
  }
  delete(key: string): void {
    if (this.#files.delete(key)) this.#changes++;
  }
}

const PROBE_BYTES = 64;

/**
 * The probe of a cache entry, decoding (once) one read from the persisted cache.
 *
 * @example
 * ```ts
 * import { type CachedFile, probeOf } from "./_cache.ts";
 * declare const cached: CachedFile;
 * probeOf(cached)?.length; // at most 64
 * ```
 */
export function probeOf(cached: CachedFile): Uint8Array | undefined {
  if (cached.probe === undefined && cached.probe64 !== undefined) {
    const chars = atob(cached.probe64);
    const bytes = new Uint8Array(chars.length);
    for (let i = 0; i < chars.length; i++) bytes[i] = chars.charCodeAt(i);
    cached.probe = bytes;
  }
  return cached.probe;
}

/**
 * A copy of a fold state to extend: shallow is enough, because `applyEntryToListing` only
 * assigns its fields (a summary is replaced, never changed in place). `structuredClone` was
 * a tenth of a relaxed append's time in Deno.
 */
function copyState(state: ListingState): ListingState {
  return { ...state };
}

function keepTail(previous: Uint8Array, chunk: Uint8Array): Uint8Array {
  if (chunk.length >= PROBE_BYTES) return chunk.slice(chunk.length - PROBE_BYTES);
  const joined = new Uint8Array(Math.min(PROBE_BYTES, previous.length + chunk.length));
  const fromPrevious = joined.length - chunk.length;
  joined.set(previous.subarray(previous.length - fromPrevious));
  joined.set(chunk, fromPrevious);
  return joined;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Fold records from byte `start` (a line start) into `state`, validating each entry as a
 * load would, without keeping them. Returns the last bytes seen.
 */
async function foldFrom(
  fs: JsonlFolderFs,
  path: string,
  start: number,
  state: ListingState,
  probe: Uint8Array,
  lineBase: number,
  signal?: AbortSignal,
): Promise<Uint8Array> {
  const source = fs.describe(path);
  const splitter = new JsonlLineSplitter((record) => {
    // Line numbers are only known when folding from the header on (0 = unknown).
    const line = lineBase > 0 ? lineBase + record.line : 0;
    const where = { line, byteOffset: start + record.byteOffset, source };
    let value: unknown;
    try {
      value = JSON.parse(record.text);
    } catch (error) {
      throw new SessionFormatError(
        unparseableLineReason(record.text, record.terminated, error),
        where,
      );
    }
    const problem = validateEntry(value);
    if (problem) {
      const type = (value as { type?: unknown } | null)?.type;
      throw new SessionFormatError(`invalid ${String(type ?? "entry")} entry: ${problem}`, where);
    }
    applyEntryToListing(state, value as SessionEntry);
  }, source);
  for await (const chunk of fs.readStream(path, start)) {
    if (signal?.aborted) throw signal.reason;
    splitter.push(chunk);
    probe = keepTail(probe, chunk);
  }
  splitter.end();
  return probe;
}

/**
 * Which part of a file a listing needs, decided from its header.
 *
 * @example
 * ```ts
 * import { type ListingNeed } from "./_cache.ts";
 * const need: ListingNeed = (header) => header.cwd === "/p" ? "body" : "header";
 * ```
 */
export type ListingNeed = (header: SessionHeader) => "body" | "header";

/**
 * Summarise one file for a listing, using and refreshing the cache entry `cached`.
 * Unloadable files come back with `error` set (format problems are cached too).
 *
 * @example
 * ```ts
 * import { summarizeFile } from "./_cache.ts";
 * import { NodeJsonlFolderFs } from "@mu/sessions/stores/jsonl";
 * const fs = new NodeJsonlFolderFs("/tmp/sessions");
 * const stat = (await fs.stat("a.jsonl"))!;
 * const summary = await summarizeFile(fs, "a.jsonl", stat, undefined, () => "body");
 * ```
 */
export async function summarizeFile(
  fs: JsonlFolderFs,
  path: string,
  stat: FileStat,
  cached: CachedFile | undefined,
  need: ListingNeed,
  signal?: AbortSignal,
): Promise<CachedFile> {
  if (cached && cached.size === stat.size && cached.mtimeMs === stat.mtimeMs) {
    if (cached.error || cached.state || (cached.info && need(cached.info.header) === "header")) {
      return cached;
    }
  }
  try {
    if (cached?.state && cached.info && probeOf(cached) && stat.size > cached.size) {
      const grown = await extend(fs, path, stat, cached, signal);
      if (grown) return grown;
    }
    const head = await readHeadLine(fs, path, stat.size);
    const info = parseHeaderLine(head, fs.describe(path));
    const base: CachedFile = { ...stat, info, headText: head!.text };
    if (need(info.header) === "header") return base;
    if (info.needsUpgrade) {
      // Older formats need the whole-file upgrade (v1 ids) before entries validate.
      const parsed = await parseSessionJsonl(fs.readStream(path), {
        source: fs.describe(path),
        retainRaw: false,
        signal,
      });
      return { ...base, state: listingStateOf(parsed.entries) };
    }
    const state = listingStateOf([]);
    const probe = await foldFrom(fs, path, info.end, state, new Uint8Array(0), info.line, signal);
    return { ...base, state, probe };
  } catch (error) {
    if (error instanceof SessionFormatError) return { ...stat, error };
    if (signal?.aborted) throw error;
    if (error instanceof SessionError) return { ...stat, error };
    const detail = error instanceof Error ? error.message : String(error);
    // I/O trouble may pass: the caller reports it but does not cache it.
    return {
      ...stat,
      transient: true,
      error: new SessionStorageError(`Cannot read ${fs.describe(path)}: ${detail}`, {
        cause: error,
      }),
    };
  }
}

/** Fold only the appended bytes when the header and the old last bytes are unchanged. */
async function extend(
  fs: JsonlFolderFs,
  path: string,
  stat: FileStat,
  cached: CachedFile,
  signal?: AbortSignal,
): Promise<CachedFile | undefined> {
  const info = cached.info!;
  const probe = probeOf(cached)!;
  if (probe.length === 0 || probe[probe.length - 1] !== 10) return undefined;
  const [head, before] = await Promise.all([
    fs.read(path, 0, info.end),
    fs.read(path, cached.size - probe.length, cached.size),
  ]);
  if (!sameBytes(before, probe)) return undefined;
  let headText: string;
  try {
    headText = decoder.decode(head).replace(/^\uFEFF/, "").replace(/\r?\n$/, "");
  } catch {
    return undefined;
  }
  if (!cached.headText || !headText.endsWith(cached.headText)) return undefined;
  const state = copyState(cached.state!);
  const newProbe = await foldFrom(fs, path, cached.size, state, probe, 0, signal);
  return { ...stat, info, headText: cached.headText, state, probe: newProbe };
}

/**
 * A cache entry for a file this store just wrote, so the next listing reads nothing.
 *
 * @example
 * ```ts
 * import { cachedAfterWrite } from "./_cache.ts";
 * import { emptyListingState } from "../../src/_listing.ts";
 * import type { HeaderInfo } from "./_head_line.ts";
 * declare const info: HeaderInfo;
 * const cached = cachedAfterWrite({ size: 10, mtimeMs: 1 }, info, "{}", emptyListingState(), new Uint8Array([10]));
 * ```
 */
export function cachedAfterWrite(
  stat: FileStat,
  info: HeaderInfo,
  headText: string,
  state: ListingState,
  lastBytes: Uint8Array,
): CachedFile {
  return { ...stat, info, headText, state, probe: keepTail(new Uint8Array(0), lastBytes) };
}

/**
 * Fold appended entries into a copy of a cached state (the store's own appends).
 *
 * @example
 * ```ts
 * import { extendCached } from "./_cache.ts";
 * declare const cached: CachedFile;
 * const next = extendCached(cached, { size: 20, mtimeMs: 2 }, [], new Uint8Array([10]));
 * ```
 */
export function extendCached(
  cached: CachedFile,
  stat: FileStat,
  entries: readonly SessionEntry[],
  written: Uint8Array,
): CachedFile {
  const state = copyState(cached.state!);
  for (const entry of entries) applyEntryToListing(state, entry);
  const probe = keepTail(probeOf(cached) ?? new Uint8Array(0), written);
  return { ...cached, ...stat, state, probe, probe64: undefined };
}
