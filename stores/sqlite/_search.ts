/**
 * The SQLite store's search index: an FTS5 table with the `trigram` tokenizer (substring
 * matching, so CJK and parts of identifiers are found; present in node:sqlite,
 * better-sqlite3 and sqlite-wasm) over the case-folded texts of `search_text.ts`, one row
 * per role of an entry. The index only narrows candidates: `scoreFolded` decides and
 * scores every one, so hits equal those of the scan (`scanSearch`) on the same data.
 *
 * Tables (schema step 5, `_schema.ts`):
 * ```sql
 * search_docs(id INTEGER PRIMARY KEY, session_id, seq, entry_id, role, ts) -- what a row is
 * search_fts USING fts5(text, tokenize = 'trigram', detail = 'none') -- rowid = docs id
 * search_pending(session_id PRIMARY KEY)  -- sessions whose rows are missing or incomplete
 * ```
 * Rows are written in the same transaction as the entries, inside a savepoint: when
 * indexing fails the savepoint is undone, the entries still commit, and the session is
 * marked pending. Pending sessions are (re)indexed before the next search and searched by
 * scanning until they are; the migration marks every existing session pending.
 *
 * @module
 */
import { SessionFormatError, SessionNotFoundError } from "../../src/errors.ts";
import { decodeRecord, listRecords } from "../../src/records.ts";
import type { SessionEntry } from "../../src/schema.ts";
import {
  fieldText,
  type PreparedSearch,
  type SearchCandidate,
  searchEntries,
  type SearchHit,
  TopHits,
} from "../../src/search.ts";
import { type LoadedSession, throwIfAborted } from "../../src/store.ts";
import { foldSearchText, maxSearchScore, scoreFolded } from "../../src/search_query.ts";
import { searchFields } from "../../src/search_text.ts";
import type { SqliteStatement, SqliteValue } from "./_schema.ts";
import {
  ISO,
  isStopRow,
  newestFirst,
  sessionFilter,
  TRIGRAM,
  trigramQuery,
} from "./_search_sql.ts";

/** What the index needs of the store's connection. */
export interface SearchConnection {
  statement(sql: string): SqliteStatement;
  exec(sql: string): void;
  /** Run `fn` in a write transaction. */
  transaction<T>(fn: () => T): T;
}

/** Where a candidate's original text is: the entry row. */
export interface SqliteHitRef {
  seq: number;
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

/** Candidates sorted newest first (at least; 8 per hit asked for), and texts read at once. */
const FIRST_PAGE = 256;
const TEXT_BATCH = 64;

/**
 * Index maintenance and candidate queries over the store's connection. Every method runs
 * inside a transaction the store opened (writes) or is a single statement (reads).
 */
export class SqliteSearchIndex {
  readonly #statement: (sql: string) => SqliteStatement;
  readonly #exec: (sql: string) => void;
  readonly #transaction: <T>(fn: () => T) => T;

  readonly #deferAbove: number;

  /** `deferAbove`: writes of more entries only mark the session pending. */
  constructor(connection: SearchConnection, deferAbove = Infinity) {
    this.#deferAbove = deferAbove;
    this.#statement = connection.statement;
    this.#exec = connection.exec;
    this.#transaction = connection.transaction;
  }

