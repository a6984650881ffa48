/**
 * The two calls a listing makes per file and per folder, `stat` and `readdir`, through the
 * runtime's own API when it is Deno. Deno's `node:fs` builds a full Node `Stats` object
 * (and sorts `Dirent`s) on top of its native call, which made `stat` about three times as
 * dear and was a third of a cold listing of 10,000 sessions (issue 12); Node keeps
 * `node:fs`. Both report whole-millisecond mtimes, so cache keys agree across runtimes.
 *
 * @module
 */
import { readdirSync, statSync } from "node:fs";
import type { FileStat } from "./_folder.ts";

/** The part of the `Deno` namespace used here (typed locally: the npm build has no Deno). */
interface DenoFsApi {
  statSync(path: string): { isFile: boolean; size: number; mtime: Date | null };
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
