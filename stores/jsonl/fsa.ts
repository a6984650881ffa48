/**
 * The JSONL session-folder store over the File System Access API: any
 * `FileSystemDirectoryHandle`, including the origin-private file system root
 * (`navigator.storage.getDirectory()`) or a folder the user picked. Same layout and rules
 * as the file-system backend. Writes go through `createWritable()`, whose `close()` commits
 * the whole change at once (the browser writes a swap file), so readers never see half an
 * append; the lock is a Web Lock (`navigator.locks`) per file when the browser has them,
 * otherwise a lock inside this page.
 *
 * @module
 */
import { readableChunks } from "../../src/jsonl.ts";
import { SessionStorageError } from "../../src/errors.ts";
import {
  DEFAULT_LOCK_TIMEOUT_MS,
  type FileStat,
  type FolderEntry,
  type JsonlFolderFs,
  KeyedMutex,
  type LockOptions,
  type ReleaseLock,
} from "./_folder.ts";
import { JsonlSessionStore, type JsonlStoreOptions } from "./store.ts";

/**
 * Options for {@link FsaJsonlFolderFs}.
 *
 * @example
 * ```ts
 * import { type FsaFolderOptions } from "@mu/sessions/stores/jsonl/fsa";
 * const options: FsaFolderOptions = { label: "opfs:", lockNamespace: "my-app" };
 * ```
 */
export interface FsaFolderOptions {
  /** How the root is shown in paths (default `opfs:` for an unnamed root, else its name). */
  label?: string;
  /** Prefix of Web Lock names, to keep unrelated folders apart (default the label). */
  lockNamespace?: string;
}

interface LockManagerLike {
  request(
    name: string,
    options: { mode: "exclusive"; signal: AbortSignal },
    callback: () => Promise<void>,
  ): Promise<void>;
}

const pageMutex = new KeyedMutex();

function isNotFound(error: unknown): boolean {
  const name = (error as { name?: string } | null)?.name;
  return name === "NotFoundError" || name === "TypeMismatchError";
}

/**
 * {@link JsonlFolderFs} over a `FileSystemDirectoryHandle`.
 *
 * @example
 * ```ts
 * import { FsaJsonlFolderFs } from "@mu/sessions/stores/jsonl/fsa";
 * const fs = new FsaJsonlFolderFs(await navigator.storage.getDirectory());
 * await fs.list(""); // entries of the OPFS root
 * ```
 */
export class FsaJsonlFolderFs implements JsonlFolderFs {
  readonly root: string;
  readonly #handle: FileSystemDirectoryHandle;
  readonly #namespace: string;

  constructor(handle: FileSystemDirectoryHandle, options: FsaFolderOptions = {}) {
    this.#handle = handle;
    this.root = options.label ?? (handle.name ? handle.name : "opfs:");
    this.#namespace = options.lockNamespace ?? this.root;
  }

  describe(path: string): string {
    return `${this.root}/${path}`;
  }

