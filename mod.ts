/**
 * mu-sessions for Deno and Node: everything in `@mu/sessions/core`, plus the file-system
 * storage that the path-based factories and the configured default store need. Importing
 * this entry registers that storage, so `SessionManager.create(cwd)` (the configured
 * storage, by default the SQLite database in the agent directory) and
 * `SessionManager.create(cwd, dir)` (JSONL files in `dir`) work with no other import.
 * Browsers, workers and edge runtimes import `@mu/sessions/core` instead.
 *
 * @example
 * ```ts
 * import { SessionManager } from "@mu/sessions";
 * const dir = await Deno.makeTempDir();
 * const manager = await SessionManager.create("/project", dir);
 * await manager.appendMessage({ role: "user", content: "hello", timestamp: Date.now() });
 * console.log(manager.getSessionFile()); // a .jsonl file in dir
 * ```
 *
 * @module
 */
export * from "./core.ts";
export {
  openJsonlDirectory,
  resolveAgentDir,
  resolveDefaultStore,
  resolveStorageChoice,
  type StorageChoice,
  type StorageOptions,
} from "./stores/default/mod.ts";
export { openSqliteStore, type SqliteFileOptions } from "./stores/sqlite/file.ts";
