/**
 * The SQLite {@link SessionStore}, written once against a minimal database shape that
 * `node:sqlite` (Deno, Node >= 22.5), better-sqlite3 (Node 20) and the sqlite-wasm OO1 API
 * (browser worker) each satisfy through a few-line adapter, the way Kysely's SQLite dialect
 * takes any `DatabaseSync`-shaped handle. This file uses no Deno, Node or DOM API.
 *
 * Database shape ({@link SqliteDatabase}): `exec(sql)`, `prepare(sql)` returning a
 * statement with positional `run` / `all` / `get` (only plain `?` placeholders are used),
 * and `close()`. Drivers are synchronous; the store's methods are async so the same
 * interface fits every {@link SessionStore}. Transactions are plain SQL
 * (`BEGIN IMMEDIATE` / `COMMIT` / `ROLLBACK`, see `sqliteTransaction` in `_schema.ts`) so every driver
 * behaves alike and a writer in another process waits (`busy_timeout`) instead of failing.
 *
 * The schema (version, tables, indexes) is described in `_schema.ts`, the per-connection
 * pragmas in `_options.ts`, the entry-row writes (append, path pointers) in `_writes.ts`.
 * Listing reads only `sessions` rows: the listing fold (`src/_listing.ts`) is kept current
 * inside every write transaction, so no entry is ever parsed to list.
 *
 * @module
 */
import { SessionExistsError, SessionNotFoundError } from "../../src/errors.ts";
import { toJsonLine } from "../../src/jsonl.ts";
import { decodeListing, decodeSession, listRecords, recordsToJsonl } from "../../src/_records.ts";
import type { SessionEntry, SessionHeader } from "../../src/schema.ts";
import { guardStoreClass } from "../../src/guarded_store.ts";
import {
  type CreatedSession,
  type ListOptions,
  type LoadedSession,
  type SessionInfo,
  storageOperation,
} from "../../src/store.ts";
import { SqliteSearchIndex } from "./search/_search.ts";
import { configureConnection, type SqliteStoreOptions } from "./_options.ts";
import { readContext, type StatementSource } from "./_context.ts";
import { listingRows, readChangeToken, readSessionRows, streamSessionRows } from "./_reads.ts";
import { LazyOpenings } from "./_lazy.ts";
import { appendEntryRows, insertEntryRows } from "./_writes.ts";
import { type LazySession, OPEN_LAZY } from "../../src/lazy_index.ts";
import type { ContextLoadingStore, LoadedContext } from "../../src/context_load.ts";
import {
  decoding,
  SESSION_COLUMNS,
  SESSION_UPDATE,
  sessionColumns,
  sessionRows,
  toEntryRows,
} from "./_rows.ts";
import { prepareSearch, type SearchHit, type SearchOptions } from "../../src/search.ts";
import {
  migrateSqliteSchema,
  type SqliteDatabase,
  type SqliteStatement,
  sqliteTransaction,
  type SqliteValue,
} from "./_schema.ts";

// The database shape a driver adapts to is public; the schema steps and the transaction
// helper are this family's internals (file.ts and wasm.ts import them from _schema.ts).
export type { SqliteDatabase, SqliteStatement, SqliteValue } from "./_schema.ts";
export type { SqliteStoreOptions } from "./_options.ts";

/**
 * SQLite session store over any {@link SqliteDatabase}. Use the runtime entry points
 * (`stores/sqlite/file.ts` for a local file, `stores/sqlite/wasm.ts` in a browser worker).
 *
 * Optional capabilities beyond {@link SessionStore}: {@link loadContext}, only what the
 * projection of a leaf needs (feature-test with `canLoadContext`), which reads the covering
 * walk index and parses only the rows it returns.
 *
 * @example
 * ```ts
 * import { DatabaseSync } from "node:sqlite";
 * import { SqliteSessionStore } from "@mu/sessions/stores/sqlite";
 * const store = await SqliteSessionStore.open(new DatabaseSync(":memory:"));
 * await store.create({ type: "session", version: 4, id: "s1", createdAt: new Date().toISOString(), cwd: "/p" });
 * ```
 */
export class SqliteSessionStore implements ContextLoadingStore {
  readonly kind = "sqlite";
  readonly #db: SqliteDatabase;
  readonly #statements = new Map<string, SqliteStatement>();
  /** The cached prepared statements, as the row helpers (`_reads.ts`, `_writes.ts`) take them. */
  readonly #statementSource: StatementSource = (sql) => this.#statement(sql);
  readonly #search: SqliteSearchIndex;
  readonly #lazy = new LazyOpenings(); // lazily opened sessions (`_lazy.ts`)
  readonly #textBytes?: (bytes: Uint8Array) => SqliteValue; // the driver's, if any
  #closed = false;

