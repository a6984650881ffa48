/**
 * One append to a session file, under the caller's lock: confirm the file still holds the
 * session in format 4, append after a checked tail (`_tail.ts`), and keep the store's
 * knowledge of the file current so the next append and listing read nothing extra.
 *
 * @module
 */
import { SessionNotFoundError, SessionStorageError } from "../../src/errors.ts";
import { serializeEntries } from "../../src/jsonl.ts";
import type { SessionEntry } from "../../src/schema.ts";
import type { Durability, FileStat, JsonlFolderFs } from "./_folder.ts";
import { extendCached, type JsonlListingCache } from "./_cache.ts";
import { type HeaderInfo, readHeader } from "./_head_line.ts";
import { appendAfterTail, rollBackAppend } from "./_tail.ts";
import { asStorageError } from "../../src/_store_helpers.ts";
import { type AppendBurst, backendOf } from "./_backend.ts";
import type { KnownFiles } from "./_known.ts";

/**
 * What a store knows about a file it wrote or checked.
 *
 * @example
 * ```ts
 * import type { KnownFile } from "./_append.ts";
 * declare const known: KnownFile;
 * if (known.endsWithNewline) console.log("this store wrote the end of the file");
 * ```
 */
export interface KnownFile {
  stat: FileStat;
  info: HeaderInfo;
  /** True only after the store wrote the end of the file itself. */
  endsWithNewline: boolean;
}

/**
 * The store state an append reads and updates.
 *
 * @example
 * ```ts
 * import type { AppendContext } from "./_append.ts";
 * declare const context: AppendContext;
 * context.known.clear();
 * ```
 */
export interface AppendContext {
  fs: JsonlFolderFs;
  known: Map<string, KnownFile>;
  cache: JsonlListingCache;
  /** Drop everything known about a file that turned out to be something else. */
  forget(path: string): void;
  /** Whether appends wait for the disk (`fsync`). */
  durability: Durability;
  /**
   * The entries the file at `stat` does not hold yet (another process may have appended
   * some of these ids since the caller checked); a stored id with other content rejects.
   */
  unstored(
    path: string,
    sessionId: string,
    stat: FileStat,
    entries: readonly SessionEntry[],
  ): Promise<readonly SessionEntry[]>;
}

const encoder = new TextEncoder();
/** What an append within a burst encodes into: written before the call returns, never kept. */
const burstBytes = new Uint8Array(1 << 16);

/** `text` as UTF-8 in {@link burstBytes} (valid until the next call), or fresh when large. */
function encodeForBurst(text: string): Uint8Array {
  // At most 3 bytes per UTF-16 unit; a large entry gets its own array, not a kept one.
  if (text.length * 3 > burstBytes.length) return encoder.encode(text);
  return burstBytes.subarray(0, encoder.encodeInto(text, burstBytes).written);
}

/**
 * Append serialised `lines` for `entries` to `path` (lock held by the caller). Resolves
 * false, writing nothing, when `optimistic` (an unverified cached path) and the file is
 * gone or holds another session.
 *
 * @example
 * ```ts
 * import { appendEntries, type AppendContext } from "./_append.ts";
 * declare const context: AppendContext;
 * await appendEntries(context, "a.jsonl", "s1", [], "", false);
 * ```
 */
export async function appendEntries(
  context: AppendContext,
  path: string,
  sessionId: string,
  entries: readonly SessionEntry[],
  lines: string,
  optimistic: boolean,
): Promise<boolean> {
  const { fs } = context;
  const stat = await fs.stat(path);
  if (!stat) {
    if (optimistic) return false;
    throw new SessionNotFoundError(sessionId);
  }
  const known = context.known.get(path);
  const unchanged = known !== undefined && known.stat.size === stat.size &&
    known.stat.mtimeMs === stat.mtimeMs;
  const info = unchanged ? known.info : await readHeader(fs, path, stat.size);
  if (info.id !== sessionId) {
    context.forget(path);
    if (optimistic) return false;
    throw new SessionStorageError(
      `${fs.describe(path)} now holds session ${info.id}, not ${sessionId}; nothing was appended`,
    );
  }
  if (info.needsUpgrade) {
    throw new SessionStorageError(
      `${
        fs.describe(path)
      } is in session format ${info.version}; persist its upgrade with replace() before appending`,
    );
  }
  // Checked again under the lock: the caller's check ran before it was taken.
  const fresh = await context.unstored(path, sessionId, stat, entries);
  if (fresh.length === 0) return true; // all written meanwhile, as they are: a retry
  if (fresh.length < entries.length) [entries, lines] = [fresh, serializeEntries(fresh)];
  const { payload, newlineFirst, after } = await appendAfterTail(
    fs,
    path,
    stat.size,
    encoder.encode(lines),
    unchanged && known.endsWithNewline,
    context.durability,
  );
  recordAppend(context, path, stat, { stat: after, info, endsWithNewline: true }, entries, {
    payload,
    extendsListing: !newlineFirst,
  });
  return true;
}

