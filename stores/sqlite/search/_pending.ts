/**
 * The SQLite search's pass over pending sessions (`_search.ts`): sessions whose index is
 * missing (an import of more than `deferSearchIndexAbove` entries, a migrated database)
 * are read in chunks (the first `PENDING_CHUNK` entries, then larger ones while a step
 * stays short: each transaction commit costs, on OPFS most of all); each chunk is matched (as the scan matches:
 * the hits are the scan's) and then indexed in its own write transaction, and the search
 * reports the best hits so far after each chunk. So the first hits of a search that has a
 * large session to index show after one chunk instead of after the whole session, and
 * between chunks the runtime serves other work (the viewer's worker answers other calls).
 *
 * A session stays pending until its last chunk is indexed: until then searches skip its
 * index rows and match its entries instead. The pass remembers how far it indexed each
 * session, so a search that is aborted (a new query) leaves its work for the next one,
 * which then only matches the entries already indexed and indexes on from there. That
 * memory is checked against the database (still pending, the same last indexed `seq`)
 * before it is used, and a session whose index rows change under it is indexed from the
 * start again.
 *
 * @module
 */
import { SessionFormatError } from "../../../src/errors.ts";
import { decodeRecord } from "../../../src/_records.ts";
import type { SessionEntry } from "../../../src/schema.ts";
import {
  type PreparedSearch,
  searchEntries,
  type SearchHit,
  TopHits,
} from "../../../src/search.ts";
import { throwIfAborted } from "../../../src/store.ts";
import type { SqliteStatement } from "../_schema.ts";

/** Entries matched and indexed in the first step (a step stays well under a tenth of a second). */
export const PENDING_CHUNK = 256;

/** Most entries per step, reached by doubling while steps stay under `STEP_MS`. */
const MAX_CHUNK = 16 * 1024;

/** A step's time budget in ms: longer steps halve the chunk, shorter ones double it. */
const STEP_MS = 50;

/** The next chunk's size from the last one's and how long its step took. */
function nextChunk(size: number, tookMs: number): number {
  if (tookMs < STEP_MS) return Math.min(size * 2, MAX_CHUNK);
  if (tookMs > 2 * STEP_MS) return Math.max(size >> 1, PENDING_CHUNK);
  return size;
}

/** Least time between two partial results, in ms (the first one goes out at once). */
const REPORT_EVERY_MS = 200;

/** What the pass needs of the index. */
export interface PendingConnection {
  statement(sql: string): SqliteStatement;
  transaction<T>(fn: () => T): T;
  isPending(sessionId: string): boolean;
  /** Drop the session's index rows, leaving it pending. */
  removeRows(sessionId: string): void;
  /** Write the index rows of one stored entry. */
  index(sessionId: string, seq: number, entry: SessionEntry): void;
  /** Whether listings show the session (else it has no hits). */
  listable(sessionId: string): boolean;
}

/** How far a session was indexed: entries before `nextSeq`, the last row at `lastDocSeq`. */
interface Progress {
  nextSeq: number;
  lastDocSeq: number | null;
}

/** The hits of a partial result (makes their snippets). */
export type HitsSnapshot = (kept: TopHits) => Promise<SearchHit[]>;

/** The pending sessions' pass of one index (one connection). */
export class PendingIndexer {
  readonly #db: PendingConnection;
  readonly #progress = new Map<string, Progress>();
  /** Sessions a search is indexing now: a concurrent search only matches them. */
  readonly #busy = new Set<string>();

  constructor(db: PendingConnection) {
    this.#db = db;
  }

  /** The session's index rows are gone or replaced: its remembered progress is void. */
  forget(sessionId?: string): void {
    if (sessionId === undefined) this.#progress.clear();
    else this.#progress.delete(sessionId);
  }

