/**
 * The SQLite search index's write queue (schema step 8): a write of fewer than
 * `QUEUE_FLUSH_AT` entries writes its index rows (`search_docs`) and queues their ids in
 * the same transaction; the FTS5 texts of queued rows are written a batch at a time, by the
 * write that fills the queue, and before every search. Larger writes are a batch already
 * and write their texts at once.
 *
 * Why: FTS5 writes a new segment of its index at every commit, with every distinct token
 * of the texts committed (about 600 trigrams for an entry of 1,800 characters), and merges
 * segments as they pile up. One entry per transaction made appends with the index cost
 * 2.3-2.7 times those without it at SQLite's default durability and 3.7-4.6 times with
 * synchronous=NORMAL; a segment of 64 rows shares its tokens' keys and pages.
 *
 * A queued row is part of the index as far as results go: a search writes the queue out
 * first, and when that fails, the queued rows' sessions are marked pending (searched by
 * scanning, indexed again before the next search), as a failure to index in a write does.
 *
 * @module
 */
import { decodeRecord } from "../../src/records.ts";
import type { SessionEntry } from "../../src/schema.ts";
import { fieldText } from "../../src/search.ts";
import type { SearchRole } from "../../src/search_text.ts";
import type { SqliteStatement } from "./_schema.ts";

/** Queued rows that make an append write the queue's texts. */
export const QUEUE_FLUSH_AT = 64;

/** Sessions with queued rows (SQL). */
export const QUEUED_SESSIONS =
  "SELECT d.session_id FROM search_queue q JOIN search_docs d ON d.id = q.id";

/**
 * Write one index row's text into both FTS5 tables (`id`: its `search_docs` id; omitted:
 * the row just inserted).
 *
 * @example
 * ```ts
 * import type { SqliteStatement } from "./_schema.ts";
 * import { writeText } from "./_search_queue.ts";
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
 * import { wordsText } from "./_search_queue.ts";
 * wordsText("𝐱foo"); // " foo"
 * ```
 */
export function wordsText(text: string): string {
  return text.replace(ASTRAL, " ");
}

const ASTRAL = /[\u{10000}-\u{10FFFF}]/gu;

/** Queue the index row just inserted. */
export function queueLast(statement: (sql: string) => SqliteStatement): void {
  statement("INSERT INTO search_queue (id) VALUES (last_insert_rowid())").run();
}

/** How many rows are queued. */
export function queued(statement: (sql: string) => SqliteStatement): number {
  return Number(statement("SELECT count(*) AS n FROM search_queue").get()?.n ?? 0);
}

/**
 * Write the queued rows' texts (read back from their entries, folded as `indexText` does)
 * and empty the queue. Throws when a write fails: the caller undoes its part.
 */
export function flushQueue(
  statement: (sql: string) => SqliteStatement,
  indexText: (text: string) => string,
): void {
  const rows = statement(
    `SELECT q.id, d.role, d.session_id, e.json FROM search_queue q
     JOIN search_docs d ON d.id = q.id
     JOIN entries e ON e.session_id = d.session_id AND e.seq = d.seq ORDER BY q.id`,
  ).all();
  let json: unknown;
  let entry: SessionEntry | undefined;
  for (const row of rows) {
    // An entry's roles are consecutive rows: decode its JSON once.
    if (entry === undefined || json !== row.json) {
      entry = decodeRecord<SessionEntry>(row.json, 0, { source: `sqlite:${row.session_id}` });
      json = row.json;
    }
    writeText(statement, indexText(fieldText(entry, row.role as SearchRole)), Number(row.id));
  }
  statement("DELETE FROM search_queue").run();
}
