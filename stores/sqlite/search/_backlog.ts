/**
 * The SQLite search index's backlog (schema step 10): an append of fewer than
 * `BACKLOG_BATCH` entries does not tokenize anything. It records, in its own transaction,
 * that its session has entries not indexed yet (`search_backlog`: the first such `seq`;
 * one row per session, written by the first append after the session was indexed, so
 * later appends write no index page at all). The backlog is indexed
 * - when the writer has been idle for `IDLE_MS` (`IdleIndexer`: `BACKLOG_BATCH` entries a
 *   timer turn, so no turn blocks for long),
 * - before every search (so a search sees every committed entry) and when the store closes,
 * - by an append that finds its session `BACKLOG_BOUND` entries behind (`BACKLOG_BATCH`
 *   of them, bounding both the backlog a search may have to index and that append's cost).
 *
 * Why: indexing an entry costs several times an append. FTS5 tokenizes every text (about
 * 600 trigrams for an entry of 1,800 characters, and the word index's tokens), writes a
 * segment per commit and merges segments; a 64-entry queue written by the append that
 * filled it still left appends several times slower than those without the index
 * (bench/README.md has the figures). Tokenizing one text alone costs more CPU than a whole
 * relaxed append.
 *
 * The backlog commits with its entries, so a crash (or an exit without closing the store)
 * never leaves an entry unsearchable: the next search, on any connection, indexes it. A
 * failure to index it makes its sessions pending (searched by scanning, indexed whole
 * again before the next search), as a failure to index in a write does.
 *
 * @module
 */
import { decodeRecord } from "../../../src/_records.ts";
import type { SessionEntry } from "../../../src/schema.ts";
import type { SqliteStatement } from "../_schema.ts";

/**
 * Entries indexed per idle turn and per over-bound append; writes of at least this many
 * entries are a batch already and are indexed in their own transaction.
 */
export const BACKLOG_BATCH = 64;

/** Unindexed entries of one session at which its appends start indexing them. */
export const BACKLOG_BOUND = 2048;

/** How long the writer must have been idle before the backlog is indexed, in ms. */
export const IDLE_MS = 250;

/** Schema step 10: the backlog replaces step 8's queue; queued sessions are indexed again. */
export const SEARCH_BACKLOG_MIGRATION: readonly string[] = [
  `INSERT OR IGNORE INTO search_pending (session_id)
    SELECT DISTINCT d.session_id FROM search_queue q JOIN search_docs d ON d.id = q.id`,
  `DELETE FROM search_docs WHERE id IN (SELECT id FROM search_queue)`,
  `DROP TABLE search_queue`,
  `CREATE TABLE search_backlog (session_id TEXT PRIMARY KEY NOT NULL,
    from_seq INTEGER NOT NULL) WITHOUT ROWID`,
];

/** Sessions with a backlog (SQL). */
export const BACKLOG_SESSIONS = "SELECT session_id FROM search_backlog";

/** What the backlog needs of the index's connection. */
export interface BacklogConnection {
  statement(sql: string): SqliteStatement;
  exec(sql: string): void;
  transaction<T>(fn: () => T): T;
  /** Write the index rows and texts of one stored entry. */
  index(sessionId: string, seq: number, entry: SessionEntry): void;
}

/** The backlog of one connection's index, and its idle-time indexing. */
export class SearchBacklog {
  readonly #db: BacklogConnection;
  readonly #idle: IdleIndexer;

  /** `idleMs`: see `SqliteStoreOptions.searchIndexIdleMs`. */
  constructor(db: BacklogConnection, idleMs?: number) {
    this.#db = db;
    this.#idle = new IdleIndexer(() => this.#indexIdle(), idleMs);
  }

  /**
   * Inside a write that stored `count` entries from `firstSeq`: record them as backlog, or
   * index some of it (a batch, or a session `BACKLOG_BOUND` behind). False: the write is a
   * batch and its session has no backlog, so the caller indexes its entries now.
   */
  take(sessionId: string, firstSeq: number, count: number): boolean {
    const from = this.#start(sessionId);
    const batch = count >= BACKLOG_BATCH;
    if (from === undefined && batch) return false;
    if (from === undefined) {
      this.#db.statement("INSERT INTO search_backlog (session_id, from_seq) VALUES (?, ?)")
        .run(sessionId, firstSeq);
    } else if (batch) {
      this.#index(sessionId, Infinity); // the batch is part of the backlog
      return true;
    } else if (firstSeq + count - from >= BACKLOG_BOUND) {
      this.#index(sessionId, BACKLOG_BATCH);
    }
    this.#idle.wrote();
    return true;
  }

