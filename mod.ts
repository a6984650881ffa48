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
// Everything in `@mu/sessions/core`. core.ts lists each name explicitly, grouped by
// concept, so this star re-exports a curated list, not module internals; the API report
// (api/report.md) spells out this entry's names in full.
export * from "./core.ts";
// Sync between stores, also its own entry (`@mu/sessions/sync`) for browser and edge bundles.
export { type SyncOptions, type SyncReport, syncStores } from "./sync.ts";

// File-system storage (Deno, Node): how the default store is chosen and opened. The full
// resolution API (openStorage, fileSystemRuntimeStorage, ...) is `@mu/sessions/stores/default`.
export {
  openJsonlDirectory,
  resolveAgentDir,
  resolveDefaultStore,
  resolveStorageChoice,
  type StorageChoice,
  type StorageOptions,
} from "./stores/default/mod.ts";
export { openSqliteStore, type SqliteFileOptions } from "./stores/sqlite/file.ts";
