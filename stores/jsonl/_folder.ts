/**
 * The small file-system seam the JSONL store is written against, so one store serves
 * Deno/Node file systems (`fs.ts`) and File System Access handles (`fsa.ts`),
 * the way unstorage writes one store over many drivers. Also the naming rules of a
 * session folder, shared by both backends.
 *
 * Paths are relative to the folder root and use `/`, e.g. `2026-01-01T00-00-00-000Z_ab12.jsonl`
 * or `--home-u-proj--/2025-01-01T00-00-00-000Z_<uuid>.jsonl`. A backend may also accept
 * absolute paths of its own kind (the file-system backend does, for files opened directly).
 *
 * @module
 */
import { SessionStorageError } from "../../src/errors.ts";
import { sha256Hex } from "../../src/_hex.ts";

/**
 * One directory entry.
 *
 * @example
 * ```ts
 * import { type FolderEntry } from "@mu/sessions/stores/jsonl";
 * const entry: FolderEntry = { name: "--home-u-p--", kind: "directory" };
 * ```
 */
export interface FolderEntry {
  name: string;
  kind: "file" | "directory";
}

/**
 * What the store needs to know about a file.
 *
 * @example
 * ```ts
 * import { type FileStat } from "@mu/sessions/stores/jsonl";
 * const stat: FileStat = { size: 120, mtimeMs: Date.now() };
 * ```
 */
export interface FileStat {
  size: number;
  /** Modification time in ms; with `size`, the listing cache key. */
  mtimeMs: number;
}

/**
 * Releases a lock; safe to call once.
 *
 * @example
 * ```ts
 * import { type ReleaseLock } from "@mu/sessions/stores/jsonl";
 * const release: ReleaseLock = async () => {};
 * ```
 */
export type ReleaseLock = () => Promise<void>;

/**
 * Options for {@link JsonlFolderFs.lock}.
 *
 * @example
 * ```ts
 * import { type LockOptions } from "@mu/sessions/stores/jsonl";
 * const options: LockOptions = { timeoutMs: 2_000 };
 * ```
 */
export interface LockOptions {
  /** Give up after this many ms with a `SessionStorageError` (default 10 000). */
  timeoutMs?: number;
  /**
   * The caller will likely take this lock again soon (appends): a backend may keep it after
   * the release for this process's next writer, until the process goes idle (see `idle`).
   */
  keep?: boolean;
}

/**
 * How durable a write must be when its promise resolves: `"durable"` (the default) on disk
 * (`fsync`), `"relaxed"` handed to the operating system only (survives the process, not a
 * power cut), like the older tools' appends and SQLite's `synchronous=NORMAL`.
 *
 * @example
 * ```ts
 * import { type Durability } from "@mu/sessions/stores/jsonl";
 * const durability: Durability = "relaxed";
 * ```
 */
export type Durability = "durable" | "relaxed";

/**
 * Options of {@link JsonlFolderFs.append}.
 *
 * @example
 * ```ts
 * import { type WriteOptions } from "@mu/sessions/stores/jsonl";
 * const options: WriteOptions = { durability: "relaxed" };
 * ```
 */
export interface WriteOptions {
  /** Default `"durable"`; backends without a separate flush (File System Access) ignore it. */
  durability?: Durability;
}

/**
 * The file operations of a session folder. Every write a backend offers is durable when its
 * promise resolves; the store adds ordering, torn-tail checks and rollback on top.
 *
 * @example
 * ```ts
 * import type { JsonlFolderFs } from "@mu/sessions/stores/jsonl";
 * async function sizeOf(fs: JsonlFolderFs, path: string) {
 *   return (await fs.stat(path))?.size ?? 0;
 * }
 * ```
 */
