/**
 * Cross-process lock files for Deno and Node (both through `node:fs`): `<file>.lock` holds
 * `{pid, host, token, acquiredAt}`. It appears with its owner already in it (a temp file
 * hard-linked into place, see `createLock`), so no crash leaves a lock nobody can judge.
 * Synchronous calls and an inode check instead of reading the lock back keep this cheap:
 * every burst of appends takes a lock. A lock without a readable owner (another tool's, or one made
 * where hard links are missing) is stale once it is {@link OWNERLESS_STALE_MS} old. A
 * holder refreshes the lock's mtime while it holds it, so a lock is stale when its owner
 * process is gone (same host) or it has not been refreshed for `staleMs`. Breaking a stale
 * lock is itself guarded by `<file>.lock.break`, so two waiters cannot both break it and
 * then delete each other's fresh lock. A holder removes only its own lock: the file with
 * the inode it created (or, where inodes are not reported, holding its token).
 *
 * The lock path is never followed: this code only ever creates regular files there, so
 * anything else there (a symlink, dangling or leading out of the folder, or a directory) is
 * judged by its own `lstat` as a lock without an owner. A link is then removed like any
 * owner-less lock (only the link); what cannot be removed ends in the timeout.
 *
 * A released lock is parked for this process's next writer of the same file (`_park.ts`), so
 * appends awaited back to back take the lock file once, not once per append.
 *
 * Liveness without permissions: on Deno the owner also holds an OS lock on the lock file
 * (`_os_lock.ts`), which the kernel drops when it dies, so a waiter with only read and write
 * permissions (no `--allow-run` to ask about the pid, no `--allow-sys` for the host name)
 * still knows at once that a killed owner is gone. Node has no OS lock of its own, and both
 * runtimes must exclude each other on the same files, so the lock file stays the lock and
 * the OS lock only says whether its owner lives.
 *
 * @module
 */
import { lstatSync, readFileSync, unlinkSync, utimesSync } from "node:fs";
import { lstat, mkdir, open, readFile, unlink } from "node:fs/promises";
import { hostname } from "node:os";
import { dirname } from "node:path";
import process from "node:process";
import { SessionStorageError } from "../../src/errors.ts";
import { KeyedMutex, type ReleaseLock } from "./_folder.ts";
import {
  closeKept,
  handOverWait,
  type HeldLock,
  markHeld,
  maxHoldMs,
  park,
  take,
} from "./_park.ts";
import { identity } from "./_native.ts";
import { OS_LOCKS, osLockAbandoned } from "./_os_lock.ts";
import { type Created, createLock, FILE_MODE, type Owner } from "./_lock_create.ts";

/**
 * Options for {@link acquireLockFile}.
 *
 * @example
 * ```ts
 * import { type LockFileOptions } from "./_lockfile.ts";
 * const options: LockFileOptions = { timeoutMs: 10_000, staleMs: 30_000 };
 * ```
 */
export interface LockFileOptions {
  /** Give up waiting after this many ms. */
  timeoutMs: number;
  /** A lock not refreshed for this long is stale (default 30 000). */
  staleMs?: number;
  /** Park the lock on release for this process's next writer (`_park.ts`): appends. */
  keep?: boolean;
}

/** A lock file as read: its owner (when readable) and mtime. */
export interface Holder {
  owner?: Owner;
  mtimeMs: number;
  /** The lock path is a symlink, directory or other non-file: never read through. */
  notFile?: boolean;
  /** Where it was read (its OS lock is tested there). */
  path?: string;
}

/**
 * How old a lock without a readable owner must be to count as stale: a live writer fills in
 * the owner within milliseconds of creating the file, so after this it never will.
 */
export const OWNERLESS_STALE_MS = 1_000;

const processMutex = new KeyedMutex();
let cachedHost: string | undefined;

function thisHost(): string {
  if (cachedHost === undefined) {
    try {
      cachedHost = hostname();
    } catch {
      cachedHost = ""; // Deno without --allow-sys: rely on pid checks as if on one host
    }
  }
  return cachedHost;
}

function code(error: unknown): string | undefined {
  return (error as { code?: string } | null)?.code;
}