  /** Configure the connection and migrate the schema; throws on failure (prefer {@link open}). */
  constructor(db: SqliteDatabase, options: SqliteStoreOptions = {}) {
    this.#db = db;
    this.#textBytes = db.textBytes?.bind(db);
    this.#search = new SqliteSearchIndex({
      statement: this.#statementSource,
      exec: (sql) => db.exec(sql),
      transaction: (fn) => sqliteTransaction(db, fn),
    }, options);
    configureConnection(db, options);
    migrateSqliteSchema(db);
  }

  /**
   * Open a store over a database handle; rejects with `SessionStorageError` (and closes
   * nothing: the caller owns `db` until this resolves).
   */
  static async open(
    db: SqliteDatabase,
    options: SqliteStoreOptions = {},
  ): Promise<SqliteSessionStore> {
    return await storageOperation("open SQLite store", () => new SqliteSessionStore(db, options));
  }

  async create(
    header: SessionHeader,
    entries: readonly SessionEntry[] = [],
  ): Promise<CreatedSession> {
    return await this.#write("create", () => {
      const { rows, columns } = sessionRows(header, entries, this.#textBytes);
      return () => {
        if (this.#get("SELECT 1 AS x FROM sessions WHERE id = ?", header.id)) {
          throw new SessionExistsError(header.id);
        }
        this.#statement(
          `INSERT INTO sessions (id, ${SESSION_COLUMNS}) VALUES (?${", ?".repeat(8)})`,
        ).run(header.id, ...columns);
        insertEntryRows(this.#statementSource, header.id, 0, rows, false);
        this.#search.add(header.id, 0, entries);
        return { id: header.id };
      };
    });
  }

  async append(sessionId: string, entries: readonly SessionEntry[]): Promise<void> {
    await this.#write("append", () => {
      const rows = toEntryRows(entries, this.#textBytes);
      return () => appendEntryRows(this.#statementSource, this.#search, sessionId, entries, rows);
    });
  }

  async load(sessionId: string): Promise<LoadedSession> {
    const { headerText, rows } = await this.#read("load", sessionId);
    return decodeSession(headerText, rows.map((row) => row.json), decoding(sessionId));
  }

  /** `load` keeping each entry's text, in parts paged by seq (see `SessionStore`). */
  async streamExact(
    sessionId: string,
    options: { batchChars?: number } = {},
  ): Promise<AsyncIterable<LoadedSession>> {
    const statement = this.#statementSource;
    const inTransaction = <T>(read: () => T) =>
      storageOperation("streamExact", () => sqliteTransaction(this.#db, read, "DEFERRED"));
    return streamSessionRows(statement, inTransaction, sessionId, options.batchChars ?? 1 << 22);
  }

  /** The session as format-4 JSONL, joined from the stored raw texts (no entry is parsed). */
  async exportJsonl(sessionId: string): Promise<string> {
    const { headerText, rows } = await this.#read("exportJsonl", sessionId);
    return recordsToJsonl(headerText, rows.map((row) => row.json));
  }

  async replace(header: SessionHeader, entries: readonly SessionEntry[]): Promise<void> {
    await this.#write("replace", () => {
      const { rows, columns } = sessionRows(header, entries, this.#textBytes);
      return () => {
        this.#lazy.detach(header.id);
        const changed = this.#statement(`UPDATE sessions SET ${SESSION_UPDATE} WHERE id = ?`)
          .run(...columns, header.id).changes;
        if (Number(changed) === 0) throw new SessionNotFoundError(header.id);
        this.#statement("DELETE FROM entries WHERE session_id = ?").run(header.id);
        insertEntryRows(this.#statementSource, header.id, 0, rows, false);
        this.#search.remove(header.id);
        this.#search.add(header.id, 0, entries);
      };
    });
  }

  async updateHeader(header: SessionHeader): Promise<void> {
    await this.#write("updateHeader", () => {
      const headerText = toJsonLine(header, "header");
      return () => {
        const row = this.#get("SELECT listing FROM sessions WHERE id = ?", header.id);
        if (!row) throw new SessionNotFoundError(header.id);
        const listing = decodeListing(row.listing, decoding(header.id));
        const columns = sessionColumns(header, headerText, listing);
        this.#statement(`UPDATE sessions SET ${SESSION_UPDATE} WHERE id = ?`)
          .run(...columns, header.id);
      };
    });
  }

  async list(options: ListOptions = {}): Promise<SessionInfo[]> {
    const statement = this.#statementSource;
    const records = await storageOperation("list", () => listingRows(statement, options));
    return listRecords(records, "sqlite", options); // one fold and ordering for every store
  }

  async delete(sessionId: string): Promise<void> {
    await storageOperation("delete", () =>
      sqliteTransaction(this.#db, () => {
        this.#lazy.detach(sessionId);
        // Explicit, so deletion does not depend on the connection's foreign_keys setting.
        this.#statement("DELETE FROM entries WHERE session_id = ?").run(sessionId);
        this.#statement("DELETE FROM sessions WHERE id = ?").run(sessionId);
        this.#search.remove(sessionId);
      }));
  }

  /**
   * A token that changes with every commit touching the session (its last entry position
   * and header), or without an id with every commit by any connection: SQLite's
   * `data_version` counts other connections' commits, `total_changes()` this one's.
   */
  async changeToken(sessionId?: string): Promise<string> {
    const statement = this.#statementSource;
    return await storageOperation("changeToken", () => readChangeToken(statement, sessionId));
  }

  async has(sessionId: string): Promise<boolean> {
    return await storageOperation(
      "has",
      () => this.#get("SELECT 1 AS x FROM sessions WHERE id = ?", sessionId) !== undefined,
    );
  }

  /**
   * Optional fast path (see `ContextLoadingStore`): what the projection of the branch
   * ending at `leafId` needs, planned from the indexed context flags, reading only the
   * context range and the few earlier entries it replays. `leafId` defaults to the last
   * committed entry; `null` gives an empty path; an unknown id rejects with
   * `EntryNotFoundError`. Like the tree index, a duplicate id resolves to its latest entry.
   *
   * @example
   * ```ts
   * import { loadSessionProjection } from "@mu/sessions";
   * import type { SqliteSessionStore } from "@mu/sessions/stores/sqlite";
   * declare const store: SqliteSessionStore;
   * const loaded = await store.loadContext("s1"); // what loadSessionProjection reads
   * const projection = await loadSessionProjection(store, "s1");
   * ```
   */
  async loadContext(sessionId: string, leafId?: string | null): Promise<LoadedContext> {
    return await this.#partialRead("loadContext", readContext, sessionId, leafId);
  }

  /** The lazy open behind `SessionManager.open` (`_lazy.ts`, `src/lazy_index.ts`). */
  async [OPEN_LAZY](sessionId: string): Promise<LazySession | undefined> {
    const transaction = <T>(fn: () => T) => sqliteTransaction(this.#db, fn, "DEFERRED");
    const open = (statement: StatementSource, id: string) =>
      this.#lazy.open(statement, id, transaction);
    return await this.#partialRead("open", open, sessionId, undefined);
  }

  async #partialRead<T>(
    what: string,
    read: (statement: StatementSource, id: string, leaf: string | null | undefined) => T,
    sessionId: string,
    leafId: string | null | undefined,
  ): Promise<T> {
    const statement = this.#statementSource;
    return await storageOperation(
      what,
      () => sqliteTransaction(this.#db, () => read(statement, sessionId, leafId), "DEFERRED"),
    );
  }

  /**
   * Full-text search through the FTS5 index (see `search/_search.ts`); the same hits as
   * `scanSearch` on the same data. Sessions not yet indexed (an import above
   * `deferSearchIndexAbove`, an existing database after the upgrade, an indexing failure)
   * are matched and indexed a chunk at a time, with `options.onProgress` told the hits so
   * far, and scanned where indexing fails.
   *
   * @example
   * ```ts
   * import type { SqliteSessionStore } from "@mu/sessions/stores/sqlite";
   * declare const store: SqliteSessionStore;
   * const hits = await store.search("refreshTok -test", { roles: ["assistant", "toolCall"] });
   * ```
   */
  async search(query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
    return await storageOperation(
      "search",
      () => this.#search.search(prepareSearch(query, options), (id) => this.load(id)),
    );
  }

  /**
   * Rebuild the search index from the stored entries, one session per transaction (the
   * store stays usable; a session not yet rebuilt is searched by scanning). Resolves with
   * the number of sessions indexed.
   *
   * @example
   * ```ts
   * import type { SqliteSessionStore } from "@mu/sessions/stores/sqlite";
   * declare const store: SqliteSessionStore;
   * const sessions = await store.rebuildSearchIndex({ signal: AbortSignal.timeout(60_000) });
   * ```
   */
  async rebuildSearchIndex(options: { signal?: AbortSignal } = {}): Promise<number> {
    return await storageOperation("rebuildSearchIndex", () => this.#search.rebuild(options.signal));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#search.close();
    this.#lazy.close();
    this.#closed = true;
    this.#statements.clear();
    await storageOperation("close", () => this.#db.close());
  }

  #statement(sql: string): SqliteStatement {
    let statement = this.#statements.get(sql);
    if (!statement) this.#statements.set(sql, statement = this.#db.prepare(sql));
    return statement;
  }

  #get(sql: string, ...params: SqliteValue[]): Record<string, unknown> | undefined {
    return this.#statement(sql).get(...params);
  }

  /**
   * A write: `prepare` serialises everything outside the transaction (a value JSON cannot
   * encode rejects before anything starts) and returns the body run under the write lock.
   */
  async #write<T>(what: string, prepare: () => () => T): Promise<T> {
    const body = await storageOperation(what, prepare);
    return await storageOperation(what, () => sqliteTransaction(this.#db, body));
  }

  /** Header and entry rows of one session, read in one snapshot. */
  async #read(what: string, sessionId: string) {
    const statement = this.#statementSource;
    return await storageOperation(
      what,
      () => sqliteTransaction(this.#db, () => readSessionRows(statement, sessionId), "DEFERRED"),
    );
  }
}

guardStoreClass(SqliteSessionStore, ["rebuildSearchIndex"]);
