/**
 * The SQLite store's search index: an FTS5 table with the `trigram` tokenizer (substring
 * matching, so CJK and parts of identifiers are found; present in node:sqlite,
 * better-sqlite3 and sqlite-wasm) over the case-folded texts of `search_text.ts`, one row
 * per role of an entry. The index only narrows candidates: `scoreFolded` decides and
 * scores every one, so hits equal those of the scan (`scanSearch`) on the same data.
 *
 * Tables (schema steps 5, 7 and 8, `_schema.ts`):
 * ```sql
 * search_docs(id INTEGER PRIMARY KEY, session_id, seq, entry_id, role, ts, tkey) -- what a row is
 * search_docs_by_time (tkey DESC, id)  -- candidates newest first (`_walk.ts`)
 * search_fts USING fts5(text, tokenize = 'trigram', detail = 'none') -- rowid = docs id
 * search_words USING fts5(text, tokenize = 'unicode61 ...', content = '') -- score bounds
 * search_backlog(session_id PRIMARY KEY, from_seq)  -- entries from from_seq not indexed yet
 * search_pending(session_id PRIMARY KEY)  -- sessions whose rows are missing or incomplete
 * ```
 * Writes of many entries index them in the same transaction as the entries, inside a
 * savepoint: when indexing fails the savepoint is undone, the entries still commit, and
 * the session is marked pending. Small writes only record their session's backlog in their
 * transaction (`_backlog.ts`), indexed when the writer is idle and before every
 * search. Pending sessions are matched and (re)indexed by the next search a chunk at a time
 * (`_pending.ts`), and searched by scanning until they are; the migrations to steps 5 and 7
 * mark every existing session pending,
 * step 8 fills the word index from the indexed texts.
 *
 * @module
 */
import { SessionFormatError, SessionNotFoundError } from "../../../src/errors.ts";
import { decodeRecord, listRecords } from "../../../src/_records.ts";
import type { SessionEntry } from "../../../src/schema.ts";
import {
  fieldText,
  type PreparedSearch,
  type SearchCandidate,
  searchEntries,
  type SearchHit,
  searchTime,
  TopHits,
} from "../../../src/search.ts";
import { type LoadedSession, throwIfAborted } from "../../../src/store.ts";
import { foldSearchText } from "../../../src/_search_query.ts";
import { searchFields } from "../../../src/search_text.ts";
import type { SqliteStatement } from "../_schema.ts";
import type { SqliteStoreOptions } from "../_options.ts";
import { indexedForm, sessionFilter } from "./_sql.ts";
import { type SqliteHitRef, walkCandidates } from "./_walk.ts";
import { WORDS_TOKENIZER } from "./_bound.ts";
import { BACKLOG_SESSIONS, SearchBacklog, writeText } from "./_backlog.ts";
import { PendingIndexer } from "./_pending.ts";

export type { SqliteHitRef };

/** What the index needs of the store's connection. */
export interface SearchConnection {
  statement(sql: string): SqliteStatement;
  exec(sql: string): void;
  /** Run `fn` in a write transaction. */
  transaction<T>(fn: () => T): T;
}

/** Schema step 5: the search tables; every existing session starts pending. */
export const SEARCH_MIGRATION: readonly string[] = [
  `CREATE TABLE search_docs (id INTEGER PRIMARY KEY, session_id TEXT NOT NULL,
    seq INTEGER NOT NULL, entry_id TEXT NOT NULL, role TEXT NOT NULL, ts TEXT NOT NULL)`,
  `CREATE INDEX search_docs_by_session ON search_docs (session_id, seq)`,
  // detail = 'none': no positions, a fraction of the size; substrings are looked up as
  // an AND of their trigrams, and the shared matcher then checks every candidate exactly.
  `CREATE VIRTUAL TABLE search_fts USING fts5(text, tokenize = 'trigram', detail = 'none')`,
  `CREATE TABLE search_pending (session_id TEXT PRIMARY KEY NOT NULL)`,
  `INSERT INTO search_pending (session_id) SELECT id FROM sessions`,
];

/**
 * Schema step 7: rows carry their hit-order time (`tkey`, see `_walk.ts`) under an
 * index walked newest first, and texts are indexed with whitespace runs collapsed
 * (`indexText`). Both change every row: the index is emptied and every session marked
 * pending, to be indexed again before the next search (searched by scanning until then).
 */