/** The lock file's owner and mtime, or `undefined` when it is gone. */
export async function readHolder(path: string): Promise<Holder | undefined> {
  try {
    // lstat, not stat: a dangling link must read as present (O_EXCL and link see it so),
    // or a waiter would retry forever; and a link's target is outside our say.
    const info = await lstat(path);
    if (!info.isFile()) return { mtimeMs: info.mtimeMs, notFile: true };
    const text = await readFile(path, "utf8");
    let owner: Owner | undefined;
    try {
      const parsed = JSON.parse(text);
      if (parsed && typeof parsed.pid === "number" && typeof parsed.token === "string") {
        owner = parsed;
      }
    } catch {
      // Being written right now (created, content not yet there), or garbage.
    }
    return { owner, mtimeMs: info.mtimeMs, path };
  } catch (error) {
    if (code(error) === "ENOENT") return undefined;
    throw error;
  }
}

/** Whether a process exists; unknown (no permission to ask) counts as alive. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return code(error) !== "ESRCH";
  }
}

/** Whether a lock's owner is provably gone (see the module doc). */
export function isStale(holder: Holder, staleMs: number): boolean {
  const age = Date.now() - holder.mtimeMs;
  if (age > staleMs) return true;
  const owner = holder.owner;
  if (!owner) return age > OWNERLESS_STALE_MS;
  const host = thisHost();
  if (owner.pid === process.pid && owner.host === host) return false;
  // An OS lock is only tested on this machine; an unknown host name is taken as this one,
  // as the pid check below does.
  const here = !owner.host || !host || owner.host === host;
  if (owner.osLock && OS_LOCKS && here && holder.path) return osLockAbandoned(holder.path);
  if (owner.host !== host) return false;
  return !processAlive(owner.pid);
}

/** Remove the lock `judged` stale, unless it changed hands meanwhile. */
export async function breakStale(path: string, judged: Holder): Promise<void> {
  const guard = `${path}.break`;
  try {
    await (await open(guard, "wx", FILE_MODE)).close();
  } catch (error) {
    if (code(error) !== "EEXIST") throw error;
    // Someone else is breaking it; a guard left by a crash is removed after a while.
    const info = await lstat(guard).catch(() => undefined);
    if (info && Date.now() - info.mtimeMs > 5_000) await unlink(guard).catch(() => {});
    return;
  }
  try {
    const now = await readHolder(path);
    const same = now !== undefined && (now.owner?.token === judged.owner?.token) &&
      (judged.owner !== undefined || now.mtimeMs === judged.mtimeMs);
    if (same) await unlink(path).catch(() => {});
  } finally {
    await unlink(guard).catch(() => {});
  }
}

