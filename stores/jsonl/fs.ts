/**
 * The JSONL session-folder store on the local file system, for Deno and Node alike (Deno
 * runs `node:fs`). Appends are positional writes plus `fdatasync` (none when relaxed); rewrites go to a temp
 * file in the same folder, `fsync`, then `rename`; locks are lock files
 * (`_lockfile.ts`); deletes use the `trash` command when it is installed, else the
 * freedesktop home trash (`_trash.ts`) where the system has one.
 *
 * @module
 */
import { execFile } from "node:child_process";
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { mkdir, open, rename, stat, unlink } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import process from "node:process";
import { SessionStorageError } from "../../src/errors.ts";
import type { FileIdentity } from "./scan/_resume_index.ts";
import {
  DEFAULT_LOCK_TIMEOUT_MS,
  type FileStat,
  type FolderEntry,
  type JsonlFolderFs,
  type LockOptions,
  type ReleaseLock,
  type WriteOptions,
} from "./_folder.ts";
import { acquireLockFile } from "./_lockfile.ts";
import { findOnPath, moveToFreedesktopTrash } from "./_trash.ts";
import { readAhead } from "./_read_ahead.ts";
import { nodeDigest } from "./scan/_digest.ts";
import { nodeByteText } from "./_byte_text.ts";
import { type AppendBurst, attachBackend } from "./_backend.ts";
import { userIndexKey } from "./_index_key.ts";
import { releaseParked } from "./_park.ts";
import { readDirectory } from "./_native.ts";
import { keptBurst } from "./_kept.ts";
import { mayBeLeftover, sweepLeftovers } from "./_leftovers.ts";
import { JsonlSessionStore, type JsonlStoreOptions } from "./store.ts";

const ON_DENO = "Deno" in globalThis;

/** An append refused, writing nothing: the file is not the size its last stat said. */
function changedSize(abs: string, size: number, expectedSize: number): SessionStorageError {
  return new SessionStorageError(
    `${abs} changed size (${size}, expected ${expectedSize}); nothing was appended`,
  );
}

/**
 * Options for {@link NodeJsonlFolderFs}.
 *
 * @example
 * ```ts
 * import { type FsFolderOptions } from "@mu/sessions/stores/jsonl";
 * const options: FsFolderOptions = { trashCommand: false, staleLockMs: 60_000 };
 * ```
 */
export interface FsFolderOptions {
  /** The trash command; `false` never trashes; default: `trash` when it is on `PATH`, else the freedesktop home trash. */
  trashCommand?: string | false;
  /** A lock file not refreshed for this long is stale (default 30 s). */
  staleLockMs?: number;
}

function code(error: unknown): string | undefined {
  return (error as { code?: string } | null)?.code;
}

/**
 * {@link JsonlFolderFs} over a directory of the local file system.
 *
 * @example
 * ```ts
 * import { NodeJsonlFolderFs } from "@mu/sessions/stores/jsonl";
 * const fs = new NodeJsonlFolderFs("/tmp/sessions");
 * await fs.list(""); // [] when the folder does not exist yet
 * ```
 */
export class NodeJsonlFolderFs implements JsonlFolderFs {
  readonly root: string;
  readonly #options: FsFolderOptions;
  /** The root with one trailing separator. */
  readonly #prefix: string;
  /** Directories whose last listing held no name a crash leaves (`mayBeLeftover`). */
  readonly #clean = new Set<string>();
  /** The last relative path resolved by `#abs`, and its absolute path. */
  #lastRelative?: string;
  #lastAbsolute = "";
  /** The `stat` and append calls, through the file kept open under a kept lock (`_kept.ts`). */
  readonly #burst: AppendBurst;

  constructor(directory: string, options: FsFolderOptions = {}) {
    this.root = resolve(directory);
    this.#options = options;
    this.#prefix = this.root.endsWith(sep) ? this.root : `${this.root}${sep}`;
    this.#burst = keptBurst(
      (path) => this.#abs(path),
      { ...this.#lockOptions(), keep: true },
      changedSize,
    );
    attachBackend(this, {
      readSync: (path, start, end) => this.#readSync(path, start, end),
      fileIdentity: (path) => this.#fileIdentity(path),
      // `node:crypto` hashes about twice as fast as `crypto.subtle` on Node; Deno's
      // `crypto.subtle` hashes on another thread beside the checking pass, which paid more.
      digest: ON_DENO ? undefined : nodeDigest,
      byteText: nodeByteText,
      indexKey: userIndexKey,
      burst: this.#burst,
    });
  }