  /**
   * A search: index pending sessions, collect candidates from FTS, scan the sessions still
   * pending (through `load`), then make the kept hits' snippets.
   */
  async search(
    prepared: PreparedSearch,
    load: (sessionId: string) => Promise<LoadedSession>,
  ): Promise<SearchHit[]> {
    const signal = prepared.options.signal;
    throwIfAborted(signal);
    this.#indexPending(prepared, signal, false);
    throwIfAborted(signal);
    const top = new TopHits<SqliteHitRef>(prepared.limit);
    this.collect(prepared, top);
    for (const sessionId of this.pending(prepared)) {
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
    return await top.finish(prepared.query, (candidate) => this.textOf(candidate));
  }

  /** Empty the index and index every session again; resolves with the sessions indexed. */
  rebuild(signal?: AbortSignal): number {
    throwIfAborted(signal);
    this.#transaction(() => this.clear());
    return this.#indexPending(undefined, signal, true);
  }

  /**
   * Index pending sessions, each in its own write transaction. A failure leaves the session
   * pending (searched by scanning) unless `strict`, where it throws.
   */
  #indexPending(
    prepared: PreparedSearch | undefined,
    signal: AbortSignal | undefined,
    strict: boolean,
  ): number {
    let done = 0;
    let pending: string[];
    try {
      pending = this.pending(prepared);
    } catch (error) {
      if (strict) throw error;
      return 0;
    }
    for (const sessionId of pending) {
      throwIfAborted(signal);
      try {
        this.#transaction(() => {
          if (!this.isPending(sessionId)) return; // another connection indexed it
          const rows = this.#statement(
            "SELECT json FROM entries WHERE session_id = ? ORDER BY seq",
          ).all(sessionId);
          const source = { source: `sqlite:${sessionId}` };
          this.reindex(
            sessionId,
            rows.map((row, i) => decodeRecord<SessionEntry>(row.json, i + 2, source)),
          );
        });
        done++;
      } catch (error) {
        if (strict) throw error;
      }
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
      this.#insert(sessionId, firstSeq, entries);
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

