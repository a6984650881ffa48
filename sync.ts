/**
 * Sync between two stores (`@mu/sessions/sync`): {@link syncStores} copies the sessions one
 * store has that the other lacks, in whole or in part, over the `SessionStore` seam (any
 * pair: SQLite, JSONL, PostgreSQL, memory, IndexedDB). It creates missing sessions and
 * appends missing entries, never overwrites or deletes, and reports conflicts. Its own entry,
 * so that `@mu/sessions/core` stays small for bundles that never sync; `@mu/sessions`
 * (Deno, Node) re-exports it.
 *
 * @example
 * ```ts
 * import { MemorySessionStore } from "@mu/sessions/core";
 * import { syncStores } from "@mu/sessions/sync";
 * const report = await syncStores(new MemorySessionStore(), new MemorySessionStore(), {
 *   direction: "both",
 * });
 * console.log(report.sessionsCreated, report.conflicts.length); // 0 0
 * ```
 *
 * @module
 */
export { type SyncOptions, type SyncReport, syncStores } from "./src/sync.ts";