  /** Absolute path of a folder path; folder paths cannot climb out with `..`. */
  #abs(path: string): string {
    if (path === this.#lastRelative) return this.#lastAbsolute; // an append asks several times
    if (isAbsolute(path)) return path;
    const parts = path.split("/");
    if (parts.some((part) => part === ".." || part === "")) {
      throw new SessionStorageError(`Invalid session folder path: ${path}`);
    }
    // What join would give, without its normalising pass (a listing asks 20,000 times).
    const abs = sep === "/" && !parts.includes(".")
      ? `${this.#prefix}${path}`
      : join(this.root, ...parts);
    this.#lastRelative = path;
    this.#lastAbsolute = abs;
    return abs;
  }

  describe(path: string): string {
    return this.#abs(path);
  }

  async list(dir: string): Promise<FolderEntry[]> {
    const abs = dir === "" ? this.root : this.#abs(dir);
    let items;
    try {
      items = readDirectory(abs); // synchronous: one call, not a promise per entry
    } catch (error) {
      if (code(error) === "ENOENT" || code(error) === "ENOTDIR") return [];
      throw error;
    }
    // Remembered for the sweep that follows a store's first listing (`sweep`).
    if (items.some((item) => mayBeLeftover(item.name))) this.#clean.delete(abs);
    else this.#clean.add(abs);
    const entries: FolderEntry[] = [];
    for (const item of items) {
      if (item.type === "file") entries.push({ name: item.name, kind: "file" });
      else if (item.type === "directory") entries.push({ name: item.name, kind: "directory" });
      else if (item.type === "link") {
        // Followed, as pi does for linked project folders; broken links are ignored.
        const target = await stat(join(abs, item.name)).catch(() => undefined);
        if (target?.isFile()) entries.push({ name: item.name, kind: "file" });
        if (target?.isDirectory()) entries.push({ name: item.name, kind: "directory" });
      }
    }
    return entries;
  }

  // The small operations of appends and listings are synchronous system calls: each is a
  // few microseconds, while a promise-based call costs a thread-pool round trip (tens to
  // hundreds of microseconds in Deno), which was most of an append's time.
  async stat(path: string): Promise<FileStat | undefined> {
    return this.#burst.stat(path);
  }

  async read(path: string, start: number, end: number): Promise<Uint8Array> {
    return this.#readSync(path, start, end);
  }

