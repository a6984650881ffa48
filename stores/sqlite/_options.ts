/**
 * The options of the SQLite store (kept apart so the store module stays small).
 *
 * @module
 */

/**
 * Options for `SqliteSessionStore.open` (and `openSqliteStore`).
 *
 * @example
 * ```ts
 * import { DatabaseSync } from "node:sqlite";
 * import { SqliteSessionStore, type SqliteStoreOptions } from "@mu/sessions/stores/sqlite";
 * const options: SqliteStoreOptions = { busyTimeoutMs: 10_000, durability: "relaxed" };
 * const store = await SqliteSessionStore.open(new DatabaseSync(":memory:"), options);
 * ```
 */
export interface SqliteStoreOptions {
  /** `PRAGMA journal_mode`; default `"WAL"`. `null` leaves it alone (OPFS pools set their own). */
  journalMode?: string | null;
  /** How long a writer waits for another connection's lock, in ms (default 5000). */
  busyTimeoutMs?: number;
  /** `PRAGMA synchronous` (`"FULL"`, `"NORMAL"`, ...); default: SQLite's own (FULL). */
  synchronous?: string | null;
  /**
   * The store-wide durability choice (as for the JSONL store): `"relaxed"` means
   * `synchronous=NORMAL` (in WAL, commits are not synced; a power cut may lose the last
   * ones, never corrupt). An explicit `synchronous` (not null) wins. Default `"durable"`.
   */
  durability?: "durable" | "relaxed";
  /**
   * A write of more entries than this (an import) leaves the session's search index to be
   * built before the next search, as a migrated database's sessions are, instead of in the
   * write: indexing was most of the time of importing a large session into sqlite-wasm.
   * Hits stay the same. Default: every write indexes its entries.
   */
  deferSearchIndexAbove?: number;
  /**
   * How long the store waits after its last small write before indexing what those writes
   * left for the search index, in ms (default 250). Appends of a few entries only record
   * that their session has entries to index, so they cost about what they cost without
   * search; the indexing runs once the writer is idle, a few dozen entries per timer turn,
   * before every search (which always sees every committed entry) and when the store
   * closes. `Infinity`: only then (and when a session falls 2,048 entries behind).
   */
  searchIndexIdleMs?: number;
}