  /**
   * Match and index `sessionIds` into `top`, reporting partial results through the search's
   * `onProgress`. Resolves with the sessions it could not read (the caller scans them
   * through the store's `load`, which skips what cannot be loaded).
   */
  async run(
    sessionIds: readonly string[],
    prepared: PreparedSearch,
    top: TopHits,
    snapshot: HitsSnapshot,
  ): Promise<string[]> {
    const onProgress = prepared.options.onProgress;
    const entries = onProgress ? this.#count(sessionIds) : 0;
    let entriesDone = 0;
    let reportedAt = -Infinity;
    let reportedHits = false;
    const report = async (own: TopHits, force: boolean) => {
      if (!onProgress) return;
      const firstHits = !reportedHits &&
        top.candidates().length + own.candidates().length > 0;
      if (!force && !firstHits && Date.now() - reportedAt < REPORT_EVERY_MS) return;
      reportedAt = Date.now();
      reportedHits ||= firstHits;
      const merged = new TopHits(prepared.limit);
      for (const candidate of [...top.candidates(), ...own.candidates()]) merged.offer(candidate);
      onProgress({ hits: await snapshot(merged), entriesDone, entries });
    };
    await report(new TopHits(prepared.limit), true);
    const unread: string[] = [];
    for (const sessionId of sessionIds) {
      const own = new TopHits(prepared.limit);
      const read = await this.#session(sessionId, prepared, own, async (count) => {
        entriesDone += count;
        await report(own, false);
      });
      if (!read) {
        unread.push(sessionId);
        continue;
      }
      for (const candidate of own.candidates()) top.offer(candidate);
    }
    return unread;
  }

  /** Entries of the sessions (the progress total). */
  #count(sessionIds: readonly string[]): number {
    const count = this.#db.statement("SELECT count(*) AS n FROM entries WHERE session_id = ?");
    return sessionIds.reduce((sum, id) => sum + Number(count.get(id)?.n ?? 0), 0);
  }

  /**
   * One session, chunk by chunk: match each into `own`, then index it unless another search
   * is indexing it or indexing failed. False when an entry cannot be read.
   */
  async #session(
    sessionId: string,
    prepared: PreparedSearch,
    own: TopHits,
    chunkDone: (count: number) => Promise<void>,
  ): Promise<boolean> {
    const signal = prepared.options.signal;
    const listable = this.#db.listable(sessionId);
    const owner = !this.#busy.has(sessionId);
    let indexing = owner;
    if (owner) this.#busy.add(sessionId);
    try {
      let indexFrom = indexing ? this.#resumeAt(sessionId) : Infinity;
      const read = this.#db.statement(
        "SELECT seq, json FROM entries WHERE session_id = ? AND seq >= ? ORDER BY seq LIMIT ?",
      );
      const source = { source: `sqlite:${sessionId}` };
      for (let from = 0, first = true, size = PENDING_CHUNK;; first = false) {
        throwIfAborted(signal);
        const started = Date.now();
        const rows = read.all(sessionId, from, size);
        const seqs = rows.map((row) => Number(row.seq));
        let entries: SessionEntry[];
        try {
          entries = rows.map((row, i) => decodeRecord<SessionEntry>(row.json, seqs[i] + 2, source));
        } catch (error) {
          if (error instanceof SessionFormatError) return false;
          throw error;
        }
        if (listable) searchEntries(sessionId, entries, prepared, own);
        // Indexed before anything is awaited: an append meanwhile is not indexed (its
        // session is pending), so "last" must still hold when the pending mark goes.
        const last = rows.length < size;
        if (indexing && (seqs.length === 0 || seqs.at(-1)! >= indexFrom)) {
          indexing = this.#indexChunk(sessionId, seqs, entries, {
            from: indexFrom,
            fresh: first && indexFrom === 0,
            last,
          });
          if (!indexing) indexFrom = Infinity;
        }
        size = nextChunk(size, Date.now() - started);
        await chunkDone(rows.length);
        if (last) return true;
        from = seqs.at(-1)! + 1;
        await nextTurn();
      }
    } finally {
      if (owner) this.#busy.delete(sessionId);
    }
  }

  /**
   * Where indexing a session resumes: where an earlier search left it when the database
   * still agrees, else 0 (its rows are dropped with the first chunk).
   */
  #resumeAt(sessionId: string): number {
    const progress = this.#progress.get(sessionId);
    if (!progress) return 0;
    if (this.#db.isPending(sessionId) && this.#lastDocSeq(sessionId) === progress.lastDocSeq) {
      return progress.nextSeq;
    }
    this.#progress.delete(sessionId);
    return 0;
  }

  #lastDocSeq(sessionId: string): number | null {
    const row = this.#db.statement("SELECT max(seq) AS seq FROM search_docs WHERE session_id = ?")
      .get(sessionId);
    return row?.seq === null || row?.seq === undefined ? null : Number(row.seq);
  }

  /**
   * Index the chunk's entries from `at.from` on, in one transaction (`at.fresh`: first
   * dropping the session's old rows); the last chunk ends the session's pending state. False when the session is no longer pending (another
   * connection indexed it) or the write failed: it stays pending and the search goes on
   * matching it.
   */
  #indexChunk(
    sessionId: string,
    seqs: readonly number[],
    entries: readonly SessionEntry[],
    at: { from: number; fresh: boolean; last: boolean },
  ): boolean {
    try {
      return this.#db.transaction(() => {
        if (!this.#db.isPending(sessionId)) return false;
        if (at.fresh) this.#db.removeRows(sessionId);
        entries.forEach((entry, i) => {
          if (seqs[i] >= at.from) this.#db.index(sessionId, seqs[i], entry);
        });
        if (at.last) {
          this.#db.statement("DELETE FROM search_pending WHERE session_id = ?").run(sessionId);
          this.#progress.delete(sessionId);
        } else {
          this.#progress.set(sessionId, {
            nextSeq: seqs.at(-1)! + 1,
            lastDocSeq: this.#lastDocSeq(sessionId),
          });
        }
        return true;
      });
    } catch {
      this.#progress.delete(sessionId);
      return false;
    }
  }
}

/** Let the runtime run other tasks (a timer turn, so messages and timers get theirs). */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
