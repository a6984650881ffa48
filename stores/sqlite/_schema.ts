/**
 * The minimal SQLite database shape every driver adapts to (node:sqlite, better-sqlite3,
 * the sqlite-wasm OO1 API), the transaction helper, and the forward schema migrations of
 * the SQLite session store (`stores/sqlite/store.ts`). No Deno, Node or DOM API.
 *
 * Schema, version `SQLITE_SCHEMA_VERSION` in `PRAGMA user_version`, reached by the
 * forward steps of `SQLITE_MIGRATIONS` (both below):
 * ```sql
 * sessions(id TEXT PRIMARY KEY, cwd TEXT, created_at INTEGER, -- epoch ms
 *          modified INTEGER,                                -- epoch ms, listing order
 *          header TEXT,                                     -- raw header JSON
 *          internal INTEGER, workflow TEXT, parent_session_id TEXT,
 *          listing TEXT)                                    -- ListingState JSON
 * entries(session_id TEXT REFERENCES sessions(id) ON DELETE CASCADE, seq INTEGER,
 *         entry_id TEXT, parent_id TEXT, type TEXT, json TEXT, -- raw entry JSON
 *         flags INTEGER,              -- contextFlags (src/context_load.ts); NULL before v6
 *         walk TEXT,                  -- path pointers (_walk.ts); NULL before v9 or unsure
 *         PRIMARY KEY (session_id, seq))
 * INDEX entries_walk (session_id, seq, entry_id, parent_id, flags)  -- append-ordered;
 *                                    -- loadContext scans it (_context.ts)
 * INDEX entries_by_id (entry_id)      -- a parent's or reused id's row, when writing
 * INDEX entries_dangling (session_id, parent_id) WHERE walk IS NULL -- appends: a cycle
 *                                    -- closed through a stored entry's missing parent
 * INDEX entries_labels (session_id, seq) WHERE type = 'label' -- a lazy open's label chips
 * INDEX sessions_by_cwd (cwd, modified DESC, created_at DESC, id)
 * ```
 *
 * @module
 */
import { SessionStorageError } from "../../src/errors.ts";
import {
  SEARCH_MIGRATION,
  SEARCH_ORDER_MIGRATION,
  SEARCH_WORDS_MIGRATION,
} from "./search/_search.ts";
import { SEARCH_BACKLOG_MIGRATION } from "./search/_backlog.ts";

/**
 * A value bound to a `?` placeholder.
 *
 * @example
 * ```ts
 * import type { SqliteDatabase, SqliteValue } from "@mu/sessions/stores/sqlite";
 * declare const db: SqliteDatabase;
 * const params: SqliteValue[] = ["s1", 0];
 * db.prepare("SELECT json FROM entries WHERE session_id = ? AND seq > ?").all(...params);
 * ```
 */
export type SqliteValue = string | number | bigint | null | Uint8Array;

/**
 * A prepared statement: positional parameters, rows as plain or null-prototype objects.
 *
 * @example
 * ```ts
 * // node:sqlite's StatementSync and better-sqlite3's Statement already fit.
 * import type { SqliteDatabase } from "@mu/sessions/stores/sqlite";
 * declare const db: SqliteDatabase;
 * const row = db.prepare("SELECT 1 AS one").get(); // { one: 1 }
 * ```
 */
export interface SqliteStatement {
  run(...params: SqliteValue[]): { changes: number | bigint };
  all(...params: SqliteValue[]): Record<string, unknown>[];
  get(...params: SqliteValue[]): Record<string, unknown> | undefined;
}

/**
 * The minimal synchronous database handle the store needs.
 *
 * @example
 * ```ts
 * import { DatabaseSync } from "node:sqlite";
 * const db: SqliteDatabase = new DatabaseSync("sessions.db");
 * ```
 */
export interface SqliteDatabase {
  exec(sql: string): void;
  prepare(sql: string): SqliteStatement;
  close(): void;
  /**
   * Optional: a parameter that binds the given UTF-8 bytes as TEXT (a plain `Uint8Array`
   * binds as a BLOB). The store uses it for records parsed with `retainRaw: "bytes"`, so
   * their text is never decoded and encoded again; without it they bind as strings.
   */
  textBytes?(bytes: Uint8Array): SqliteValue;
}

/**
 * Forward schema steps: step `i` takes `user_version` from `i` to `i + 1`. Never edit a
 * published step; append a new one.
 *
 * @example
 * ```ts
 * import { SQLITE_MIGRATIONS } from "./_schema.ts";
 * SQLITE_MIGRATIONS.length; // the current schema version
 * ```
 */
