/**
 * The SQLite store's entry-row writes, run under the caller's write transaction: inserting
 * rows with their path pointers (`_walk.ts`), and the body of an append (ids already stored
 * dropped, the cycle check across appends, the listing fold kept current from the committed
 * row). The reads are in `_reads.ts` and `_context.ts`.
 *
 * @module
 */
import { SessionNotFoundError } from "../../src/errors.ts";
import { listingToInfo } from "../../src/_listing.ts";
import { decodeHeader, decodeListing, foldEntries } from "../../src/_records.ts";
import type { SessionEntry } from "../../src/schema.ts";
import { assertNoCycleAcrossAppends, newEntries } from "../../src/guarded_store.ts";
import type { StatementSource } from "./_context.ts";
import type { SqliteSearchIndex } from "./search/_search.ts";
import { decoding, type EntryRow } from "./_rows.ts";
import { committedLookup, computeWalks } from "./_walk.ts";

/**
 * Insert rows at `firstSeq`..., with their path pointers (`_walk.ts`). `committed`: the
 * session already has rows (an append), whose pointers the new rows may build on.
 *
 * @example
 * ```ts
 * import { insertEntryRows } from "./_writes.ts";
 * import type { StatementSource } from "./_context.ts";
import type { SqliteSearchIndex } from "./search/_search.ts";
 * declare const statement: StatementSource;
 * insertEntryRows(statement, "s1", 0, [], false);
 * ```
 */
export function insertEntryRows(
  statement: StatementSource,
  sessionId: string,
  firstSeq: number,
  rows: readonly EntryRow[],
  committed: boolean,
): void {
  const lookup = committed ? committedLookup(statement, sessionId) : () => undefined;
  const walks = computeWalks(rows, firstSeq, lookup);
  if (walks.clearCommitted) {
    statement("UPDATE entries SET walk = NULL WHERE session_id = ? AND walk IS NOT NULL")
      .run(sessionId);
  }
  const insert = statement(
    "INSERT INTO entries (session_id, seq, entry_id, parent_id, type, flags, walk, json) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
  );
  rows.forEach((row, i) =>
    insert.run(
      sessionId,
      firstSeq + i,
      row.id,
      row.parentId,
      row.type,
      row.flags,
      walks.cells[i],
      row.json,
    )
  );
}

/**
 * The body of an append, under the write lock: `given` with their serialised `givenRows`
 * (by position); the new ones are inserted, indexed for search, and folded into the listing.
 *
 * @example
 * ```ts
 * import { appendEntryRows } from "./_writes.ts";
 * import type { StatementSource } from "./_context.ts";
import type { SqliteSearchIndex } from "./search/_search.ts";
 * declare const statement: StatementSource;
 * appendEntryRows(statement, { add: () => {} }, "s1", [], []);
 * ```
 */
export function appendEntryRows(
  statement: StatementSource,
  search: Pick<SqliteSearchIndex, "add">,
  sessionId: string,
  given: readonly SessionEntry[],
  givenRows: EntryRow[],
): void {
  const row = statement("SELECT header, listing FROM sessions WHERE id = ?").get(sessionId);
  if (!row) throw new SessionNotFoundError(sessionId);
  // Ids already stored: one indexed lookup each (`entries_by_id`), under the write lock.
  const stored = statement(
    "SELECT json FROM entries WHERE entry_id = ? AND session_id = ? LIMIT 1",
  );
  const entries = newEntries(sessionId, given, (id) => {
    const found = stored.get(id, sessionId);
    return found === undefined ? undefined : String(found.json);
  });
  const fresh = new Set(entries);
  const rows = entries.length === given.length
    ? givenRows
    : givenRows.filter((_, i) => fresh.has(given[i]));
  if (rows.length === 0) return;
  const dangling = danglingIds(statement, sessionId, entries);
  assertNoCycleAcrossAppends(sessionId, entries, dangling, (id) => {
    const found = statement(
      "SELECT parent_id FROM entries WHERE entry_id = ? AND session_id = ? ORDER BY seq DESC LIMIT 1",
    ).get(id, sessionId);
    return found === undefined ? undefined : (found.parent_id as string | null);
  });
  // Fold from the committed state read under the write lock, so concurrent writers in
  // other processes never lose each other's listing updates.
  const listing = foldEntries(decodeListing(row.listing, decoding(sessionId)), entries);
  const header = decodeHeader(row.header, decoding(sessionId));
  const last = statement("SELECT MAX(seq) AS seq FROM entries WHERE session_id = ?")
    .get(sessionId);
  const firstSeq = last?.seq == null ? 0 : Number(last.seq) + 1;
  insertEntryRows(statement, sessionId, firstSeq, rows, true);
  search.add(sessionId, firstSeq, entries);
  statement("UPDATE sessions SET listing = ?, modified = ? WHERE id = ?").run(
    JSON.stringify(listing),
    listingToInfo(header, listing).modified.getTime(),
    sessionId,
  );
}

/**
 * Which of the new entries' ids a stored row names as a parent that was missing when it was
 * written (`entries_dangling` holds only such rows and other rows without path pointers):
 * one probe finds a session has none, the usual answer.
 */
function danglingIds(
  statement: StatementSource,
  sessionId: string,
  entries: readonly SessionEntry[],
): Set<string> {
  const dangling = new Set<string>();
  const any = "SELECT 1 AS found FROM entries WHERE session_id = ? AND walk IS NULL LIMIT 1";
  if (statement(any).get(sessionId) === undefined) return dangling;
  const names = statement(
    "SELECT 1 AS found FROM entries WHERE session_id = ? AND parent_id = ? AND walk IS NULL LIMIT 1",
  );
  for (const { id } of entries) if (names.get(sessionId, id) !== undefined) dangling.add(id);
  return dangling;
}