  #segments(path: string): string[] {
    const parts = path.split("/");
    if (parts.some((part) => part === "" || part === "." || part === "..")) {
      throw new SessionStorageError(`Invalid path in a File System Access folder: ${path}`);
    }
    return parts;
  }

  #split(path: string): { dirs: string[]; name: string } {
    const parts = this.#segments(path);
    return { dirs: parts.slice(0, -1), name: parts[parts.length - 1] };
  }

  async #dir(dirs: string[], create: boolean): Promise<FileSystemDirectoryHandle> {
    let dir = this.#handle;
    for (const name of dirs) dir = await dir.getDirectoryHandle(name, { create });
    return dir;
  }

  async #file(path: string, create = false): Promise<FileSystemFileHandle> {
    const { dirs, name } = this.#split(path);
    return (await this.#dir(dirs, create)).getFileHandle(name, { create });
  }

  async list(dir: string): Promise<FolderEntry[]> {
    let handle: FileSystemDirectoryHandle;
    try {
      handle = await this.#dir(dir === "" ? [] : this.#segments(dir), false);
    } catch (error) {
      if (isNotFound(error)) return [];
      throw error;
    }
    const entries: FolderEntry[] = [];
    const iterable = handle as unknown as {
      entries(): AsyncIterable<[string, FileSystemHandle]>;
    };
    for await (const [name, child] of iterable.entries()) {
      entries.push({ name, kind: child.kind === "directory" ? "directory" : "file" });
    }
    return entries;
  }

  async stat(path: string): Promise<FileStat | undefined> {
    try {
      const file = await (await this.#file(path)).getFile();
      return { size: file.size, mtimeMs: file.lastModified };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async read(path: string, start: number, end: number): Promise<Uint8Array> {
    const file = await (await this.#file(path)).getFile();
    return new Uint8Array(await file.slice(start, end).arrayBuffer());
  }

  async *readStream(path: string, start = 0): AsyncIterable<Uint8Array> {
    const file = await (await this.#file(path)).getFile();
    yield* readableChunks(file.slice(start).stream() as ReadableStream<Uint8Array>);
  }

  async append(path: string, data: Uint8Array, expectedSize: number): Promise<FileStat> {
    const handle = await this.#file(path);
    const size = (await handle.getFile()).size;
    if (size !== expectedSize) {
      throw new SessionStorageError(
        `${
          this.describe(path)
        } changed size (${size}, expected ${expectedSize}); nothing was appended`,
      );
    }
    const writable = await handle.createWritable({ keepExistingData: true });
    try {
      await writable.write({ type: "write", position: expectedSize, data: data as BufferSource });
      await writable.close(); // commits the swap file in one step
    } catch (error) {
      await writable.abort().catch(() => {});
      throw error;
    }
    const file = await handle.getFile();
    return { size: file.size, mtimeMs: file.lastModified };
  }

  async truncate(path: string, size: number): Promise<void> {
    const writable = await (await this.#file(path)).createWritable({ keepExistingData: true });
    try {
      await writable.truncate(size);
      await writable.close();
    } catch (error) {
      await writable.abort().catch(() => {});
      throw error;
    }
  }

  // No separate flush here (`close()` commits): durability options change nothing.
  async writeAtomic(path: string, data: Uint8Array | AsyncIterable<Uint8Array>): Promise<void> {
    const existed = (await this.stat(path)) !== undefined;
    const handle = await this.#file(path, true);
    let writable: FileSystemWritableFileStream | undefined;
    try {
      writable = await handle.createWritable({ keepExistingData: false });
      if (data instanceof Uint8Array) {
        await writable.write(data as BufferSource);
      } else {
        for await (const chunk of data) await writable.write(chunk as BufferSource);
      }
      await writable.close();
    } catch (error) {
      await writable?.abort().catch(() => {});
      // getFileHandle({create}) made an empty file: take it away again.
      if (!existed) await this.remove(path).catch(() => {});
      throw error;
    }
  }

  async remove(path: string): Promise<void> {
    const { dirs, name } = this.#split(path);
    try {
      await (await this.#dir(dirs, false)).removeEntry(name);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  async lock(path: string, options: LockOptions = {}): Promise<ReleaseLock> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
    const name = `mu-sessions:jsonl:${this.#namespace}:${path}`;
    const locks = (globalThis as { navigator?: { locks?: LockManagerLike } }).navigator?.locks;
    if (!locks) {
      const release = await pageMutex.acquire(name, timeoutMs);
      return async () => release();
    }
    return await new Promise<ReleaseLock>((resolve, reject) => {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), timeoutMs);
      let letGo!: () => void;
      const held = new Promise<void>((done) => (letGo = done));
      locks.request(name, { mode: "exclusive", signal: controller.signal }, async () => {
        clearTimeout(timer);
        resolve(async () => letGo());
        await held;
      }).catch((error: unknown) => {
        clearTimeout(timer);
        reject(
          new SessionStorageError(
            (error as { name?: string })?.name === "AbortError"
              ? `Timed out after ${timeoutMs} ms waiting for the lock on ${this.describe(path)}`
              : `Cannot lock ${this.describe(path)}: ${(error as Error)?.message ?? error}`,
            { cause: error },
          ),
        );
      });
    });
  }
}

/**
 * A JSONL session store over a File System Access directory (OPFS root or a picked folder).
 *
 * @example
 * ```ts
 * import { openJsonlFsaStore } from "@mu/sessions/stores/jsonl/fsa";
 * const store = openJsonlFsaStore(await navigator.storage.getDirectory());
 * const sessions = await store.list();
 * ```
 */
export function openJsonlFsaStore(
  handle: FileSystemDirectoryHandle,
  options: JsonlStoreOptions & FsaFolderOptions = {},
): JsonlSessionStore {
  return new JsonlSessionStore(new FsaJsonlFolderFs(handle, options), options);
}

// What openJsonlFsaStore returns and takes, and the folder interface FsaJsonlFolderFs
// implements, so browser code can name them without the Deno/Node entry.
export type { JsonlSessionStore, JsonlStoreOptions } from "./store.ts";
export type { JsonlFolderFs } from "./_folder.ts";