export interface JsonlFolderFs {
  /** How a path is shown to people (listing rows, errors): absolute path, `opfs:/x`, ... */
  describe(path: string): string;
  /** The root as shown to people (the store's `directory`). */
  readonly root: string;
  /** Entries of a directory (`""` is the root); `[]` when it does not exist. */
  list(dir: string): Promise<FolderEntry[]>;
  /** Size and modification time, or `undefined` when the file does not exist. */
  stat(path: string): Promise<FileStat | undefined>;
  /** Bytes `[start, end)` (fewer at end of file). */
  read(path: string, start: number, end: number): Promise<Uint8Array>;
  /** The file's bytes from `start`, streamed. */
  readStream(path: string, start?: number): AsyncIterable<Uint8Array>;
  /**
   * Write `data` at offset `expectedSize` of an existing file and make it durable; resolves
   * the file's new size and mtime. Rejects (writing nothing) when the file is missing or its
   * size is not `expectedSize`. A rejection may leave part of `data` written: the store
   * truncates back. `options.durability: "relaxed"` may skip the flush to disk.
   */
  append(
    path: string,
    data: Uint8Array,
    expectedSize: number,
    options?: WriteOptions,
  ): Promise<FileStat>;
  /** Cut the file back to `size` bytes, durably. */
  truncate(path: string, size: number): Promise<void>;
  /**
   * Replace or create the file with `data` atomically (temp file, fsync, rename, or the
   * backend's equivalent); creates parent directories. Readers see the old or the new file.
   * `options.durability: "relaxed"` may skip the flushes (used for the listing cache).
   */
  writeAtomic(
    path: string,
    data: Uint8Array | AsyncIterable<Uint8Array>,
    options?: WriteOptions,
  ): Promise<void>;
  /** Remove a file; a missing file is not an error. */
  remove(path: string): Promise<void>;
  /**
   * Move a file to the user's trash. Resolves `false` when the backend has no trash (the
   * store then removes the file). Optional.
   */
  trash?(path: string): Promise<boolean>;
  /**
   * Take the exclusive cross-process lock for `path` (one writer per session file). Waits,
   * bounded by `timeoutMs`, then rejects with `SessionStorageError`.
   */
  lock(path: string, options?: LockOptions): Promise<ReleaseLock>;
  /**
   * Give up what the backend keeps between operations: lock files kept for the next write
   * (the file-system backend keeps one until the process goes idle). Called by the store's
   * `close()`. Optional.
   */
  idle?(): void;
  /**
   * Remove crash leftovers (temp copies, lock files) in directory `dir` (`""` is the root)
   * whose owners are provably gone. Optional: backends whose writes leave none omit it.
   */
  sweep?(dir: string): Promise<void>;
}

// ---------------------------------------------------------------- naming

/**
 * Hex characters of the SHA-256 of a session id used in format-4 file names (128 bits).
 *
 * @example
 * ```ts
 * import { SESSION_HASH_LENGTH } from "./_folder.ts";
 * SESSION_HASH_LENGTH; // 32
 * ```
 */
export const SESSION_HASH_LENGTH = 32;

/**
 * The hash that names a session's file: no id, however odd, can escape the folder or clash
 * with a file-system rule.
 *
 * @example
 * ```ts
 * import { hashSessionId } from "./_folder.ts";
 * (await hashSessionId("abc")).length; // 32
 * ```
 */
export async function hashSessionId(id: string): Promise<string> {
  return (await sha256Hex(new TextEncoder().encode(id))).slice(0, SESSION_HASH_LENGTH);
}

/**
 * The format-4 file name: `<createdAt with : and . replaced by ->_<hash>.jsonl`. Any other
 * character outside `[0-9A-Za-z+-]` in `createdAt` also becomes `-`, because the header is
 * caller data and must not steer the path.
 *
 * @example
 * ```ts
 * import { sessionFileName } from "./_folder.ts";
 * sessionFileName("2026-01-01T00:00:00.000Z", "ab12"); // "2026-01-01T00-00-00-000Z_ab12.jsonl"
 * ```
 */
export function sessionFileName(createdAt: string, hash: string): string {
  const stamp = String(createdAt).replace(/[^0-9A-Za-z+-]/g, "-").slice(0, 64) || "session";
  return `${stamp}_${hash}.jsonl`;
}

/**
 * The older pi folder name for a working directory: one leading separator removed, then
 * `/`, `\` and `:` replaced by `-`, wrapped in `--`. Lossy; used only to prefer likely
 * folders, never to decide membership (the header's `cwd` does).
 *
 * @example
 * ```ts
 * import { piLayoutFolderName } from "./_folder.ts";
 * piLayoutFolderName("/home/u/proj"); // "--home-u-proj--"
 * ```
 */