  #insert(sessionId: string, firstSeq: number, entries: readonly SessionEntry[]): void {
    const doc = this.#statement(
      "INSERT INTO search_docs (session_id, seq, entry_id, role, ts) VALUES (?, ?, ?, ?, ?)",
    );
    const text = this.#statement(
      "INSERT INTO search_fts (rowid, text) VALUES (last_insert_rowid(), ?)",
    );
    entries.forEach((entry, i) => {
      if (typeof entry.id !== "string") return;
      for (const field of searchFields(entry)) {
        doc.run(sessionId, firstSeq + i, entry.id, field.role, String(entry.timestamp));
        text.run(foldSearchText(field.text).text);
      }
    });
  }

  /** Drop a session's rows (delete, replace, reindex). */
  remove(sessionId: string): void {
    this.#statement(
      "DELETE FROM search_fts WHERE rowid IN (SELECT id FROM search_docs WHERE session_id = ?)",
    ).run(sessionId);
    this.#statement("DELETE FROM search_docs WHERE session_id = ?").run(sessionId);
    this.#statement("DELETE FROM search_pending WHERE session_id = ?").run(sessionId);
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
    this.#exec("DELETE FROM search_fts");
    this.#exec("DELETE FROM search_docs");
    this.#exec("INSERT OR IGNORE INTO search_pending (session_id) SELECT id FROM sessions");
  }

  /** Pending sessions, optionally only those passing the search's session filters. */
  pending(prepared?: PreparedSearch): string[] {
    const { where, params } = sessionFilter(prepared, "p.session_id");
    return this.#statement(
      `SELECT p.session_id AS id FROM search_pending p JOIN sessions s ON s.id = p.session_id${where}`,
    ).all(...params).map((row) => String(row.id));
  }

  /**
   * Offer the indexed texts that can match into `top`, newest first, and stop once no
   * older one can be kept ({@link TopHits.settled}). FTS narrows by the query's words of
   * three or more characters; a query with none reads the texts containing its longest
   * word (instr); {@link scoreFolded} then checks each one exactly. The newest candidates
   * are sorted without their texts, which are read in small batches for the rows visited
   * only: a common word costs a few dozen texts, not every one. A query that does not stop
   * there reads the other candidates' texts in one unsorted pass.
   */
  collect(prepared: PreparedSearch, top: TopHits<SqliteHitRef>): void {
    const positive = prepared.query.terms.filter((term) => !term.exclude);
    const long = positive.flatMap((term) => term.parts)
      .filter((part) => [...part].length >= TRIGRAM);
    const { where, params } = sessionFilter(prepared, "d.session_id");
    const roles = [...prepared.roles];
    const conditions = [
      `d.role IN (${roles.map(() => "?").join(", ")})`,
      "d.session_id NOT IN (SELECT session_id FROM search_pending)",
    ];
    const bind: SqliteValue[] = [...roles];
    let from = "search_docs d JOIN search_fts f ON f.rowid = d.id";
    if (long.length) {
      from = "search_fts f JOIN search_docs d ON d.id = f.rowid";
      conditions.unshift("search_fts MATCH ?");
      bind.unshift(trigramQuery(long));
    } else {
      for (const term of positive) {
        conditions.push("instr(f.text, ?) > 0");
        bind.push(term.parts.reduce((a, b) => (b.length > a.length ? b : a)));
      }
    }
    const select = "SELECT d.id, d.session_id, d.seq, d.entry_id, d.role, d.ts";
    const body = `FROM ${from}
      ${where ? `JOIN sessions s ON s.id = d.session_id ${where} AND` : "WHERE"}
      ${conditions.join(" AND ")}`;
    const best = maxSearchScore(prepared.query);
    const listable = new Map<string, boolean>();
    const visit = (row: Record<string, unknown>, text: string | undefined) => {
      const sessionId = String(row.session_id);
      let ok = listable.get(sessionId);
      if (ok === undefined) listable.set(sessionId, ok = this.#listable(sessionId));
      if (!ok || text === undefined) return;
      const score = scoreFolded(text, prepared.query);
      if (score === null || !top.wants(score)) return;
      top.offer({
        sessionId,
        entryId: String(row.entry_id),
        role: row.role as SearchCandidate["role"],
        timestamp: String(row.ts),
        score,
        ref: { seq: Number(row.seq) },
      });
    };
    if (!long.length) {
      // No FTS narrowing: SQLite reads every text for instr anyway, so one pass returns the
      // matching ones with their texts, walked newest first here (a second pass would cost
      // as much as the first).
      const rows = this.#statement(`${select}, ${ISO} AS iso, f.text ${body}`)
        .all(...params, ...bind).sort(newestFirst);
      for (let i = 0; i < rows.length; i++) {
        if ((i & 1023) === 1023) throwIfAborted(prepared.options.signal);
        if (isStopRow(rows[i]) && top.settled(best, String(rows[i].ts))) return;
        visit(rows[i], String(rows[i].text));
      }
      return;
    }
    // The newest candidates first, without their texts. Only timestamps as `toISOString`
    // writes them sort by time as text: rows with any other come first (all visited), then
    // the rest newest first, where the walk stops once no older row can be kept.
    const page = Math.max(FIRST_PAGE, prepared.limit * 8);
    const rows = this.#statement(
      `${select}, ${ISO} AS iso ${body} ORDER BY iso, d.ts DESC, d.id LIMIT ?`,
    ).all(...params, ...bind, page);
    for (let at = 0; at < rows.length; at += TEXT_BATCH) {
      throwIfAborted(prepared.options.signal);
      const batch = rows.slice(at, at + TEXT_BATCH);
      const texts = this.#texts(batch.map((row) => Number(row.id)));
      for (const row of batch) {
        if (isStopRow(row) && top.settled(best, String(row.ts))) return;
        visit(row, texts.get(Number(row.id)));
      }
    }
    if (rows.length < page) return;
    // Best-scoring texts are rare for this query: read the others in one pass, in any order
    // (sorting them again costs more than their texts).
    const seen = JSON.stringify(rows.map((row) => Number(row.id)));
    const rest = this.#statement(
      `${select}, f.text ${body} AND d.id NOT IN (SELECT value FROM json_each(?))`,
    ).all(...params, ...bind, seen);
    for (let i = 0; i < rest.length; i++) {
      if ((i & 1023) === 1023) throwIfAborted(prepared.options.signal);
      visit(rest[i], String(rest[i].text));
    }
  }

  /**
   * The folded texts of index rows, by id. Read from FTS5's content table (its documented
   * layout: `id`, one `cN` per column), three times faster than FTS5's own rowid lookups.
   */
  #texts(ids: readonly number[]): Map<number, string> {
    // The ids as one JSON parameter: one prepared statement for every batch size.
    const rows = this.#statement(
      "SELECT id, c0 AS text FROM search_fts_content WHERE id IN (SELECT value FROM json_each(?))",
    ).all(JSON.stringify(ids));
    return new Map(rows.map((row) => [Number(row.id), String(row.text)]));
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
