/**
 * A shared {@link SessionStore} on a PostgreSQL server, through the `postgres` npm package
 * (postgres.js: Deno, Node and edge runtimes with TCP), for teams whose agents on many
 * machines write into one place.
 *
 * Schema (in its own PostgreSQL schema, default `mu_sessions`; created and migrated by the
 * store, see `_schema.ts`):
 * ```sql
 * sessions(id text PRIMARY KEY, cwd, created_at, modified,  -- epoch ms; listing order
 *          header text,                                    -- exact header JSON
 *          internal, workflow, parent_session_id,
 *          listing text,                                   -- ListingState JSON
 *          next_seq bigint, change bigint)                 -- append position, change token
 * entries(session_id REFERENCES sessions ON DELETE CASCADE, seq, entry_id, parent_id, type,
 *         json text,                                       -- exact entry JSON
 *         flags integer,                                   -- contextFlags, see _context.ts
 *         PRIMARY KEY (session_id, seq))
 * search_text, search_pending; origins                     -- _search.ts; _origins.ts
 * ```
 * Entries keep the JSON text they were written or imported with, so `exportJsonl` is
 * byte-identical. Every write locks its session's row (`SELECT ... FOR UPDATE`) and keeps
 * the listing fold on it current in the same transaction: two writers on one session take
 * turns and each append is all-or-nothing, while writers on different sessions never wait
 * for each other. Listing reads only `sessions` rows; search is one query (`_search.ts`).
 *
 * @module
 */
import { InvalidArgumentError } from "../../src/errors.ts";
import type { ContextLoadingStore, LoadedContext } from "../../src/context_load.ts";
import { toJsonLine } from "../../src/jsonl.ts";
import {
  decodeListing,
  decodeSession,
  encodeSession,
  listRecords,
  recordsToJsonl,
} from "../../src/_records.ts";
import type { SessionEntry, SessionHeader } from "../../src/schema.ts";
import { prepareSearch, type SearchHit, type SearchOptions } from "../../src/search.ts";
import { guardStoreClass } from "../../src/guarded_store.ts";
import type { CreatedSession, ListOptions, LoadedSession, SessionInfo } from "../../src/store.ts";
import {
  type ConnectionTarget,
  connectPostgres,
  describeClient,
  describeTarget,
  type PostgresClient,
  postgresError,
  transaction,
} from "./_connect.ts";
import { readContext } from "./_context.ts";
import { appendEntries } from "./_append.ts";
import { decoding, insertEntries, type Runner, sessionColumns, toEntryRows } from "./_rows.ts";
import { createdOn, labelCreates, readOrigins } from "./_origins.ts";
import { migratePostgresSchema, quoteSchema } from "./_schema.ts";
import { postgresSearch } from "./_search.ts";
import {
  changeTokenOf,
  changeTokensOf,
  insertSession,
  listSessionRows,
  lockSession,
  readSessionTexts,
  rowChangeToken,
  updateSession,
} from "./_sessions_table.ts";

/**
 * Options for {@link openPostgresStore}: a server URL, or a postgres.js client you own.
 *
 * @example
 * ```ts
 * import type { PostgresStoreOptions } from "@mu/sessions/stores/postgres";
 * const options: PostgresStoreOptions = {
 *   url: "postgres://agent@db.internal:5432/sessions",
 *   schema: "team_sessions",
 * };
 * ```
 */