/**
 * What the store knows after its own append to `path` (which had `before`): the file's
 * new state, and the listing cache extended by the appended entries when it was current
 * and the bytes written are exactly their lines (`extendsListing`).
 */
function recordAppend(
  context: AppendContext,
  path: string,
  before: FileStat,
  now: KnownFile,
  entries: readonly SessionEntry[],
  written: { payload: Uint8Array; extendsListing: boolean },
): void {
  context.known.set(path, now);
  const key = context.fs.describe(path);
  const cached = context.cache.get(key);
  if (
    cached?.state && written.extendsListing && cached.size === before.size &&
    cached.mtimeMs === before.mtimeMs
  ) {
    context.cache.set(key, extendCached(cached, now.stat, entries, written.payload));
  }
}

/**
 * The store state an append within a burst reads and updates besides {@link AppendContext}.
 *
 * @example
 * ```ts
 * import type { BurstContext } from "./_append.ts";
 * declare const context: BurstContext;
 * context.files.holdsNoneOf("a.jsonl", []);
 * ```
 */
export interface BurstContext extends AppendContext {
  files: KnownFiles;
  /** The backend's synchronous calls; none: no burst path. */
  burst?: AppendBurst;
}

/**
 * The append state of a store over `fs` that knows `files`.
 *
 * @example
 * ```ts
 * import { appendContext } from "./_append.ts";
 * import { KnownFiles } from "./_known.ts";
 * import { JsonlListingCache } from "./_cache.ts";
 * import { NodeJsonlFolderFs } from "@mu/sessions/stores/jsonl";
 * const fs = new NodeJsonlFolderFs("/tmp/sessions");
 * const context = appendContext(fs, new KnownFiles(fs, new JsonlListingCache()), "relaxed");
 * ```
 */
export function appendContext(
  fs: JsonlFolderFs,
  files: KnownFiles,
  durability: Durability,
): BurstContext {
  return {
    fs,
    known: files.known,
    cache: files.cache,
    forget: (path) => files.forget(path),
    durability,
    unstored: files.unstoredUnderLock.bind(files),
    files,
    burst: backendOf(fs).burst,
  };
}

/**
 * An append within a burst, done synchronously: when this store wrote the end of the
 * session's file last (its lines are known to end in `\n`, none of `entries`' ids is in it)
 * and this process kept the file's lock from that write, nothing in this process waits for
 * it, and the file's `stat` still says what that write left. Then it makes exactly the checks and calls
 * of {@link appendEntries} (the kept lock is still ours, the path names the same unchanged
 * file, the write, the new stat), with no promise in between: in a burst of awaited appends,
 * the promises around each call cost more than the calls. Returns false, having written
 * nothing, when any of that does not hold (the caller appends the general way); a rejected
 * promise when the write failed (the file is cut back first, as there).
 *
 * @example
 * ```ts
 * import { appendInBurst, type BurstContext } from "./_append.ts";
 * declare const context: BurstContext;
 * const done = appendInBurst(context, "s1", []); // false: nothing to append
 * ```
 */
export function appendInBurst(
  context: BurstContext,
  sessionId: string,
  entries: readonly SessionEntry[],
): boolean | Promise<never> {
  const { burst, files } = context;
  const path = burst && entries.length > 0 ? files.locator.cached(sessionId) : undefined;
  const known = path === undefined ? undefined : context.known.get(path);
  if (
    !known?.endsWithNewline || known.info.id !== sessionId || known.info.needsUpgrade ||
    !files.holdsNoneOf(path!, entries)
  ) {
    return false;
  }
  // Serialised before the lock, as appends are: an entry that cannot be stored throws here.
  const payload = encodeForBurst(serializeEntries(entries));
  const release = burst!.takeParked(path!);
  if (!release) return false;
  let size: number | undefined;
  try {
    const stat = burst!.stat(path!);
    if (!stat || stat.size !== known.stat.size || stat.mtimeMs !== known.stat.mtimeMs) {
      release();
      return false;
    }
    size = stat.size;
    const after = burst!.append(path!, payload, size, context.durability);
    const now = { stat: after, info: known.info, endsWithNewline: true };
    recordAppend(context, path!, stat, now, entries, { payload, extendsListing: true });
    release();
    files.appended(path!, entries, payload.length);
    return true;
  } catch (error) {
    return failedInBurst(context, path!, size, error, release);
  }
}

/** A failed append within a burst: cut back (if it got to write), give up the lock, reject. */
async function failedInBurst(
  context: BurstContext,
  path: string,
  size: number | undefined,
  error: unknown,
  release: () => void,
): Promise<never> {
  try {
    if (size !== undefined) await rollBackAppend(context.fs, path, size, error);
    throw error;
  } catch (failure) {
    throw asStorageError("append", failure);
  } finally {
    release();
    context.fs.idle?.(); // as after any failed append: its writer may well not be back soon
  }
}
