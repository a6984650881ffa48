/**
 * The options of the SQLite store and the per-connection pragmas they set.
 *
 * Pragmas per connection: `busy_timeout` (5000 ms), `foreign_keys = ON`, `journal_mode =
 * WAL` (optional, for OPFS pools that manage their own), SQLite's default `synchronous`
 * (FULL: a resolved write survives power loss).
 *
 * @module
 */
import { SessionStorageError } from "../../src/errors.ts";
import type { SqliteDatabase } from "./_schema.ts";

const PRAGMA_WORD = /^[A-Za-z]+$/;

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
   * built by the next search (a chunk at a time, reporting hits as it goes), as a migrated
   * database's sessions are, instead of in the write: indexing was most of the time of
   * importing a large session into sqlite-wasm. Hits stay the same. Default: every write
   * indexes its entries.
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

/**
 * Set a new connection's pragmas from the store's options (before the schema migrates).
 *
 * @example
 * ```ts
 * import { DatabaseSync } from "node:sqlite";
 * import { configureConnection } from "./_options.ts";
 * configureConnection(new DatabaseSync(":memory:"), { journalMode: null });
 * ```
 */
export function configureConnection(db: SqliteDatabase, options: SqliteStoreOptions): void {
  const { journalMode = "WAL", busyTimeoutMs = 5000 } = options;
  const synchronous = options.synchronous ?? (options.durability === "relaxed" ? "NORMAL" : null);
  // busy_timeout first: switching to WAL and migrating may wait for another process.
  db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
  db.exec("PRAGMA foreign_keys = ON");
  for (const [name, value] of [["journal_mode", journalMode], ["synchronous", synchronous]]) {
    if (value === null) continue;
    if (!PRAGMA_WORD.test(value)) throw new SessionStorageError(`Invalid ${name}: ${value}`);
    // journal_mode answers with a row (better-sqlite3 refuses exec-less reads of it the
    // other way round: `.get()` on a pragma that returns nothing throws there).
    if (name === "journal_mode") db.prepare(`PRAGMA ${name} = ${value}`).get();
    else db.exec(`PRAGMA ${name} = ${value}`);
  }
}
