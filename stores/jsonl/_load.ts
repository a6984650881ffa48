/**
 * Loading one session file whole: parse and check every line, and when the last record is
 * torn (a writer in another process may be mid-append) read once more under that writer's
 * lock before believing it.
 *
 * @module
 */
import { SessionNotFoundError } from "../../src/errors.ts";
import { parseSessionJsonl } from "../../src/jsonl.ts";
import { type LoadedSession, storageOperation } from "../../src/store.ts";
import type { JsonlFolderFs } from "./_folder.ts";

/**
 * How a load reaches the store around it.
 *
 * @example
 * ```ts
 * import type { LoadHow } from "./_load.ts";
 * const how: LoadHow = { retainRaw: false, lockOptions: { timeoutMs: 10_000 }, forget() {} };
 * ```
 */
export interface LoadHow {
  /** Keep each line's text (a byte-identical export). */
  retainRaw: boolean;
  /** The store's lock options, for the second read under a writer's lock. */
  lockOptions: { timeoutMs: number };
  /** Drop what the store knows about a file that holds another session. */
  forget(path: string): void;
}

/**
 * The session in the file at `path`, which should hold `sessionId`.
 *
 * @example
 * ```ts
 * import { loadSessionFile } from "./_load.ts";
 * import { NodeJsonlFolderFs } from "@mu/sessions/stores/jsonl";
 * const fs = new NodeJsonlFolderFs("/tmp/sessions");
 * const how = { retainRaw: false, lockOptions: { timeoutMs: 10_000 }, forget() {} };
 * await loadSessionFile(fs, "a.jsonl", "s1", how).catch(() => undefined);
 * ```
 */
export async function loadSessionFile(
  fs: JsonlFolderFs,
  path: string,
  sessionId: string,
  how: LoadHow,
): Promise<LoadedSession> {
  try {
    return await parseFile(fs, path, sessionId, how);
  } catch (error) {
    if (!isTornRecord(error)) throw error;
    // A writer in another process may be mid-append: read once more under its lock.
    return await underWritersLock(fs, path, how, error, () => parseFile(fs, path, sessionId, how));
  }
}

/**
 * `read` again under the lock of the file's writers, after `torn` (a torn final record):
 * a writer mid-append holds it until its line is whole. When the lock cannot be taken,
 * `torn` stands.
 *
 * @example
 * ```ts
 * import { underWritersLock } from "./_load.ts";
 * import type { JsonlFolderFs } from "./_folder.ts";
 * declare const fs: JsonlFolderFs;
 * const how = { retainRaw: false, lockOptions: { timeoutMs: 10_000 }, forget() {} };
 * await underWritersLock(fs, "a.jsonl", how, new Error("torn"), async () => "read again");
 * ```
 */
export async function underWritersLock<T>(
  fs: JsonlFolderFs,
  path: string,
  how: LoadHow,
  torn: unknown,
  read: () => Promise<T>,
): Promise<T> {
  let release;
  try {
    release = await fs.lock(path, how.lockOptions);
  } catch {
    throw torn;
  }
  try {
    return await read();
  } finally {
    await release();
  }
}

async function parseFile(
  fs: JsonlFolderFs,
  path: string,
  sessionId: string,
  how: LoadHow,
): Promise<LoadedSession> {
  const source = fs.describe(path);
  const parsed = await storageOperation(
    "load",
    () => parseSessionJsonl(fs.readStream(path), { source, retainRaw: how.retainRaw }),
  );
  if (parsed.header.id !== sessionId) {
    how.forget(path);
    throw new SessionNotFoundError(sessionId);
  }
  return { ...parsed, path: fs.describe(path) };
}

/** Whether `error` is the parser's "torn final record" (a cut-off or unfinished append). */
export function isTornRecord(error: unknown): boolean {
  return error instanceof Error && error.name === "SessionFormatError" &&
    String((error as { reason?: string }).reason).startsWith("torn final record");
}
