/**
 * Cross-process lock files for Deno and Node (both through `node:fs`): `<file>.lock` is
 * created exclusively (`O_CREAT|O_EXCL`) and holds `{pid, host, token, acquiredAt}`. A
 * holder refreshes the lock's mtime while it holds it, so a lock is stale when its owner
 * process is gone (same host) or it has not been refreshed for `staleMs`. Breaking a stale
 * lock is itself guarded by `<file>.lock.break`, so two waiters cannot both break it and
 * then delete each other's fresh lock.
 *
 * `Deno.FsFile.lock` would release on crash by itself, but Node has no equivalent and both
 * runtimes must exclude each other on the same files, so both use this.
 *
 * @module
 */
import { mkdir, open, readFile, stat, unlink, utimes } from "node:fs/promises";
import { hostname } from "node:os";
import { dirname } from "node:path";
import process from "node:process";
import { SessionStorageError } from "../../src/errors.ts";
import { KeyedMutex, type ReleaseLock } from "./_folder.ts";

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
}

interface Owner {
  pid: number;
  host: string;
  token: string;
  acquiredAt: string;
}

interface Holder {
  owner?: Owner;
  mtimeMs: number;
}

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

async function readHolder(path: string): Promise<Holder | undefined> {
  try {
    const [info, text] = await Promise.all([stat(path), readFile(path, "utf8")]);
    let owner: Owner | undefined;
    try {
      const parsed = JSON.parse(text);
      if (parsed && typeof parsed.pid === "number" && typeof parsed.token === "string") {
        owner = parsed;
      }
    } catch {
      // Being written right now (created, content not yet there), or garbage.
    }
    return { owner, mtimeMs: info.mtimeMs };
  } catch (error) {
    if (code(error) === "ENOENT") return undefined;
    throw error;
  }
}

/** Whether a process exists; unknown (no permission to ask) counts as alive. */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return code(error) !== "ESRCH";
  }
}

function isStale(holder: Holder, staleMs: number): boolean {
  if (Date.now() - holder.mtimeMs > staleMs) return true;
  const owner = holder.owner;
  if (!owner || owner.host !== thisHost() || owner.pid === process.pid) return false;
  return !processAlive(owner.pid);
}

async function breakStale(path: string, judged: Holder): Promise<void> {
  const guard = `${path}.break`;
  try {
    await (await open(guard, "wx")).close();
  } catch (error) {
    if (code(error) !== "EEXIST") throw error;
    // Someone else is breaking it; a guard left by a crash is removed after a while.
    const info = await stat(guard).catch(() => undefined);
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
  let delay = 1;
  for (;;) {
    try {
      const handle = await open(path, "wx");
      try {
        await handle.writeFile(JSON.stringify(owner));
      } finally {
        await handle.close();
      }
      break;
    } catch (error) {
      if (code(error) === "ENOENT") {
        await mkdir(dirname(path), { recursive: true });
        continue;
      }
      if (code(error) !== "EEXIST") throw error;
    }
    const holder = await readHolder(path);
    if (!holder) continue; // released in between
    if (isStale(holder, staleMs)) {
      await breakStale(path, holder);
      continue;
    }
    if (Date.now() - started >= options.timeoutMs) {
      const who = holder.owner
        ? `pid ${holder.owner.pid}${
          holder.owner.host ? ` on ${holder.owner.host}` : ""
        } since ${holder.owner.acquiredAt}`
        : "another process";
      throw new SessionStorageError(
        `Timed out after ${options.timeoutMs} ms waiting for the lock ${path} (held by ${who})`,
      );
    }
    await sleep(delay * (0.5 + Math.random()));
    delay = Math.min(delay * 2, 8);
  }
  const refresh = setInterval(() => {
    const now = new Date();
    utimes(path, now, now).catch(() => {});
  }, Math.max(250, Math.floor(staleMs / 4)));
  (refresh as unknown as { unref?: () => void }).unref?.();
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    clearInterval(refresh);
    try {
      // Only remove our own lock: if it was broken as stale, the file is someone else's.
      const text = await readFile(path, "utf8").catch(() => "");
      if (text.includes(owner.token)) await unlink(path).catch(() => {});
    } finally {
      releaseLocal();
    }
  };
}