  /**
   * Index the whole backlog (before a search); when that fails, its sessions become
   * pending. False when even that failed (a read-only connection): the search then scans
   * them.
   */
  indexAll(): boolean {
    try {
      if (this.#sessions().length === 0) return true;
      this.#db.transaction(() => {
        for (const sessionId of this.#sessions()) this.#index(sessionId, Infinity);
      });
      return true;
    } catch {
      try {
        this.#db.transaction(() => {
          this.#db.exec(`INSERT OR IGNORE INTO search_pending (session_id) ${BACKLOG_SESSIONS}`);
          this.#db.exec("DELETE FROM search_backlog");
        });
        return true;
      } catch {
        return false;
      }
    }
  }

  /**
   * The connection is closing: index the backlog now (an import's many small sessions are
   * one batch here), no more idle turns. Never throws: what cannot be indexed stays for the
   * next connection's search.
   */
  close(): void {
    this.#idle.stop();
    this.indexAll();
  }

  /** An idle turn: index part of one session's backlog; true while more is left. */
  #indexIdle(): boolean {
    // A failure (busy, read-only) throws: the backlog waits for the next write or search.
    return this.#db.transaction(() => {
      const [sessionId] = this.#sessions(1);
      if (sessionId !== undefined) this.#index(sessionId, BACKLOG_BATCH);
      return this.#sessions(1).length > 0;
    });
  }

  /** The first unindexed `seq` of a session, or `undefined` when it has no backlog. */
  #start(sessionId: string): number | undefined {
    const row = this.#db.statement("SELECT from_seq FROM search_backlog WHERE session_id = ?")
      .get(sessionId);
    return row === undefined ? undefined : Number(row.from_seq);
  }

  /** Sessions with a backlog (at most `limit`). */
  #sessions(limit = -1): string[] {
    return this.#db.statement(`${BACKLOG_SESSIONS} LIMIT ?`).all(limit)
      .map((row) => String(row.session_id));
  }

  /**
   * Index up to `limit` entries of a session's backlog, oldest first; its backlog row goes
   * when nothing is left. Throws when a write fails: the caller undoes its part.
   */
  #index(sessionId: string, limit: number): void {
    const from = this.#start(sessionId);
    if (from === undefined) return;
    const rows = this.#db.statement(
      "SELECT seq, json FROM entries WHERE session_id = ? AND seq >= ? ORDER BY seq LIMIT ?",
    ).all(sessionId, from, Number.isFinite(limit) ? limit : -1);
    const source = { source: `sqlite:${sessionId}` };
    for (const row of rows) {
      const seq = Number(row.seq);
      this.#db.index(sessionId, seq, decodeRecord<SessionEntry>(row.json, seq + 2, source));
    }
    if (rows.length < limit) {
      this.#db.statement("DELETE FROM search_backlog WHERE session_id = ?").run(sessionId);
    } else {
      this.#db.statement("UPDATE search_backlog SET from_seq = ? WHERE session_id = ?")
        .run(Number(rows[rows.length - 1].seq) + 1, sessionId);
    }
  }
}

/**
 * Write one index row's text into both FTS5 tables (`id`: its `search_docs` id; omitted:
 * the row just inserted).
 *
 * @example
 * ```ts
 * import type { SqliteStatement } from "../_schema.ts";
 * import { writeText } from "./_backlog.ts";
 * declare const statement: (sql: string) => SqliteStatement;
 * writeText(statement, "call refreshtoken()", 7);
 * ```
 */
export function writeText(
  statement: (sql: string) => SqliteStatement,
  text: string,
  id?: number,
): void {
  const rowid = id === undefined ? "last_insert_rowid()" : "?";
  const ids = id === undefined ? [] : [id];
  statement(`INSERT INTO search_fts (rowid, text) VALUES (${rowid}, ?)`).run(...ids, text);
  // last_insert_rowid() is still the doc's: an FTS5 insert sets it to the rowid given.
  statement(`INSERT INTO search_words (rowid, text) VALUES (${rowid}, ?)`)
    .run(...ids, wordsText(text));
}

/**
 * The text the word index tokenizes: characters outside the BMP as spaces. The matcher reads
 * one UTF-16 unit at a time (`isWordChar`), so a surrogate is never a word character to it,
 * while unicode61 would make a letter outside the BMP part of a token.
 *
 * @example
 * ```ts
 * import { wordsText } from "./_backlog.ts";
 * wordsText("𝐱foo"); // " foo"
 * ```
 */
export function wordsText(text: string): string {
  return text.replace(ASTRAL, " ");
}

const ASTRAL = /[\u{10000}-\u{10FFFF}]/gu;

/**
 * Runs `step` once writes have stopped for `idleMs`, and again on the next timer turn while
 * it returns true (more is left). The timer never keeps a process alive (unref'd where the
 * runtime can), and a write while it waits pushes it back instead of re-arming it (an
 * append costs one clock read).
 */
export class IdleIndexer {
  readonly #step: () => boolean;
  readonly #idleMs: number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #lastWrite = 0;

  /** `idleMs`: `Infinity` never runs `step`. */
  constructor(step: () => boolean, idleMs = IDLE_MS) {
    this.#step = step;
    this.#idleMs = Math.max(0, idleMs);
  }

  /** A write left a backlog. */
  wrote(): void {
    if (!Number.isFinite(this.#idleMs)) return;
    this.#lastWrite = Date.now();
    if (this.#timer === undefined) this.#arm(this.#idleMs);
  }

  /** No more turns (the store closed). */
  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #arm(ms: number): void {
    this.#timer = setTimeout(() => this.#turn(), ms);
    unrefTimer(this.#timer);
  }

  #turn(): void {
    this.#timer = undefined;
    const idle = Date.now() - this.#lastWrite;
    if (idle < this.#idleMs) return this.#arm(this.#idleMs - idle);
    let more = false;
    try {
      more = this.#step();
    } catch {
      // A failed turn (a read-only or busy database) waits for the next write or search.
    }
    if (more) this.#arm(0);
  }
}

/** Let the process exit while `timer` waits (Node: `unref()`; Deno: `Deno.unrefTimer`). */
function unrefTimer(timer: unknown): void {
  if (typeof timer === "object" && timer !== null && "unref" in timer) {
    (timer as { unref(): void }).unref();
  } else if (typeof timer === "number") {
    (globalThis as { Deno?: { unrefTimer?(id: number): void } }).Deno?.unrefTimer?.(timer);
  }
}
