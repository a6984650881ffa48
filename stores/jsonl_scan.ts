/**
 * Cheap reads of session files for lookups and listings: the header line alone, and a
 * streaming fold of the entries into the shared listing state (no entry array, no tree).
 * Results are cached by (path, size, mtime); a file that only grew is folded from where
 * the cache left off.
 *
 * @module
 */
import { SessionError, SessionFormatError, SessionStorageError } from "../src/errors.ts";
import { JsonlLineSplitter, parseSessionJsonl } from "../src/jsonl.ts";
import { applyEntryToListing, type ListingState, listingStateOf } from "../src/listing.ts";
import { headerVersion, upgradeRecords } from "../src/migrate.ts";
import {
  describeSchemaError,
  type SessionEntry,
  type SessionHeader,
  SessionHeaderSchema,
  validateEntry,
} from "../src/schema.ts";
import type { FileStat, JsonlFolderFs } from "./jsonl_folder.ts";

/**
 * The first record of a file, as read by {@link readHeadLine}.
 *
 * @example
 * ```ts
 * import { type HeadLine } from "./jsonl_scan.ts";
 * const head: HeadLine = { text: '{"type":"session"}', line: 1, end: 19, terminated: true };
 * ```
 */
export interface HeadLine {
  text: string;
  /** 1-based physical line number (blank lines before the header are allowed). */
  line: number;
  /** Byte offset just after the header line's `\n` (or the file size when unterminated). */
  end: number;
  terminated: boolean;
}

// Headers are usually well under 1 KiB; long ones (deep cwd, markers) read on in bigger steps.
const HEAD_FIRST_CHUNK = 4 * 1024;
const HEAD_CHUNK = 64 * 1024;
const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * Read up to the first non-blank line, 4 KiB first, then in 64 KiB steps (headers can be long: cwd paths,
 * workflow markers). Resolves `undefined` for a file with no non-blank line.
 *
 * @example
 * ```ts
 * import { readHeadLine } from "./jsonl_scan.ts";
 * import { NodeJsonlFolderFs } from "./jsonl_fs.ts";
 * const fs = new NodeJsonlFolderFs("/tmp/sessions");
 * const head = await readHeadLine(fs, "a.jsonl", (await fs.stat("a.jsonl"))!.size);
 * ```
 */
export async function readHeadLine(
  fs: JsonlFolderFs,
  path: string,
  size: number,
): Promise<HeadLine | undefined> {
  let buffer = new Uint8Array(0);
  let bufferStart = 0; // file offset of buffer[0]
  let lineStart = 0;
  let line = 1;
  while (lineStart < size) {
    let newline = buffer.indexOf(10, lineStart - bufferStart);
    while (newline === -1 && bufferStart + buffer.length < size) {
      const readFrom = bufferStart + buffer.length;
      const step = readFrom === 0 ? HEAD_FIRST_CHUNK : HEAD_CHUNK;
      const more = await fs.read(path, readFrom, readFrom + step);
      if (more.length === 0) break;
      const kept = buffer.subarray(lineStart - bufferStart);
      const joined = new Uint8Array(kept.length + more.length);
      joined.set(kept);
      joined.set(more, kept.length);
      buffer = joined;
      bufferStart = lineStart;
      newline = buffer.indexOf(10, kept.length);
    }
    const from = lineStart - bufferStart;
    const to = newline === -1 ? buffer.length : newline;
    let text: string;
    try {
      text = decoder.decode(buffer.subarray(from, to));
    } catch {
      throw new SessionFormatError("line is not valid UTF-8", {
        line,
        byteOffset: lineStart,
        source: fs.describe(path),
      });
    }
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.endsWith("\r")) text = text.slice(0, -1);
    const end = bufferStart + to + (newline === -1 ? 0 : 1);
    if (text.trim() !== "") return { text, line, end, terminated: newline !== -1 };
    if (newline === -1) return undefined;
    lineStart = end;
    line++;
  }
  return undefined;
}

/**
 * A parsed header line.
 *
 * @example
 * ```ts
 * import { type HeaderInfo } from "./jsonl_scan.ts";
 * declare const info: HeaderInfo;
 * if (info.needsUpgrade) console.log(`format ${info.version}`);
 * ```
 */
export interface HeaderInfo {
  /** The header upgraded to format 4 (what listings show). */
  header: SessionHeader;
  /** The session id (unchanged by upgrades). */
  id: string;
  /** The version as written (1-4). */
  version: number;
  /** Older format or early-v4 field names: load upgrades, writers must `replace` first. */
  needsUpgrade: boolean;
  /** Byte offset just after the header line. */
  end: number;
  line: number;
}