/** Remove the lock if it is still the one created (see the module doc). */
function removeOwnLock(path: string, ino: number, token: string): void {
  try {
    const mine = ino ? lstatSync(path).ino === ino : readFileSync(path, "utf8").includes(token);
    if (mine) unlinkSync(path);
  } catch {
    // gone already (broken as stale and removed)
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function timedOut(path: string, options: LockFileOptions, holder: Holder | undefined) {
  const who = holder?.notFile
    ? "something that is not a regular file"
    : holder?.owner
    ? `pid ${holder.owner.pid}${
      holder.owner.host ? ` on ${holder.owner.host}` : ""
    } since ${holder.owner.acquiredAt}`
    : "another process";
  return new SessionStorageError(
    `Timed out after ${options.timeoutMs} ms waiting for the lock ${path} (held by ${who})`,
  );
}

/**
 * Take the lock file `path` (waiting at most `timeoutMs`), first queueing behind other
 * holders in this process.
 *
 * @example
 * ```ts
 * import { acquireLockFile } from "./_lockfile.ts";
 * const release = await acquireLockFile("/tmp/s.jsonl.lock", { timeoutMs: 1000 });
 * await release();
 * ```
 */
export async function acquireLockFile(
  path: string,
  options: LockFileOptions,
): Promise<ReleaseLock> {
  const started = Date.now();
  const releaseLocal = await processMutex.acquire(path, options.timeoutMs);
  // This process's previous writer parked it (`_park.ts`): ours, no file operation.
  const kept = take(path);
  if (kept) return releaseOf(kept, options, releaseLocal);
  try {
    return await acquireFile(path, options, started, releaseLocal);
  } catch (error) {
    releaseLocal();
    throw error;
  }
}

async function acquireFile(
  path: string,
  options: LockFileOptions,
  started: number,
  releaseLocal: () => void,
): Promise<ReleaseLock> {
  const staleMs = options.staleMs ?? 30_000;
  const owner: Owner = {
    pid: process.pid,
    host: thisHost(),
    token: crypto.randomUUID(),
    acquiredAt: new Date().toISOString(),
  };
  const turn = handOverWait(path);
  if (turn > 0) await sleep(turn); // a burst hit the hold bound: another process's turn
  let delay = 1;
  let created: Created | undefined;
  for (;;) {
    let holder: Holder | undefined;
    let stale = false;
    try {
      created = createLock(path, owner);
      if (created !== undefined) break;
      holder = await readHolder(path);
      stale = holder !== undefined && isStale(holder, staleMs);
      if (stale) await breakStale(path, holder!);
    } catch (error) {
      if (code(error) !== "ENOENT") throw error;
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    }
    // Every way round the loop checks the deadline and yields: whatever sits at the lock
    // path, a writer answers within its wait instead of spinning.
    if (Date.now() - started >= options.timeoutMs) throw timedOut(path, options, holder);
    // Held: back off up to 8 ms. Gone or just broken: retry after about a millisecond.
    delay = holder && !stale ? Math.min(delay * 2, 8) : 1;
    await sleep(delay * (0.5 + Math.random()));
  }
  const { ino } = created;
  const osLocked = created; // narrowed for the closures below
  let mtimeMs = created.mtimeMs;
  // Synchronous, and the new mtime noted: a parked lock is recognised by inode and mtime.
  const refresh = setInterval(() => {
    try {
      const now = new Date();
      utimesSync(path, now, now);
      mtimeMs = identity(path).mtimeMs;
    } catch {
      // gone (broken as stale): the release finds out
    }
  }, Math.max(250, Math.floor(staleMs / 4)));
  // Never keeps a process alive: a script done with its work exits holding the lock (judged
  // by its dead owner, as after a crash). Deno's global timers are Node `Timeout`s (2.9), so
  // this reaches both runtimes (tests/deno/jsonl_lock_exit.test.ts).
  (refresh as unknown as { unref?: () => void }).unref?.();
  const held: HeldLock = {
    path,
    since: Date.now(),
    parkable: ino !== 0,
    stillMine() {
      try {
        const now = identity(path);
        if (now.ino === ino && now.mtimeMs === mtimeMs) return true;
        // Looks changed: the token decides (no one else knows it), so a platform whose inode
        // or mtime reads differently never makes this process wait on its own lock.
        if (!readFileSync(path, "utf8").includes(owner.token)) return false;
        mtimeMs = now.mtimeMs;
        return true;
      } catch {
        return false;
      }
    },
    drop() {
      clearInterval(refresh);
      closeKept(held);
      osLocked.close?.();
    },
    remove() {
      clearInterval(refresh);
      closeKept(held);
      // Only remove our own lock: if it was broken as stale, the file is someone else's.
      removeOwnLock(path, ino, owner.token);
      osLocked.close?.(); // after the removal: a live lock file always has its OS lock
    },
  };
  return releaseOf(held, options, releaseLocal);
}

/**
 * Take the lock file `path` at once when this process parked it (`_park.ts`), nothing in
 * this process holds or waits for it, and it is still this process's; otherwise undefined,
 * having changed nothing but a parked lock found no longer ours (forgotten). The release
 * parks it again. The synchronous twin of {@link acquireLockFile} for appends in a burst.
 *
 * @example
 * ```ts
 * import { takeParkedLockFile } from "./_lockfile.ts";
 * const release = takeParkedLockFile("/tmp/s.jsonl.lock", { timeoutMs: 1000, keep: true });
 * release?.();
 * ```
 */
export function takeParkedLockFile(
  path: string,
  options: LockFileOptions,
): (() => void) | undefined {
  const releaseLocal = processMutex.tryAcquire(path);
  if (!releaseLocal) return undefined;
  const kept = take(path);
  if (kept) return holdFor(kept, options, releaseLocal);
  releaseLocal();
  return undefined;
}

/** The release of `held`: parked for this process's next writer (`keep`), or removed. */
function releaseOf(
  held: HeldLock,
  options: LockFileOptions,
  releaseLocal: () => void,
): ReleaseLock {
  const release = holdFor(held, options, releaseLocal);
  return async () => release();
}

/** Mark `held` as held; the synchronous release of {@link releaseOf}. */
function holdFor(held: HeldLock, options: LockFileOptions, releaseLocal: () => void): () => void {
  let released = false;
  markHeld(held, true);
  return () => {
    if (released) return;
    released = true;
    markHeld(held, false);
    try {
      if (options.keep) park(held, maxHoldMs(options.staleMs ?? 30_000));
      else held.remove();
    } finally {
      releaseLocal();
    }
  };
}