export const SEARCH_ORDER_MIGRATION: readonly string[] = [
  `ALTER TABLE search_docs ADD COLUMN tkey INTEGER NOT NULL DEFAULT 0`,
  `CREATE INDEX search_docs_by_time ON search_docs (tkey DESC, id)`,
  `DELETE FROM search_fts`,
  `DELETE FROM search_docs`,
  `INSERT OR IGNORE INTO search_pending (session_id) SELECT id FROM sessions`,
];

/**
 * Characters outside the BMP except the emoji blocks U+1F300-U+1FAFF (symbols only, token
 * breaks to unicode61 as to `wordsText`), as a `GLOB` class.
 */
const ASTRAL_WORD_CHARS = "\u{10000}-\u{1F2FF}\u{1FB00}-\u{10FFFF}";

/**
 * Schema step 8: the word index (`_bound.ts`), contentless (only its tokens are
 * stored), filled from the indexed texts already in `search_fts` (sessions still pending
 * get both when they are indexed); the write queue (replaced in step 10, `_backlog.ts`).
 */
export const SEARCH_WORDS_MIGRATION: readonly string[] = [
  `CREATE TABLE search_queue (id INTEGER PRIMARY KEY)`,
  // Positions (detail = 'full', the default): a phrase is found as consecutive tokens.
  `CREATE VIRTUAL TABLE search_words USING fts5(text, tokenize = "${WORDS_TOKENIZER}",
    content = '', contentless_delete = 1)`,
  // Texts with letters or digits outside the BMP (`wordsText`) are indexed again, whole
  // sessions (emoji break tokens either way).
  `INSERT INTO search_words (rowid, text) SELECT id, c0 FROM search_fts_content
    WHERE c0 NOT GLOB '*[${ASTRAL_WORD_CHARS}]*'`,
  `INSERT OR IGNORE INTO search_pending (session_id) SELECT DISTINCT d.session_id
    FROM search_docs d JOIN search_fts_content c ON c.id = d.id
    WHERE c.c0 GLOB '*[${ASTRAL_WORD_CHARS}]*'`,
];

/**
 * The text FTS indexes: folded (as the matcher reads it) with every whitespace run as one
 * space, so a phrase (words with any whitespace between them) is one substring of it.
 * Scores are unchanged: whitespace is no word character either way.
 */
export function indexText(text: string): string {
  return indexedForm(foldSearchText(text).text.replace(/\s+/g, " "));
}

/**
 * Index maintenance and candidate queries over the store's connection. Every method runs
 * inside a transaction the store opened (writes) or is a single statement (reads).
 */
export class SqliteSearchIndex {
  readonly #statement: (sql: string) => SqliteStatement;
  readonly #exec: (sql: string) => void;
  readonly #transaction: <T>(fn: () => T) => T;

  readonly #deferAbove: number;
  readonly #backlog: SearchBacklog;
  readonly #pending: PendingIndexer;

