/**
 * How the runtime-agnostic manager reaches runtime storage. `src/` never touches the file
 * system; the factories that take a directory or a file path (`create(cwd, sessionDir)`,
 * `open(path)`, `forkFrom`, `importFromJsonl`, `list(cwd, dir)`) ask the registered
 * {@link RuntimeStorage}. `stores/default/mod.ts` registers one for Deno and Node when it is
 * imported; browsers and edge functions pass stores explicitly.
 *
 * @module
 */
import { SessionStorageError } from "./errors.ts";
import type { SessionStore } from "./store.ts";

/**
 * A JSONL file resolved to its store (what {@link RuntimeStorage.openJsonlFile} returns).
 *
 * @example
 * ```ts
 * import { MemorySessionStore } from "@mu/sessions/core";
 * import { type ResolvedJsonlFile } from "./runtime.ts";
 * const file: ResolvedJsonlFile = {
 *   store: new MemorySessionStore(),
 *   sessionId: "s1",
 *   path: "/sessions/s1.jsonl",
 * };
 * ```
 */
export interface ResolvedJsonlFile {
  store: SessionStore;
  /** Id of the session in that file. */
  sessionId: string;
  /** The file's path. */
  path: string;
}

/**
 * Runtime storage services behind the path-based factories; register one with
 * {@link registerRuntimeStorage}.
 *
 * @example
 * ```ts
 * import { MemorySessionStore, registerRuntimeStorage, type RuntimeStorage } from "@mu/sessions/core";
 * // Every path maps to one in-memory store (a test double for a host's storage).
 * const store = new MemorySessionStore();
 * const storage: RuntimeStorage = {
 *   defaultStore: () => Promise.resolve(store),
 *   jsonlStore: () => Promise.resolve(store),
 *   openJsonlFile: () => Promise.reject(new Error("no files here")),
 *   readFile: () => Promise.reject(new Error("no files here")),
 *   cwd: () => "/",
 * };
 * registerRuntimeStorage(storage);
 * ```
 */
export interface RuntimeStorage {
  /**
   * The store for a factory given no store and no directory: settings
   * (`sessions.storage`, trusted project settings), then the default SQLite database.
   * Never falls back to memory: a store that cannot open rejects.
   */
  defaultStore(cwd: string): Promise<SessionStore>;
  /** The JSONL store over an explicit directory. */
  jsonlStore(directory: string): Promise<SessionStore>;
  /**
   * A JSONL file opened directly. When the file does not exist it is created with a new
   * session header for `cwd` (the file API of `SessionManager.open(path)`).
   */
  openJsonlFile(
    path: string,
    options: { sessionDir?: string; cwd: string },
  ): Promise<ResolvedJsonlFile>;
  /** The bytes of a JSONL file (forkFrom, importFromJsonl sources). */
  readFile(path: string): Promise<ReadableStream<Uint8Array>>;
  /** The current working directory (for `inMemory()` without a cwd). */
  cwd(): string;
}

let registered: RuntimeStorage | undefined;

/**
 * Register the runtime's storage services: what path-based factories such as
 * `SessionManager.create(cwd, dir)` use. The `@mu/sessions` entry registers the file-system
 * storage on import; a host with other storage (an edge KV, a browser folder) registers its own.
 *
 * @example
 * ```ts
 * import { registerRuntimeStorage, type RuntimeStorage } from "@mu/sessions/core";
 * declare const hostStorage: RuntimeStorage; // the host's directories, files and default store
 * registerRuntimeStorage(hostStorage);
 * ```
 */
export function registerRuntimeStorage(storage: RuntimeStorage | undefined): void {
  registered = storage;
}

/** The registered runtime storage, or a clear error saying what to do instead. */
export function runtimeStorage(): RuntimeStorage {
  if (!registered) {
    throw new SessionStorageError(
      'No runtime storage is registered: pass a SessionStore explicitly, or import from "@mu/sessions" (Deno, Node; it registers the file-system storage) instead of "@mu/sessions/core" to use directories, files and the default SQLite store',
    );
  }
  return registered;
}

/** Whether runtime storage is registered. */
export function hasRuntimeStorage(): boolean {
  return registered !== undefined;
}