export function piLayoutFolderName(cwd: string): string {
  return `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
}

/**
 * The hash part of a format-4 file name, or undefined for other names.
 *
 * @example
 * ```ts
 * import { hashFromFileName } from "./_folder.ts";
 * hashFromFileName(`2026-01-01T00-00-00-000Z_${"a".repeat(32)}.jsonl`); // "aaa…a"
 * ```
 */
export function hashFromFileName(name: string): string | undefined {
  const match = /_([0-9a-f]{32})\.jsonl$/.exec(name);
  return match?.[1];
}

/**
 * Whether a directory entry is a session file candidate.
 *
 * @example
 * ```ts
 * import { isSessionFileName } from "./_folder.ts";
 * isSessionFileName("x.jsonl"); // true
 * isSessionFileName("x.jsonl.lock"); // false
 * ```
 */
export function isSessionFileName(name: string): boolean {
  return name.endsWith(".jsonl") && !name.startsWith(".");
}

/**
 * Join relative folder paths with `/`.
 *
 * @example
 * ```ts
 * import { joinPath } from "./_folder.ts";
 * joinPath("--home-u-p--", "a.jsonl"); // "--home-u-p--/a.jsonl"
 * ```
 */
export function joinPath(dir: string, name: string): string {
  return dir === "" ? name : `${dir}/${name}`;
}

// ---------------------------------------------------------------- in-process locking

/**
 * Serialises async work per key inside one JavaScript realm. Backends take it before the
 * cross-process lock, so writers in one process queue instead of polling a lock file.
 *
 * @example
 * ```ts
 * import { KeyedMutex } from "./_folder.ts";
 * const mutex = new KeyedMutex();
 * const release = await mutex.acquire("file.jsonl", 1000);
 * release();
 * ```
 */
export class KeyedMutex {
  readonly #tails = new Map<string, Promise<void>>();
  /**
   * Keys held through {@link tryAcquire}: a promise to wait on is made only when someone
   * waits (an append within a burst takes and gives back its key with nobody waiting).
   */
  readonly #holds = new Map<string, { tail?: Promise<void>; release?: () => void }>();

  /** Wait for the key (at most `timeoutMs`), then hold it until the returned function runs. */
  async acquire(key: string, timeoutMs: number): Promise<() => void> {
    const waiting = this.#tails.get(key) ?? this.#awaitable(key);
    const done = this.#enqueue(key, waiting);
    // Nobody holds the key: no timer and no race (this runs around every append).
    if (!waiting) return done;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), timeoutMs);
    });
    const outcome = await Promise.race([waiting.then(() => "ok" as const), timedOut]);
    clearTimeout(timer);
    if (outcome === "timeout") {
      // Leave our slot in the queue but release it as soon as it comes up.
      waiting.then(done);
      throw new SessionStorageError(
        `Timed out after ${timeoutMs} ms waiting for another writer in this process (${key})`,
      );
    }
    return done;
  }

  /** Hold the key now when nobody holds or waits for it; undefined otherwise. */
  tryAcquire(key: string): (() => void) | undefined {
    if (this.#tails.has(key) || this.#holds.has(key)) return undefined;
    const hold: { tail?: Promise<void>; release?: () => void } = {};
    this.#holds.set(key, hold);
    return () => {
      if (this.#holds.get(key) !== hold) return; // released already
      this.#holds.delete(key);
      hold.release?.();
      if (hold.tail !== undefined && this.#tails.get(key) === hold.tail) this.#tails.delete(key);
    };
  }

  /** The key's {@link tryAcquire} hold as a promise to queue behind (made now), if held so. */
  #awaitable(key: string): Promise<void> | undefined {
    const hold = this.#holds.get(key);
    if (!hold) return undefined;
    hold.tail ??= new Promise<void>((resolve) => (hold.release = resolve));
    this.#tails.set(key, hold.tail);
    return hold.tail;
  }

  /** Queue behind `waiting` (the key's tail); the returned function releases the slot. */
  #enqueue(key: string, waiting: Promise<void> | undefined): () => void {
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = (waiting ?? Promise.resolve()).then(() => mine);
    this.#tails.set(key, tail);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      release();
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    };
  }
}

/**
 * Default bound on waiting for a session file lock.
 *
 * @example
 * ```ts
 * import { DEFAULT_LOCK_TIMEOUT_MS } from "./_folder.ts";
 * DEFAULT_LOCK_TIMEOUT_MS; // 10000
 * ```
 */
export const DEFAULT_LOCK_TIMEOUT_MS = 10_000;
