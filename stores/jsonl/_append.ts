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
import { appendAfterTail } from "./_tail.ts";

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
  context.known.set(path, { stat: after, info, endsWithNewline: true });
  const key = fs.describe(path);
  const cached = context.cache.get(key);
  if (
    cached?.state && !newlineFirst && cached.size === stat.size && cached.mtimeMs === stat.mtimeMs
  ) {
    context.cache.set(key, extendCached(cached, after, entries, payload));
  }
  return true;
}