/**
 * Parse and check a header line; throws {@link SessionFormatError} when unloadable.
 *
 * @example
 * ```ts
 * import { parseHeaderLine } from "./jsonl_scan.ts";
 * const text = '{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}';
 * parseHeaderLine({ text, line: 1, end: text.length + 1, terminated: true }, "a.jsonl").needsUpgrade; // true
 * ```
 */
export function parseHeaderLine(head: HeadLine | undefined, source: string): HeaderInfo {
  if (!head) throw new SessionFormatError("empty source: no session header", { source });
  const where = { line: head.line, byteOffset: 0, source };
  let raw: unknown;
  try {
    raw = JSON.parse(head.text);
  } catch (error) {
    throw new SessionFormatError(
      head.terminated
        ? `invalid JSON: ${(error as Error).message}`
        : "torn final record: the last line is incomplete JSON without a newline (the write was cut off); repair the file to drop it",
      where,
    );
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw new SessionFormatError("record is not a JSON object", where);
  }
  const record = raw as Record<string, unknown>;
  if (record.type !== "session") {
    throw new SessionFormatError('first record is not a session header (type "session")', where);
  }
  const version = headerVersion(record, head.line, source);
  const upgrade = upgradeRecords(record, [], source);
  const parsed = SessionHeaderSchema.safeParse(upgrade.header);
  if (!parsed.success) {
    throw new SessionFormatError(
      `invalid session header: ${describeSchemaError(parsed.error)}`,
      where,
    );
  }
  return {
    header: upgrade.header as SessionHeader,
    id: record.id as string,
    version,
    needsUpgrade: upgrade.upgraded,
    end: head.end,
    line: head.line,
  };
}

/**
 * Read and parse the header of a file.
 *
 * @example
 * ```ts
 * import { readHeader } from "./jsonl_scan.ts";
 * import { NodeJsonlFolderFs } from "./jsonl_fs.ts";
 * const fs = new NodeJsonlFolderFs("/tmp/sessions");
 * const { id } = await readHeader(fs, "a.jsonl", (await fs.stat("a.jsonl"))!.size);
 * ```
 */
export async function readHeader(
  fs: JsonlFolderFs,
  path: string,
  size: number,
): Promise<HeaderInfo> {
  return parseHeaderLine(await readHeadLine(fs, path, size), fs.describe(path));
}

// ---------------------------------------------------------------- listing fold

/**
 * What the listing cache keeps per file.
 *
 * @example
 * ```ts
 * import { type CachedFile } from "./jsonl_scan.ts";
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
 * import { JsonlListingCache } from "./jsonl_scan.ts";
 * const cache = new JsonlListingCache();
 * cache.size; // 0
 * ```
 */
export class JsonlListingCache {
  readonly #files = new Map<string, CachedFile>();
  get size(): number {
    return this.#files.size;
  }
  get(key: string): CachedFile | undefined {
    return this.#files.get(key);
  }
  set(key: string, value: CachedFile): void {
    this.#files.set(key, value);
  }
  delete(key: string): void {
    this.#files.delete(key);
  }
}

const PROBE_BYTES = 64;

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
        record.terminated
          ? `invalid JSON: ${(error as Error).message}`
          : "torn final record: the last line is incomplete JSON without a newline (the write was cut off); repair the file to drop it",
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
 * import { type ListingNeed } from "./jsonl_scan.ts";
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
 * import { summarizeFile } from "./jsonl_scan.ts";
 * import { NodeJsonlFolderFs } from "./jsonl_fs.ts";
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
    if (cached?.state && cached.info && cached.probe && stat.size > cached.size) {
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
  const probe = cached.probe!;
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
  const state = structuredClone(cached.state!);
  const newProbe = await foldFrom(fs, path, cached.size, state, probe, 0, signal);
  return { ...stat, info, headText: cached.headText, state, probe: newProbe };
}

/**
 * A cache entry for a file this store just wrote, so the next listing reads nothing.
 *
 * @example
 * ```ts
 * import { cachedAfterWrite } from "./jsonl_scan.ts";
 * import { emptyListingState } from "../src/listing.ts";
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
 * import { extendCached } from "./jsonl_scan.ts";
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
  const state = structuredClone(cached.state!);
  for (const entry of entries) applyEntryToListing(state, entry);
  return { ...cached, ...stat, state, probe: keepTail(cached.probe ?? new Uint8Array(0), written) };
}
