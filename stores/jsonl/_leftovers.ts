/**
 * Crash leftovers in a session folder on the local file system: temp copies of atomic
 * rewrites and lock owners (`<name>.<pid>.<8 hex>.tmp`), lock files (`*.lock`, including
 * the `.<hash>.create.lock` of creates) and break guards (`*.lock.break`). A SIGKILL leaves
 * them behind; nothing counts them as sessions, but they pile up. They are removed only when
 * provably dead:
 *
 * - a temp file when the pid in its name is not running here and it has not been written
 *   for {@link TEMP_STALE_MS} (or for a day: the pid may have been reused);
 * - a lock file by the lock's own rule (owner gone, not refreshed, or owner-less for a
 *   second), through the same guarded break a waiting writer uses;
 * - a break guard older than 5 s (as the lock code already treats one).
 *
 * @module
 */
import { readdir, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import { breakStale, isStale, processAlive, readHolder } from "./_lockfile.ts";

/** A temp file whose writer is gone is left this long before it counts as dead. */
export const TEMP_STALE_MS = 60_000;
/** A temp file this old is removed even if its pid runs (it may have been reused). */
export const DAY_MS = 86_400_000;
const GUARD_STALE_MS = 5_000;
/** A temp file's name: `<name>.<writer pid>.<8 hex>.tmp`. */
export const TEMP_NAME = /\.(\d+)\.[0-9a-f]{8}\.tmp$/;

/**
 * Whether a directory entry's name is one a crash may leave (a temp file, lock or break
 * guard), whatever its state: a folder without such names has nothing to sweep.
 *
 * @example
 * ```ts
 * import { mayBeLeftover } from "./_leftovers.ts";
 * mayBeLeftover("a.jsonl.lock"); // true
 * mayBeLeftover("a.jsonl"); // false
 * ```
 */
export function mayBeLeftover(name: string): boolean {
  return TEMP_NAME.test(name) || name.endsWith(".lock") || name.endsWith(".lock.break");
}

/**
 * Remove the provably dead leftovers directly in `dir`; resolves the names removed. Errors
 * on single files are ignored (another process may be cleaning the same folder).
 *
 * @example
 * ```ts
 * import { sweepLeftovers } from "./_leftovers.ts";
 * const removed = await sweepLeftovers("/tmp/sessions", 30_000);
 * ```
 */
export async function sweepLeftovers(dir: string, staleLockMs: number): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const path = join(dir, name);
    try {
      if (await isDeadLeftover(path, name, staleLockMs)) removed.push(name);
    } catch {
      // raced with its owner or another sweeper: leave it
    }
  }
  return removed;
}

async function isDeadLeftover(path: string, name: string, staleLockMs: number): Promise<boolean> {
  const temp = TEMP_NAME.exec(name);
  if (temp) {
    const info = await stat(path);
    const age = Date.now() - info.mtimeMs;
    if (!info.isFile() || age < TEMP_STALE_MS) return false;
    if (age < DAY_MS && processAlive(Number(temp[1]))) return false;
    await unlink(path);
    return true;
  }
  if (name.endsWith(".lock")) {
    const holder = await readHolder(path);
    if (!holder || !isStale(holder, staleLockMs)) return false;
    await breakStale(path, holder);
    return (await stat(path).catch(() => undefined)) === undefined;
  }
  if (name.endsWith(".lock.break")) {
    const info = await stat(path);
    if (Date.now() - info.mtimeMs < GUARD_STALE_MS) return false;
    await unlink(path);
    return true;
  }
  return false;
}