  /**
   * `deferSearchIndexAbove`: writes of more entries only mark the session pending;
   * `searchIndexIdleMs`: when the backlog is indexed (`IdleIndexer`).
   */
  constructor(connection: SearchConnection, options: SqliteStoreOptions = {}) {
    this.#deferAbove = options.deferSearchIndexAbove ?? Infinity;
    this.#backlog = new SearchBacklog({
      ...connection,
      index: (sessionId, seq, entry) => this.#insert(sessionId, seq, [entry]),
    }, options.searchIndexIdleMs);
    this.#statement = connection.statement;
    this.#exec = connection.exec;
    this.#transaction = connection.transaction;
    this.#pending = new PendingIndexer({
      ...connection,
      isPending: (sessionId) => this.isPending(sessionId),
      removeRows: (sessionId) => this.#removeRows(sessionId),
      index: (sessionId, seq, entry) => this.#insert(sessionId, seq, [entry]),
      listable: (sessionId) => this.#listable(sessionId),
    });
  }

  /** The connection is closing: index the backlog now, no more idle turns. */
  close(): void {
    this.#backlog.close();
  }

  /**
   * A search: collect candidates from FTS, match and index the pending sessions a chunk at
   * a time (`_pending.ts`, reporting partial results), scan what that could not read and
   * the backlog a read-only connection could not index (through `load`), then make the kept
   * hits' snippets.
   */
  async search(
    prepared: PreparedSearch,
    load: (sessionId: string) => Promise<LoadedSession>,
  ): Promise<SearchHit[]> {
    const signal = prepared.options.signal;
    throwIfAborted(signal);
    const backlogIndexed = this.#backlog.indexAll();
    const pending = this.#pendingOrNone(prepared);
    const top = new TopHits<SqliteHitRef>(prepared.limit);
    this.collect(prepared, top, backlogIndexed);
    const finish = (kept: TopHits) =>
      kept.finish(
        prepared.query,
        (candidate) => this.textOf(candidate as SearchCandidate<SqliteHitRef>),
      );
    const unread = pending.length
      ? await this.#pending.run(pending, prepared, top as TopHits, finish)
      : [];
    const pendingSet = new Set(pending);
    const backlogged = backlogIndexed
      ? []
      : this.pending(prepared, false).filter((sessionId) => !pendingSet.has(sessionId));
    for (const sessionId of [...unread, ...backlogged]) {
      throwIfAborted(signal);
      let loaded: LoadedSession;
      try {
        loaded = await load(sessionId);
      } catch (error) {
        if (error instanceof SessionNotFoundError || error instanceof SessionFormatError) continue;
        throw error;
      }
      searchEntries(sessionId, loaded.entries, prepared, top as TopHits);
    }
    return await finish(top as TopHits);
  }

  /** The pending sessions the search's filters pass; none when the table cannot be read. */
  #pendingOrNone(prepared: PreparedSearch): string[] {
    try {
      return this.pending(prepared);
    } catch {
      return [];
    }
  }

  /**
   * Empty the index and index every session again, each in its own write transaction;
   * returns the sessions indexed. A failure throws (the sessions not yet indexed stay
   * pending).
   */
  rebuild(signal?: AbortSignal): number {
    throwIfAborted(signal);
    this.#transaction(() => this.clear());
    let done = 0;
    for (const sessionId of this.pending()) {
      throwIfAborted(signal);
      this.#transaction(() => {
        if (!this.isPending(sessionId)) return; // another connection indexed it
        const rows = this.#statement("SELECT json FROM entries WHERE session_id = ? ORDER BY seq")
          .all(sessionId);
        const source = { source: `sqlite:${sessionId}` };
        this.reindex(
          sessionId,
          rows.map((row, i) => decodeRecord<SessionEntry>(row.json, i + 2, source)),
        );
      });
      done++;
    }
    return done;
  }

  /**
   * Index entries just inserted at `firstSeq...` (or, more than `deferAbove` of them, mark
   * the session pending). Never throws for an indexing failure:
   * the index's part is undone and the session marked pending (the entries stay). Only a
   * failure to mark it pending throws, failing the whole write.
   */
  add(sessionId: string, firstSeq: number, entries: readonly SessionEntry[]): void {
    if (entries.length === 0 || this.isPending(sessionId)) return;
    if (entries.length > this.#deferAbove) return this.markPending(sessionId);
    this.#exec("SAVEPOINT search_index");
    try {
      if (!this.#backlog.take(sessionId, firstSeq, entries.length)) {
        this.#insert(sessionId, firstSeq, entries); // a batch of its own: texts at hand
      }
      this.#exec("RELEASE search_index");
    } catch (error) {
      try {
        this.#exec("ROLLBACK TO search_index");
        this.#exec("RELEASE search_index");
      } catch {
        throw error; // SQLite rolled back the whole transaction: the write fails as a whole
      }
      this.markPending(sessionId);
    }
  }

  /** Index rows and texts for `entries`, stored from `firstSeq` on. */
  #insert(sessionId: string, firstSeq: number, entries: readonly SessionEntry[]): void {
    const doc = this.#statement(
      "INSERT INTO search_docs (session_id, seq, entry_id, role, ts, tkey) VALUES (?, ?, ?, ?, ?, ?)",
    );
    entries.forEach((entry, i) => {
      if (typeof entry.id !== "string") return;
      for (const field of searchFields(entry)) {
        const ts = String(entry.timestamp);
        doc.run(sessionId, firstSeq + i, entry.id, field.role, ts, searchTime(ts));
        writeText(this.#statement, indexText(field.text));
      }
    });
  }

  /** Drop a session's rows (delete, replace, reindex). */
  remove(sessionId: string): void {
    this.#removeRows(sessionId);
    this.#statement("DELETE FROM search_pending WHERE session_id = ?").run(sessionId);
  }

  /** Drop a session's index rows and backlog, not its pending mark. */
  #removeRows(sessionId: string): void {
    const docs = "SELECT id FROM search_docs WHERE session_id = ?";
    this.#pending.forget(sessionId);
    this.#statement("DELETE FROM search_backlog WHERE session_id = ?").run(sessionId);
    for (const table of ["search_words", "search_fts"]) {
      this.#statement(`DELETE FROM ${table} WHERE rowid IN (${docs})`).run(sessionId);
    }
    this.#statement("DELETE FROM search_docs WHERE session_id = ?").run(sessionId);
  }

  /** Replace a session's rows with the index of `entries` (its whole, committed list). */
  reindex(sessionId: string, entries: readonly SessionEntry[]): void {
    this.remove(sessionId);
    this.#insert(sessionId, 0, entries); // throws: the caller's transaction rolls back
  }

  isPending(sessionId: string): boolean {
    return this.#statement("SELECT 1 AS x FROM search_pending WHERE session_id = ?")
      .get(sessionId) !== undefined;
  }

  markPending(sessionId: string): void {
    this.#statement("INSERT OR IGNORE INTO search_pending (session_id) VALUES (?)").run(sessionId);
  }

  /** Mark every session pending and empty the index (the start of a rebuild). */
  clear(): void {
    this.#pending.forget();
    this.#exec("DELETE FROM search_fts");
    this.#exec("INSERT INTO search_words (search_words) VALUES ('delete-all')");
    this.#exec("DELETE FROM search_backlog");
    this.#exec("DELETE FROM search_docs");
    this.#exec("INSERT OR IGNORE INTO search_pending (session_id) SELECT id FROM sessions");
  }

  /**
   * Pending sessions, optionally only those passing the search's session filters, and
   * (`backlogIndexed` false) those with a backlog.
   */
  pending(prepared?: PreparedSearch, backlogIndexed = true): string[] {
    const { where, params } = sessionFilter(prepared, "p.session_id");
    return this.#statement(
      // CROSS JOIN: pending sessions are few (usually none); the planner would otherwise
      // scan every session for the filter, on every search.
      `SELECT DISTINCT p.session_id AS id FROM ${pendingSql(backlogIndexed)} p
       CROSS JOIN sessions s ON s.id = p.session_id${where}`,
    ).all(...params).map((row) => String(row.id));
  }

  /** Offer the indexed texts that can match into `top` (`walkCandidates`). */
  collect(prepared: PreparedSearch, top: TopHits<SqliteHitRef>, backlogIndexed = true): void {
    walkCandidates(
      {
        statement: this.#statement,
        listable: (sessionId) => this.#listable(sessionId),
        skipped: `SELECT session_id FROM ${pendingSql(backlogIndexed)}`,
      },
      prepared,
      top,
    );
  }

  /**
   * Whether a listing shows the session (its stored header and listing decode): a session
   * listings skip as unloadable is left out of searches too, as the scan leaves it out.
   */
  #listable(sessionId: string): boolean {
    const row = this.#statement("SELECT header, listing FROM sessions WHERE id = ?").get(sessionId);
    if (!row) return false;
    const record = { id: sessionId, header: row.header, listing: row.listing };
    return listRecords([record], "sqlite", { includeInternal: true }).length === 1;
  }

  /** The original text of a kept candidate, from its entry row. */
  textOf(candidate: SearchCandidate<SqliteHitRef>): string {
    const row = this.#statement("SELECT json FROM entries WHERE session_id = ? AND seq = ?")
      .get(candidate.sessionId, candidate.ref!.seq);
    if (!row) return "";
    const entry = decodeRecord<SessionEntry>(row.json, 0, {
      source: `sqlite:${candidate.sessionId}`,
    });
    return fieldText(entry, candidate.role);
  }
}

/** The sessions the index cannot answer for: pending, and (`backlogIndexed` false) backlogged. */
function pendingSql(backlogIndexed: boolean): string {
  return backlogIndexed
    ? "search_pending"
    : `(SELECT session_id FROM search_pending UNION ${BACKLOG_SESSIONS})`;
}
