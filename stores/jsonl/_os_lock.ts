/**
 * The lock file's liveness signal that needs no permission beyond reading and writing the
 * folder: on Deno, the owner holds an OS lock (`flock`, `Deno.FsFile.tryLockSync`) on the
 * lock file itself for as long as it holds the lock, and the kernel drops it when the owner
 * dies, however it dies. A waiter that can take that OS lock knows the owner is gone, without
 * asking about its pid (`--allow-run`) or host name (`--allow-sys`).
 *
 * Node has no OS lock in its standard library, so a Node owner does not claim one, and its
 * lock is judged by its pid as before; an owner's record says whether it holds one
 * (`osLock`), so a lock file without one is never taken for abandoned. Only Deno judges by it
 * (a Node waiter asks the pid, which Node may always do).
 *
 * @module
 */

type DenoFile = {
  tryLockSync(exclusive?: boolean): boolean;
  writeSync(bytes: Uint8Array): number;
  statSync(): { ino: number | null; mtime: Date | null };
  close(): void;
};
type DenoApi = {
  openSync(
    path: string,
    options: { read?: boolean; write?: boolean; createNew?: boolean; mode?: number },
  ): DenoFile;
};

const deno = (globalThis as { Deno?: DenoApi }).Deno;

/**
 * Whether this runtime can hold and test OS locks on lock files.
 *
 * @example
 * ```ts
 * import { OS_LOCKS } from "./_os_lock.ts";
 * OS_LOCKS; // true on Deno
 * ```
 */
export const OS_LOCKS: boolean = deno !== undefined &&
  typeof (deno as { FsFile?: { prototype?: { tryLockSync?: unknown } } } & DenoApi).FsFile
      ?.prototype?.tryLockSync === "function";

/** A file created holding `text`, its OS lock held until {@link OsLockedFile.close}. */
export interface OsLockedFile {
  ino: number;
  mtimeMs: number;
  /** Release the OS lock (closing the file releases it). */
  close(): void;
}

/**
 * Create `path` exclusively with mode `mode`, take its exclusive OS lock, then write `text`:
 * `undefined` when the file exists. Throws like `open` otherwise (or when the OS lock cannot
 * be taken on a file just made, then removing nothing: the caller removes its temp file).
 *
 * @example
 * ```ts
 * import { createOsLocked } from "./_os_lock.ts";
 * const file = createOsLocked("/tmp/x.lock.tmp", '{"pid":1}', 0o600);
 * file?.close();
 * ```
 */
export function createOsLocked(path: string, text: string, mode: number): OsLockedFile | undefined {
  let file: DenoFile;
  try {
    file = deno!.openSync(path, { read: true, write: true, createNew: true, mode });
  } catch (error) {
    const { code, name } = error as { code?: string; name?: string };
    if (code === "EEXIST" || name === "AlreadyExists") return undefined;
    throw error;
  }
  try {
    if (!file.tryLockSync(true)) throw new Error(`cannot lock ${path}`);
    const bytes = new TextEncoder().encode(text);
    for (let at = 0; at < bytes.length;) at += file.writeSync(bytes.subarray(at));
    const { ino, mtime } = file.statSync();
    return { ino: ino ?? 0, mtimeMs: Math.floor(mtime?.getTime() ?? 0), close: () => file.close() };
  } catch (error) {
    file.close();
    throw error;
  }
}

/**
 * Whether the lock file at `path` is free of any OS lock: its owner, who held one, is gone.
 * `false` when it is held, or when that cannot be told (gone, unreadable, no OS locks here).
 *
 * @example
 * ```ts
 * import { osLockAbandoned } from "./_os_lock.ts";
 * osLockAbandoned("/tmp/s.jsonl.lock"); // false: no such lock
 * ```
 */
export function osLockAbandoned(path: string): boolean {
  if (!OS_LOCKS) return false;
  let file: DenoFile;
  try {
    file = deno!.openSync(path, { read: true });
  } catch {
    return false;
  }
  try {
    // Shared: taken only when no one holds the exclusive lock; closing releases it at once.
    return file.tryLockSync(false);
  } catch {
    return false;
  } finally {
    file.close();
  }
}