export const SQLITE_MIGRATIONS: readonly (readonly string[])[] = [
  [
    `CREATE TABLE sessions (id TEXT PRIMARY KEY NOT NULL, cwd TEXT NOT NULL,
      created_at INTEGER NOT NULL, modified INTEGER NOT NULL, header TEXT NOT NULL,
      internal INTEGER NOT NULL DEFAULT 0, workflow TEXT, parent_session_id TEXT,
      listing TEXT NOT NULL)`,
    `CREATE TABLE entries (
      session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
      seq INTEGER NOT NULL, entry_id TEXT, parent_id TEXT, type TEXT NOT NULL,
      json TEXT NOT NULL, PRIMARY KEY (session_id, seq))`,
  ],
  [
    `CREATE INDEX entries_by_entry_id ON entries (session_id, entry_id, seq)`,
    `CREATE INDEX sessions_by_cwd ON sessions (cwd, modified DESC, created_at DESC, id)`,
  ],
  [
    // loadContext walks parent links inside this index, never reading an entry's JSON; it
    // still serves lookups by (session_id, entry_id).
    `DROP INDEX entries_by_entry_id`,
    `CREATE INDEX entries_tree ON entries (session_id, entry_id, seq, parent_id)`,
  ],
  [
    // An index keyed by random entry ids put every append on a random page of a large
    // session (bench/README.md, the rows of appends onto a large session vs a new one).
    // Append-ordered instead: loadContext scans the tree columns in seq order and walks
    // parent links in memory, never reading an entry's JSON it does not return.
    `DROP INDEX entries_tree`,
    `CREATE INDEX entries_walk ON entries (session_id, seq, entry_id, parent_id)`,
  ],
  // Full-text search (`search/_search.ts`): built for existing sessions before the first search.
  SEARCH_MIGRATION,
  [
    // Context-only loads (`_context.ts`) plan from each entry's context flags without
    // reading its JSON: the flags join the covering walk index. Rows written before stay
    // NULL (unknown) and are parsed when a plan needs them.
    `ALTER TABLE entries ADD COLUMN flags INTEGER`,
    `DROP INDEX entries_walk`,
    `CREATE INDEX entries_walk ON entries (session_id, seq, entry_id, parent_id, flags)`,
  ],
  // Search candidates walked newest first without sorting, phrases narrowed by FTS
  // (`search/_walk.ts`): the index is built again before the next search.
  SEARCH_ORDER_MIGRATION,
  // Score bounds from a word index, so a walk settles at the best score its rows can reach
  // (`search/_bound.ts`).
  SEARCH_WORDS_MIGRATION,
  [
    // Path pointers (`_walk.ts`): a context-only load jumps from the leaf to the boundary
    // and the replayed settings instead of scanning the session's tree. Rows written before
    // stay NULL and are answered by the tree scan. Writes find a parent's (and a reused
    // id's) latest row through entries_by_id; only the id, so the randomly ordered index
    // stays small (an append touches one more page).
    // A lazy open (`_lazy.ts`) asks whether any row of a session lacks pointers; only
    // such rows are in this index (every row before this step, few after).
    `ALTER TABLE entries ADD COLUMN walk TEXT`,
    `CREATE INDEX entries_by_id ON entries (entry_id)`,
    `CREATE INDEX entries_unwalked ON entries (session_id) WHERE walk IS NULL`,
  ],
  // Appends record a backlog instead of tokenizing; it is indexed when the writer is idle
  // and before every search (`search/_backlog.ts`).
  SEARCH_BACKLOG_MIGRATION,
  [
    // An append asks whether a stored entry names one of its new ids as a parent not there
    // when it was written (such a row has no path pointers), so it can refuse the append that
    // would close a parent cycle through it. Rows with pointers, nearly all, are not in it.
    `CREATE INDEX entries_dangling ON entries (session_id, parent_id) WHERE walk IS NULL`,
  ],
  [
    // A lazy open's labels (`_lazy.ts` labelPositions: the tree's label chips before a full
    // load) without reading every row of the session: only label rows, a few, are in it.
    `CREATE INDEX entries_labels ON entries (session_id, seq) WHERE type = 'label'`,
  ],
];

/** The schema version this library writes (`PRAGMA user_version`). */
export const SQLITE_SCHEMA_VERSION = SQLITE_MIGRATIONS.length;

/**
 * Run `fn` in one transaction: committed when it returns, rolled back when it throws.
 * `fn` must be synchronous: an `await` inside would let other calls on the same
 * connection run inside this transaction.
 *
 * @example
 * ```ts
 * import type { SqliteDatabase } from "@mu/sessions/stores/sqlite";
 * import { sqliteTransaction } from "./_schema.ts";
 * declare const db: SqliteDatabase;
 * sqliteTransaction(db, () => db.prepare("DELETE FROM entries").run());
 * ```
 */
export function sqliteTransaction<T>(
  db: SqliteDatabase,
  fn: () => T,
  mode: "IMMEDIATE" | "DEFERRED" = "IMMEDIATE",
): T {
  db.exec(`BEGIN ${mode}`);
  let result: T;
  try {
    result = fn();
    db.exec("COMMIT");
  } catch (error) {
    try {
      db.exec("ROLLBACK");
    } catch {
      // SQLite already rolled back (e.g. after SQLITE_FULL); the original error matters.
    }
    throw error;
  }
  return result;
}

/**
 * Bring a database to {@link SQLITE_SCHEMA_VERSION}; returns the version found before.
 * Rejects a database written by a newer schema rather than guessing at it.
 *
 * @example
 * ```ts
 * import type { SqliteDatabase } from "@mu/sessions/stores/sqlite";
 * import { migrateSqliteSchema } from "./_schema.ts";
 * declare const db: SqliteDatabase;
 * const before = migrateSqliteSchema(db); // 0 for a new file
 * ```
 */
export function migrateSqliteSchema(db: SqliteDatabase): number {
  const readVersion = () => Number(db.prepare("PRAGMA user_version").get()?.user_version ?? 0);
  const found = readVersion();
  if (found > SQLITE_SCHEMA_VERSION) {
    throw new SessionStorageError(
      `The session database has schema version ${found}, newer than this library supports (${SQLITE_SCHEMA_VERSION}); upgrade @mu/sessions`,
    );
  }
  if (found === SQLITE_SCHEMA_VERSION) return found;
  sqliteTransaction(db, () => {
    // Another process may have migrated while this one waited for the write lock.
    const current = readVersion();
    for (let step = current; step < SQLITE_SCHEMA_VERSION; step++) {
      for (const sql of SQLITE_MIGRATIONS[step]) db.exec(sql);
    }
    if (current < SQLITE_SCHEMA_VERSION) db.exec(`PRAGMA user_version = ${SQLITE_SCHEMA_VERSION}`);
  });
  return found;
}
