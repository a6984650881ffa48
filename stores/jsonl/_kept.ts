/**
 * A session file kept open across a burst of appends, for as long as this process holds
 * (or has parked, `_park.ts`) the file's lock. Opening the file per append cost
 * an open, a `fstat` for its size, a seek (Deno) and a close around each write: with it
 * kept, an append is the store's `stat` of the path, the write, the `fdatasync` (durable
 * only) and one `fstat` for the new mtime.
 *
 * What an append checks does not change. The store still `stat`s the path before every
 * append and compares size and mtime with what it last wrote (a foreign writer is noticed
 * exactly as before); that `stat` also tells which inode the path names now, and the kept
 * file is written only when it is that inode. Anything else (the file replaced, renamed
 * over, removed, or no `stat` since the last write) falls back to opening the path, as an
 * append without a kept file does. The file is closed when the lock is removed or dropped,
 * so no descriptor outlives the lock that makes writing through it safe.
 *
 * @module
 */
import type { FileStat } from "./_folder.ts";
import type { AppendBurst } from "./_backend.ts";
import { type LockFileOptions, takeParkedLockFile } from "./_lockfile.ts";
import { closeKept, type HeldLock, heldNow } from "./_park.ts";
import { appendAt, type AppendFile, statInode, statPath } from "./_native.ts";

/** A file kept with its lock, and the inode the path had at its last `stat`. */
interface Kept extends AppendFile {
  /** Set by {@link statForAppend}, used up by the next append. */
  seenIno?: number;
}

/** The kept file of the lock held on `abs`'s lock path right now, and that lock. */
function keptOf(abs: string, lockPath = `${abs}.lock`): { held?: HeldLock; kept?: Kept } {
  const held = heldNow(lockPath);
  return { held, kept: held?.kept as Kept | undefined };
}

/**
 * Size and mtime of `abs` (as `statPath`); while a file is kept open for it, also notes
 * which inode the path names now, for the next {@link appendKept}.
 *
 * @example
 * ```ts
 * import { statForAppend } from "./_kept.ts";
 * statForAppend("/tmp/sessions/a.jsonl"); // { size, mtimeMs } or undefined
 * ```
 */
export function statForAppend(abs: string, lockPath?: string): FileStat | undefined {
  const { kept } = keptOf(abs, lockPath);
  if (!kept) return statPath(abs);
  const info = statInode(abs);
  kept.seenIno = info?.ino;
  return info && { size: info.size, mtimeMs: info.mtimeMs };
}

/**
 * Write `data` at offset `expectedSize` of `abs` (see `appendAt`), through the file kept
 * open with its lock when the path was just seen to name it; otherwise open the path (and,
 * under a held lock, keep it open for the next append). Throws `changed(size)`, writing
 * nothing, when a freshly opened file's size is not `expectedSize`.
 *
 * `lockPath` (default `<abs>.lock`) saves building it again within a burst.
 *
 * @example
 * ```ts
 * import { appendKept } from "./_kept.ts";
 * appendKept("/tmp/a.jsonl", new TextEncoder().encode("{}\n"), 0, true, () => new Error("changed"));
 * ```
 */
export function appendKept(
  abs: string,
  data: Uint8Array,
  expectedSize: number,
  durable: boolean,
  changed: (size: number) => Error,
  lockPath?: string,
): FileStat {
  const { held, kept } = keptOf(abs, lockPath);
  // No lock held here (a caller of the folder interface without one), or a platform that
  // reports no inodes (nothing to recognise the file by): one open per append.
  if (!held) return appendAt(abs, data, expectedSize, durable, changed);
  if (kept !== undefined && kept.ino !== 0 && kept.seenIno === kept.ino) {
    kept.seenIno = undefined; // the next append needs a fresh look at the path
    return kept.writeAt(data, expectedSize, durable);
  }
  closeKept(held);
  // Kept for the next append of the burst, when the platform names its inode.
  return appendAt(abs, data, expectedSize, durable, changed, (file) => {
    if (file.ino === 0) return false;
    held.kept = file;
    return true;
  });
}

/**
 * The synchronous calls of appends within a burst (`_backend.ts`) for a folder whose paths
 * `abs` resolves: the lock, the `stat` and the write of {@link statForAppend} and
 * {@link appendKept}. The last path's absolute and lock paths are remembered, as a burst
 * asks about one file again and again.
 *
 * @example
 * ```ts
 * import { keptBurst } from "./_kept.ts";
 * const burst = keptBurst((path) => `/tmp/sessions/${path}`, { timeoutMs: 1000, keep: true }, (path, size, expected) => new Error(`${path}: ${size}, not ${expected}`));
 * burst.stat("a.jsonl"); // undefined: no such file
 * ```
 */
export function keptBurst(
  abs: (path: string) => string,
  lockOptions: LockFileOptions,
  changed: (abs: string, size: number, expectedSize: number) => Error,
): AppendBurst {
  let last = { path: "", abs: "", lock: "" };
  const paths = (path: string) => {
    if (last.path !== path || path === "") {
      const full = abs(path);
      last = { path, abs: full, lock: `${full}.lock` };
    }
    return last;
  };
  return {
    takeParked: (path) => takeParkedLockFile(paths(path).lock, lockOptions),
    stat: (path) => {
      const { abs, lock } = paths(path);
      return statForAppend(abs, lock);
    },
    append: (path, data, expectedSize, durability) => {
      const { abs, lock } = paths(path);
      const durable = durability !== "relaxed";
      return appendKept(
        abs,
        data,
        expectedSize,
        durable,
        (size) => changed(abs, size, expectedSize),
        lock,
      );
    },
  };
}
