/**
 * The calls made per listed file, per folder and per append (`stat`, `readdir`, the append
 * itself) through the runtime's own API when it is Deno. Deno's `node:fs` builds a full Node
 * `Stats` object (and sorts `Dirent`s) on top of its native call, which made `stat` about
 * three times as dear: a third of a cold listing of 10,000 sessions and of a relaxed append
 * (issue 12). Node keeps `node:fs`. Modification times are whole milliseconds everywhere:
 * Node reports fractions, Deno does not, and the persisted listing cache is shared by both;
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
  try {
    if (deno) {
      const info = deno.statSync(abs);
      return info.isFile ? { size: info.size, mtimeMs: info.mtime?.getTime() ?? 0 } : undefined;
    }
    const info = statSync(abs, { throwIfNoEntry: false });
    return info?.isFile() ? { size: info.size, mtimeMs: Math.floor(info.mtimeMs) } : undefined;
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
  if (deno) {
    const info = deno.lstatSync(abs);
    // Deno reports no inode on Windows: node:fs does (and made the lock's, so it agrees).
    if (info.ino !== null && info.mtime) return { ino: info.ino, mtimeMs: info.mtime.getTime() };
  }
  const info = lstatSync(abs);
  return { ino: info.ino, mtimeMs: Math.floor(info.mtimeMs) };
}

/**
 * Write `data` at offset `expectedSize` of the existing file `abs` (never created), then
 * `fdatasync` unless relaxed; resolves its new size and mtime. Throws `changed(size)`,
 * writing nothing, when the file's size is not `expectedSize`.
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
): FileStat {
  if (deno) {
    const file = deno.openSync(abs, { read: true, write: true });
    try {
      const { size } = file.statSync();
      if (size !== expectedSize) throw changed(size);
      file.seekSync(expectedSize, 0);
      for (let written = 0; written < data.length;) {
        written += file.writeSync(data.subarray(written));
      }
      if (durable) file.syncDataSync();
      const after = file.statSync();
      return { size: after.size, mtimeMs: after.mtime?.getTime() ?? 0 };
    } finally {
      file.close();
    }
  }
  // "r+" never creates: appending to a file deleted meanwhile fails instead.
  const fd = openSync(abs, "r+");
  try {
    const { size } = fstatSync(fd);
    if (size !== expectedSize) throw changed(size);
    for (let written = 0; written < data.length;) {
      written += writeSync(fd, data, written, data.length - written, expectedSize + written);
    }
    if (durable) fdatasyncSync(fd);
    const after = fstatSync(fd);
    return { size: after.size, mtimeMs: Math.floor(after.mtimeMs) };
  } finally {
    closeSync(fd);
  }
}