  /** {@link read}, synchronously (a lazily opened session's entry bodies, `scan/_lazy_open.ts`). */
  #readSync(path: string, start: number, end: number): Uint8Array {
    const fd = openSync(this.#abs(path), "r");
    try {
      const buffer = new Uint8Array(Math.max(0, end - start));
      let filled = 0;
      while (filled < buffer.length) {
        const bytesRead = readSync(fd, buffer, filled, buffer.length - filled, start + filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      return buffer.subarray(0, filled);
    } finally {
      closeSync(fd);
    }
  }

  /**
   * Device, inode, size and times of the file, at the resolution both runtimes report (Deno
   * gives the modification time in milliseconds and the change time in whole seconds, Node
   * both in nanoseconds), so an index written by one is honoured by the other. An identity is
   * only recorded once the file has not changed for `RACY_MS`, so a later write always moves
   * the modification time past what the coarser reading can miss.
   */
  #fileIdentity(path: string): Promise<FileIdentity | undefined> {
    try {
      const s = statSync(this.#abs(path), { bigint: true });
      const [mtime, ctime] = [s.mtimeNs / 1_000_000n, s.ctimeNs / 1_000_000_000n];
      const key = `${s.dev}:${s.ino}:${s.size}:${mtime}:${ctime}`;
      const changedMs = Number(s.mtimeMs > s.ctimeMs ? s.mtimeMs : s.ctimeMs);
      return Promise.resolve({ key, file: `${s.dev}:${s.ino}`, size: Number(s.size), changedMs });
    } catch {
      return Promise.resolve(undefined);
    }
  }

  /** The file from `start`, in chunks read ahead of the caller (`_read_ahead.ts`). */
  readStream(path: string, start = 0): AsyncIterable<Uint8Array> {
    return readAhead(this.#abs(path), start);
  }

  async append(
    path: string,
    data: Uint8Array,
    expectedSize: number,
    options: WriteOptions = {},
  ): Promise<FileStat> {
    // Relaxed: the bytes are in the OS cache (they survive this process, not a power cut).
    // Under a lock kept across a burst, the file stays open between appends (`_kept.ts`).
    return this.#burst.append(path, data, expectedSize, options.durability ?? "durable");
  }

  async truncate(path: string, size: number): Promise<void> {
    const handle = await open(this.#abs(path), "r+");
    try {
      await handle.truncate(size);
      await handle.datasync();
    } finally {
      await handle.close();
    }
  }

  async writeAtomic(
    path: string,
    data: Uint8Array | AsyncIterable<Uint8Array>,
    options: WriteOptions = {},
  ): Promise<void> {
    const durable = options.durability !== "relaxed";
    const target = this.#abs(path);
    const folder = dirname(target);
    // Sessions hold secrets: folders this store creates are 0700 and new files 0600 (a
    // requested mode only loses bits to the umask, so these hold under umask 000 too).
    await mkdir(folder, { recursive: true, mode: 0o700 });
    const mode = (await stat(target).catch(() => undefined))?.mode ?? 0o600;
    // Same folder, so the rename stays on one file system and is atomic.
    const temp = `${target}.${process.pid}.${crypto.randomUUID().slice(0, 8)}.tmp`;
    const handle = await open(temp, "wx", mode & 0o777);
    try {
      try {
        const chunks = data instanceof Uint8Array ? [data] : data;
        for await (const chunk of chunks) {
          let written = 0;
          while (written < chunk.length) {
            written += (await handle.write(chunk, written, chunk.length - written)).bytesWritten;
          }
        }
        if (durable) await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, target);
    } catch (error) {
      await unlink(temp).catch(() => {});
      throw error;
    }
    if (durable) await syncDirectory(folder);
  }

  async remove(path: string): Promise<void> {
    try {
      await unlink(this.#abs(path));
    } catch (error) {
      if (code(error) !== "ENOENT") throw error;
    }
  }

  async trash(path: string): Promise<boolean> {
    const configured = this.#options.trashCommand;
    if (configured === false) return false;
    const command = await findOnPath(configured ?? "trash");
    const target = this.#abs(path);
    if (!command) return configured === undefined && await moveToFreedesktopTrash(target);
    return await new Promise<boolean>((done, fail) => {
      execFile(command, [target], { timeout: 30_000 }, (error, _stdout, stderr) => {
        if (!error) return done(true);
        // Not allowed to run programs (Deno without --allow-run): as if there were no trash.
        if (/NotCapable|PermissionDenied/.test(error.name) || /--allow-run/.test(error.message)) {
          return done(false);
        }
        fail(
          new SessionStorageError(
            `${command} could not move ${target} to the trash (the file was kept): ${
              String(stderr).trim() || error.message
            }`,
            { cause: error },
          ),
        );
      });
    });
  }

  async lock(path: string, options: LockOptions = {}): Promise<ReleaseLock> {
    return await acquireLockFile(`${this.#abs(path)}.lock`, {
      ...this.#lockOptions(options.timeoutMs),
      keep: options.keep,
    });
  }

  #lockOptions(timeoutMs = DEFAULT_LOCK_TIMEOUT_MS) {
    return { timeoutMs, staleMs: this.#options.staleLockMs };
  }

  idle(): void {
    releaseParked();
  }

  async sweep(dir: string): Promise<void> {
    const abs = dir === "" ? this.root : this.#abs(dir);
    // Just listed without a name a crash leaves: nothing to read again (10,000 names).
    if (this.#clean.has(abs)) return;
    await sweepLeftovers(abs, this.#options.staleLockMs ?? 30_000);
  }

  /** The folder path of an absolute path inside the root, or the absolute path itself. */
  folderPath(absolute: string): string {
    const rel = relative(this.root, resolve(absolute));
    if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return resolve(absolute);
    return rel.split(sep).join("/");
  }
}

/** Make a rename durable; not every platform can open a directory, so failures are ignored. */
async function syncDirectory(folder: string): Promise<void> {
  try {
    const handle = await open(folder, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // best effort
  }
}

/**
 * A JSONL session store over a local directory (created on first write).
 *
 * @example
 * ```ts
 * import { openJsonlFsStore } from "@mu/sessions/stores/jsonl";
 * const store = await openJsonlFsStore("/tmp/sessions");
 * await store.create({ type: "session", version: 4, id: "s1", createdAt: new Date().toISOString(), cwd: "/p" });
 * ```
 */
export async function openJsonlFsStore(
  directory: string,
  options: JsonlStoreOptions & FsFolderOptions = {},
): Promise<JsonlSessionStore> {
  return new JsonlSessionStore(new NodeJsonlFolderFs(directory, options), options);
}

export { JsonlSessionStore, TornTailError } from "./store.ts";
export type { JsonlStoreOptions, RepairReport } from "./store.ts";
// The folder interface both adapters implement: a custom one (another file system, a test
// double) plugs into `new JsonlSessionStore(folder, options)`.
export type {
  Durability,
  FileStat,
  FolderEntry,
  JsonlFolderFs,
  LockOptions,
  ReleaseLock,
  WriteOptions,
} from "./_folder.ts";
