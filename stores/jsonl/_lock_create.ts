/**
 * Creating a lock file with its owner already in it (`_lockfile.ts`): written under a
 * temporary name, then hard-linked into place, so no crash leaves a lock nobody can judge;
 * on Deno with its OS lock held from before the link (`_os_lock.ts`).
 *
 * @module
 */
import { closeSync, fstatSync, linkSync, openSync, unlinkSync, writeSync } from "node:fs";
import process from "node:process";
import { createOsLocked, OS_LOCKS } from "./_os_lock.ts";

/** Lock and temp files are private to the user whatever the umask. */
export const FILE_MODE = 0o600;

/** Who holds a lock, as its file records it. */
export interface Owner {
  pid: number;
  host: string;
  token: string;
  acquiredAt: string;
  /** The owner holds an OS lock on the lock file while it lives (`_os_lock.ts`). */
  osLock?: boolean;
}

function code(error: unknown): string | undefined {
  return (error as { code?: string } | null)?.code;
}

/**
 * Create the lock `path` already holding `text`: its inode (0 where the platform reports
 * none), or undefined when it exists. The owner is written to a temp file first and the
 * temp hard-linked to the lock path (`link` refuses an existing path, as `O_EXCL` does), so
 * the lock never exists without its owner: a writer killed at any point leaves either no
 * lock or a complete one, whose owner can be judged (stress finding 1), at worst a temp file
 * named like the store's others (`<name>.<pid>.<8 hex>.tmp`), collected with them. Where
 * the file system has no hard links, the lock is created and filled at once instead (an
 * owner-less moment then is judged by its age, `OWNERLESS_STALE_MS` in `_lockfile.ts`).
 * Synchronous system calls: this runs around every append, and a promise-based call costs
 * a thread-pool round trip; none of them waits for the disk.
 */
export function createLock(path: string, owner: Owner): Created | undefined {
  const temp = `${path}.${process.pid}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  const created = createOwned(temp, owner)!;
  let linked = false;
  try {
    linkSync(temp, path);
    linked = true;
    return created; // a link leaves the inode's mtime as it was
  } catch (error) {
    if (code(error) === "EEXIST") return undefined;
    if (!NO_HARD_LINKS.includes(code(error) ?? "")) throw error;
    return createOwned(path, owner);
  } finally {
    if (!linked) created.close?.();
    try {
      unlinkSync(temp);
    } catch {
      // already gone: a leftover sweep of another process took it; the link stands alone
    }
  }
}

/**
 * Create `path` holding `owner`, with its OS lock held where the runtime has OS locks (the
 * record then says so); a file system that refuses OS locks gets the record without it.
 */
function createOwned(path: string, owner: Owner): Created | undefined {
  if (OS_LOCKS) {
    try {
      return createOsLocked(path, JSON.stringify({ ...owner, osLock: true }), FILE_MODE);
    } catch (error) {
      if (code(error) === "ENOENT") throw error; // the folder is missing: the caller makes it
      try {
        unlinkSync(path); // made but not lockable: written plainly instead
      } catch {
        // never made (no permission): writing it plainly fails the same way
      }
    }
  }
  return writeNew(path, JSON.stringify(owner));
}

/** Errors of file systems without hard links (some network and FUSE mounts). */
const NO_HARD_LINKS = ["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS"];

/** A lock file as created: its inode (0 where none is reported) and whole-ms mtime. */
export interface Created {
  ino: number;
  mtimeMs: number;
  /** Releases the OS lock held on it, when one is. */
  close?: () => void;
}

/** Create `path` exclusively holding `text`: its identity, or undefined when it exists. */
function writeNew(path: string, text: string): Created | undefined {
  let fd: number;
  try {
    fd = openSync(path, "wx", FILE_MODE);
  } catch (error) {
    if (code(error) === "EEXIST") return undefined;
    throw error;
  }
  try {
    writeSync(fd, text);
    const { ino, mtimeMs } = fstatSync(fd);
    return { ino, mtimeMs: Math.floor(mtimeMs) };
  } catch (error) {
    unlinkSync(path); // not filled in: nothing half-written left behind
    throw error;
  } finally {
    closeSync(fd);
  }
}
