/**
 * The calls made per listed file, per folder and per append (`stat`, `readdir`, the append
 * itself) through the runtime's own API when it is Deno. Deno's `node:fs` builds a full Node
 * `Stats` object (and sorts `Dirent`s) on top of its native call, which made `stat` several
 * times as dear, a large part of a cold listing and of a relaxed append (the bench's listing
 * and append rows). Node keeps `node:fs`. Modification times are whole milliseconds
 * everywhere: Node reports fractions, Deno does not, and the persisted listing cache is shared by both;
 * equal keys need equal precision.
 *
 * @module
 */
import {
  closeSync,
  fdatasyncSync,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  statSync,
  writeSync,
} from "node:fs";
import type { FileStat } from "./_folder.ts";

interface DenoInfo {
  isFile: boolean;
  size: number;
  mtime: Date | null;
  ino: number | null;
}

/** The part of the `Deno` namespace used here (typed locally: the npm build has no Deno). */
interface DenoFsApi {
  statSync(path: string): DenoInfo;
  lstatSync(path: string): DenoInfo;
  openSync(path: string, options: { read: true; write: true }): {
    statSync(): DenoInfo;
    seekSync(offset: number, whence: 0): number;
    writeSync(data: Uint8Array): number;
    syncDataSync(): void;
    close(): void;
  };
  readDirSync(path: string): Iterable<{
    name: string;
    isFile: boolean;
    isDirectory: boolean;
    isSymlink: boolean;
  }>;
}

const deno = (globalThis as { Deno?: DenoFsApi }).Deno;

/**
 * How many of each system call this module has made (`stat`: a path followed, `lstat`: a
 * path itself, `fstat`: an open file). Tests read these to pin down what an append costs,
 * which the folder interface alone cannot show; a counter is all it costs.
 *
 * @example
 * ```ts
 * import { systemCalls } from "./_native.ts";
 * const opensBefore = systemCalls.open;
 * ```
 */
export const systemCalls = {
  stat: 0,
  lstat: 0,
  fstat: 0,
  open: 0,
  close: 0,
  seek: 0,
  write: 0,
  fdatasync: 0,
};

function code(error: unknown): string | undefined {
  return (error as { code?: string } | null)?.code;
}

/**
 * Size and whole-ms mtime of a regular file (links followed), or undefined when there is
 * none (missing, a directory, a path through a non-directory).
 *
 * @example
 * ```ts
 * import { statPath } from "./_native.ts";
 * statPath("/tmp/sessions/a.jsonl"); // { size, mtimeMs } or undefined
 * ```
 */
export function statPath(abs: string): FileStat | undefined {
  const info = statInode(abs);
  return info && { size: info.size, mtimeMs: info.mtimeMs };
}

/**
 * {@link statPath} with the file's inode (0 where the platform reports none): which file
 * the path names now, for a file kept open across appends (`_kept.ts`).
 *
 * @example
 * ```ts
 * import { statInode } from "./_native.ts";
 * statInode("/tmp/sessions/a.jsonl"); // { size, mtimeMs, ino } or undefined
 * ```
 */
export function statInode(abs: string): (FileStat & { ino: number }) | undefined {
  systemCalls.stat++;
  try {
    if (deno) {
      const info = deno.statSync(abs);
      if (!info.isFile) return undefined;
      return { size: info.size, mtimeMs: info.mtime?.getTime() ?? 0, ino: info.ino ?? 0 };
    }
    const info = statSync(abs, { throwIfNoEntry: false });
    if (!info?.isFile()) return undefined;
    return { size: info.size, mtimeMs: Math.floor(info.mtimeMs), ino: info.ino };
  } catch (error) {
    if (code(error) === "ENOENT" || code(error) === "ENOTDIR") return undefined;
    throw error;
  }
}

/**
 * One directory entry with its type as `readdir` reports it (`link`: a symbolic link, to
 * be followed by the caller).
 *
 * @example
 * ```ts
 * import type { DirEntry } from "./_native.ts";
 * const entry: DirEntry = { name: "a.jsonl", type: "file" };
 * ```
 */
export interface DirEntry {
  name: string;
  type: "file" | "directory" | "link" | "other";
}

/**
 * The entries of a directory, unsorted (throws like `readdir`: ENOENT, ENOTDIR, ...).
 *
 * @example
 * ```ts
 * import { readDirectory } from "./_native.ts";
 * readDirectory("/tmp").length;
 * ```
 */
export function readDirectory(abs: string): DirEntry[] {
  const entries: DirEntry[] = [];
  if (deno) {
    for (const item of deno.readDirSync(abs)) {
      const type = item.isFile
        ? "file"
        : item.isDirectory
        ? "directory"
        : item.isSymlink
        ? "link"
        : "other";
      entries.push({ name: item.name, type });
    }
    return entries;
  }
  for (const item of readdirSync(abs, { withFileTypes: true })) {
    const type = item.isFile()
      ? "file"
      : item.isDirectory()
      ? "directory"
      : item.isSymbolicLink()
      ? "link"
      : "other";
    entries.push({ name: item.name, type });
  }
  return entries;
}