export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database`; the password never appears in errors. */
  url?: string;
  /** An existing postgres.js client instead of `url`; `close()` leaves it open. */
  sql?: PostgresClient;
  /** The PostgreSQL schema holding the tables (default `"mu_sessions"`); created if missing. */
  schema?: string;
  /** Pool size when opening from `url` (default 4). */
  max?: number;
  /** How long to wait for a connection, in seconds, when opening from `url` (default 10). */
  connectTimeoutSeconds?: number;
  /** Recorded as the machine of each session this store creates (`mu sync`; `machines()`). */
  machine?: string;
}

/**
 * Open the PostgreSQL store: connects, creates or migrates the schema (safe when several
 * processes start at once) and resolves once the server answered. A server that cannot be
 * reached rejects with `SessionStorageError` naming user, host, port and database; there is
 * no fallback to another store.
 *
 * @example
 * ```ts
 * import { openPostgresStore } from "@mu/sessions/stores/postgres";
 * const store = await openPostgresStore({ url: "postgres://agent@db.internal/sessions" });
 * const recent = await store.list({ cwd: "/work/repo" });
 * await store.close();
 * ```
 */
export async function openPostgresStore(
  options: PostgresStoreOptions,
): Promise<PostgresSessionStore> {
  const schema = options.schema ?? "mu_sessions";
  quoteSchema(schema);
  if ((options.url === undefined) === (options.sql === undefined)) {
    throw new InvalidArgumentError(
      "openPostgresStore needs exactly one of url or sql",
    );
  }
  const target: ConnectionTarget = options.url !== undefined
    ? describeTarget(options.url)
    : describeClient(options.sql!);
  const owned = options.url !== undefined;
  const sql = options.sql ?? connectPostgres(options.url!, {
    max: options.max ?? 4,
    connectTimeoutSeconds: options.connectTimeoutSeconds ?? 10,
  });
  try {
    await transaction(sql, "", (tx) => migratePostgresSchema(tx, schema));
  } catch (error) {
    if (owned) await sql.end({ timeout: 0 }).catch(() => {});
    throw postgresError("Opening the session store", error, target);
  }
  return labelCreates(new PostgresSessionStore(sql, schema, target, owned), options.machine);
}

/**
 * The PostgreSQL session store (open it with {@link openPostgresStore}). Beyond
 * {@link SessionStore} it has `exportJsonl`, `loadContext` (a context-only load: the server
 * walks the root-to-leaf path) and `changeToken` (for `mu serve` to notice other writers).
 *
 * @example
 * ```ts
 * import { openPostgresStore, type PostgresSessionStore } from "@mu/sessions/stores/postgres";
 * const store: PostgresSessionStore = await openPostgresStore({ url: "postgres://localhost/s" });
 * const { entries } = await store.loadContext("s1"); // the current branch's context range
 * ```
 */
export class PostgresSessionStore implements ContextLoadingStore {
  readonly kind = "postgres";
  readonly #sql: PostgresClient;
  readonly #s: string;
  readonly #target: ConnectionTarget;
  readonly #owned: boolean;
  #closed = false;

  /** Use {@link openPostgresStore}; this expects a migrated schema. */
  constructor(sql: PostgresClient, schema: string, target: ConnectionTarget, owned: boolean) {
    this.#sql = sql;
    this.#s = quoteSchema(schema);
    this.#target = target;
    this.#owned = owned;
  }

  async create(
    header: SessionHeader,
    entries: readonly SessionEntry[] = [],
  ): Promise<CreatedSession> {
    return await this.#write("create", () => {
      const records = encodeSession(header, entries);
      const rows = toEntryRows(entries, records.entries);
      const columns = sessionColumns(header, records.header, records.listing);
      return async (tx) => {
        const origin = createdOn(this);
        // If the session exists, its error rejects first and all rolls back.
        await insertEntries(tx, this.#s, header.id, 0, rows, {
          before: () => insertSession(tx, this.#s, header.id, columns, entries.length, origin),
        });
        return { id: header.id };
      };
    });
  }

  async append(sessionId: string, given: readonly SessionEntry[]): Promise<void> {
    await this.#write("append", () => {
      const givenRows = toEntryRows(given);
      return (tx) => appendEntries(tx, this.#s, sessionId, given, givenRows);
    });
  }

  async load(sessionId: string): Promise<LoadedSession> {
    const { headerText, json } = await this.#read("load", sessionId);
    return decodeSession(headerText, json, decoding(sessionId));
  }

  /** The session as format-4 JSONL, joined from the stored texts (no entry is parsed). */
  async exportJsonl(sessionId: string): Promise<string> {
    const { headerText, json } = await this.#read("exportJsonl", sessionId);
    return recordsToJsonl(headerText, json);
  }

  async replace(header: SessionHeader, entries: readonly SessionEntry[]): Promise<void> {
    await this.#write("replace", () => {
      const records = encodeSession(header, entries);
      const rows = toEntryRows(entries, records.entries);
      const columns = sessionColumns(header, records.header, records.listing);
      return async (tx) => {
        await lockSession(tx, this.#s, header.id, "id");
        await tx.unsafe(`DELETE FROM ${this.#s}.entries WHERE session_id = $1`, [header.id]);
        await updateSession(tx, this.#s, header.id, columns, entries.length);
        await insertEntries(tx, this.#s, header.id, 0, rows);
      };
    });
  }

  async updateHeader(header: SessionHeader): Promise<void> {
    await this.#write("updateHeader", () => {
      const headerText = toJsonLine(header, "header");
      return async (tx) => {
        const locked = await lockSession(tx, this.#s, header.id, "listing, next_seq");
        const listing = decodeListing(locked.listing, decoding(header.id));
        const columns = sessionColumns(header, headerText, listing);
        await updateSession(tx, this.#s, header.id, columns, Number(locked.next_seq));
      };
    });
  }

  async list(options: ListOptions = {}): Promise<SessionInfo[]> {
    const rows = await this.#run("list", (sql) => listSessionRows(sql, this.#s, options));
    for (const row of rows) options.onChangeToken?.(String(row.id), rowChangeToken(row));
    const records = rows.map((row) => ({
      id: String(row.id),
      header: row.header,
      listing: row.listing,
    }));
    return listRecords(records, "postgres", options); // one fold and ordering for every store
  }

  /** A query: the server narrows by trigram index, the shared matcher decides (`_search.ts`). */
  async search(query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
    const prepared = prepareSearch(query, options);
    return await this.#run("search", (sql) => postgresSearch(sql, this.#s, prepared));
  }

  async delete(sessionId: string): Promise<void> {
    await this.#run("delete", (sql) =>
      // Entries go with it (ON DELETE CASCADE), in the same statement's transaction.
      sql.unsafe(`DELETE FROM ${this.#s}.sessions WHERE id = $1`, [sessionId]));
  }

  async has(sessionId: string): Promise<boolean> {
    const found = await this.#run("has", (sql) => changeTokensOf(sql, this.#s, [sessionId]));
    return found[0] !== undefined;
  }

  /**
   * A token that changes with every committed write to the session (its append position
   * and the change number every write draws), or without an id with any write, create or
   * delete in the store (count and sum of those numbers: a later-committing writer that
   * drew a smaller number still changes the sum). Reads only `sessions`.
   *
   * @example
   * ```ts
   * import type { PostgresSessionStore } from "@mu/sessions/stores/postgres";
   * declare const store: PostgresSessionStore;
   * const before = await store.changeToken("s1");
   * // ... another machine appends ...
   * (await store.changeToken("s1")) !== before; // true
   * ```
   */
  async changeToken(sessionId?: string): Promise<string> {
    return await this.#run("changeToken", (sql) => changeTokenOf(sql, this.#s, sessionId));
  }

  /** `changeToken` of each of `sessionIds` (undefined for one not stored), in one query. */
  async changeTokens(sessionIds: readonly string[]): Promise<(string | undefined)[]> {
    return await this.#run("changeTokens", (sql) => changeTokensOf(sql, this.#s, sessionIds));
  }

  /**
   * What the projection of the branch ending at `leafId` needs (see `ContextLoadingStore`):
   * the server walks the path returning ids and context flags only, then sends the JSON of
   * the planned rows alone.
   *
   * @example
   * ```ts
   * import { loadSessionProjection } from "@mu/sessions";
   * import type { PostgresSessionStore } from "@mu/sessions/stores/postgres";
   * declare const store: PostgresSessionStore;
   * const loaded = await store.loadContext("s1"); // what loadSessionProjection reads
   * const projection = await loadSessionProjection(store, "s1");
   * ```
   */
  async loadContext(sessionId: string, leafId?: string | null): Promise<LoadedContext> {
    return await this.#snapshot("loadContext", (tx) => readContext(tx, this.#s, sessionId, leafId));
  }

  /** Session id -> machine label, for sessions a `mu sync` push created here (`_origins.ts`). */
  async machines(ids?: readonly string[]): Promise<Map<string, string>> {
    return await this.#run("machines", (sql) => readOrigins(sql, this.#s, ids));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // Every operation has settled when a caller closes; the short grace only bounds a
    // connection left half-open by a server crash (postgres.js waited the whole timeout).
    if (this.#owned) await this.#sql.end({ timeout: 1 }).catch(() => {});
  }

  /**
   * A write: `prepare` encodes everything before the transaction (a value JSON cannot
   * store rejects before anything is sent) and returns the body run inside it.
   */
  async #write<T>(what: string, prepare: () => (tx: Runner) => Promise<T>): Promise<T> {
    let body: (tx: Runner) => Promise<T>;
    try {
      body = prepare();
    } catch (error) {
      throw postgresError(what, error, this.#target);
    }
    return await this.#run(what, (sql) => transaction(sql, "", body));
  }

  /** Reads that must see one committed state (header and entries together). */
  async #snapshot<T>(what: string, body: (tx: Runner) => Promise<T>): Promise<T> {
    return await this.#run(
      what,
      (sql) => transaction(sql, "ISOLATION LEVEL REPEATABLE READ READ ONLY", body),
    );
  }

  async #run<T>(what: string, operation: (sql: PostgresClient) => PromiseLike<T>): Promise<T> {
    try {
      return await operation(this.#sql);
    } catch (error) {
      throw postgresError(what, error, this.#target);
    }
  }

  /** Header text and entry texts of one session, read in one snapshot. */
  async #read(what: string, sessionId: string) {
    return await this.#snapshot(what, (tx) => readSessionTexts(tx, this.#s, sessionId));
  }
}

guardStoreClass(PostgresSessionStore, ["machines"]);