/**
 * The inode and whole-ms mtime of `abs` itself (a link is not followed); throws when it is
 * gone. A kept lock file is recognised by these (`_lockfile.ts`).
 *
 * @example
 * ```ts
 * import { identity } from "./_native.ts";
 * identity("/tmp"); // { ino, mtimeMs }
 * ```
 */
export function identity(abs: string): { ino: number; mtimeMs: number } {
  systemCalls.lstat++;
  if (deno) {
    const info = deno.lstatSync(abs);
    // Deno reports no inode on Windows: node:fs does (and made the lock's, so it agrees).
    if (info.ino !== null && info.mtime) return { ino: info.ino, mtimeMs: info.mtime.getTime() };
  }
  const info = lstatSync(abs);
  return { ino: info.ino, mtimeMs: Math.floor(info.mtimeMs) };
}

/**
 * A session file open for appends: opened once, then written at a given offset, flushed
 * when durable, and asked for its new size and mtime; kept open across a burst of appends
 * while the file's lock is held (`_kept.ts`), or closed after one append (`appendAt`).
 *
 * @example
 * ```ts
 * import { openForAppend } from "./_native.ts";
 * const file = openForAppend("/tmp/a.jsonl");
 * try {
 *   file.writeAt(new TextEncoder().encode("{}\n"), file.size, false);
 * } finally {
 *   file.close();
 * }
 * ```
 */
export interface AppendFile {
  /** The inode opened (0 where the platform reports none). */
  readonly ino: number;
  /** The size when opened. */
  readonly size: number;
  /** Write `data` at `offset`, `fdatasync` when durable; the new size and whole-ms mtime. */
  writeAt(data: Uint8Array, offset: number, durable: boolean): FileStat;
  close(): void;
}

/**
 * Open the existing file `abs` (never created) for {@link AppendFile.writeAt}: an open and
 * one `fstat` (its inode and size).
 *
 * @example
 * ```ts
 * import { openForAppend } from "./_native.ts";
 * openForAppend("/tmp/a.jsonl").close();
 * ```
 */
export function openForAppend(abs: string): AppendFile {
  const calls = systemCalls;
  calls.open++;
  calls.fstat++;
  if (deno) {
    const file = deno.openSync(abs, { read: true, write: true });
    let opened;
    try {
      opened = file.statSync();
    } catch (error) {
      calls.close++;
      file.close();
      throw error;
    }
    // The file position, tracked here: a write that follows our own needs no seek.
    let position = 0;
    return {
      ino: opened.ino ?? 0,
      size: opened.size,
      writeAt(data, offset, durable) {
        if (position !== offset) {
          calls.seek++;
          position = file.seekSync(offset, 0);
        }
        for (let written = 0; written < data.length;) {
          calls.write++;
          const n = file.writeSync(data.subarray(written));
          written += n;
          position += n;
        }
        if (durable) {
          calls.fdatasync++;
          file.syncDataSync();
        }
        calls.fstat++;
        const after = file.statSync();
        return { size: after.size, mtimeMs: after.mtime?.getTime() ?? 0 };
      },
      close() {
        calls.close++;
        file.close();
      },
    };
  }
  // "r+" never creates: appending to a file deleted meanwhile fails instead.
  const fd = openSync(abs, "r+");
  let opened;
  try {
    opened = fstatSync(fd);
  } catch (error) {
    calls.close++;
    closeSync(fd);
    throw error;
  }
  return {
    ino: opened.ino,
    size: opened.size,
    writeAt(data, offset, durable) {
      for (let written = 0; written < data.length;) {
        calls.write++;
        written += writeSync(fd, data, written, data.length - written, offset + written);
      }
      if (durable) {
        calls.fdatasync++;
        fdatasyncSync(fd);
      }
      calls.fstat++;
      const after = fstatSync(fd);
      return { size: after.size, mtimeMs: Math.floor(after.mtimeMs) };
    },
    close() {
      calls.close++;
      closeSync(fd);
    },
  };
}

/**
 * Write `data` at offset `expectedSize` of the existing file `abs` (never created), then
 * `fdatasync` unless relaxed; resolves its new size and mtime. Throws `changed(size)`,
 * writing nothing, when the file's size is not `expectedSize`. The file is closed after
 * the write unless `keep(file)` takes it (returns true; `_kept.ts`).
 *
 * @example
 * ```ts
 * import { appendAt } from "./_native.ts";
 * appendAt("/tmp/a.jsonl", new TextEncoder().encode("{}\n"), 0, true, () => new Error("changed"));
 * ```
 */
export function appendAt(
  abs: string,
  data: Uint8Array,
  expectedSize: number,
  durable: boolean,
  changed: (size: number) => Error,
  keep?: (file: AppendFile) => boolean,
): FileStat {
  const file = openForAppend(abs);
  let kept = false;
  try {
    if (file.size !== expectedSize) throw changed(file.size);
    const after = file.writeAt(data, expectedSize, durable);
    kept = keep?.(file) ?? false;
    return after;
  } finally {
    if (!kept) file.close();
  }
}
