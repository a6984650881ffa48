/**
 * The body of the PostgreSQL store's `append` (`store.ts`), run in its transaction: under
 * the session's row lock, skip the entries already stored byte for byte (another id's
 * content rejects), refuse a parent cycle closed through an entry stored before its parent,
 * then write the rest and fold them into the session's listing.
 *
 * @module
 */
import { listingToInfo } from "../../src/_listing.ts";
import { decodeHeader, decodeListing, foldEntries } from "../../src/_records.ts";
import { assertNoCycleAcrossAppends, newEntries } from "../../src/guarded_store.ts";
import type { SessionEntry } from "../../src/schema.ts";
import {
  decoding,
  type EntryRows,
  insertEntries,
  PREPARED,
  type Runner,
  toEntryRows,
} from "./_rows.ts";
import { lockSession } from "./_sessions_table.ts";

/** Append `given` (encoded as `givenRows`) to `sessionId` in schema `s`, inside `tx`. */
export async function appendEntries(
  tx: Runner,
  s: string,
  sessionId: string,
  given: readonly SessionEntry[],
  givenRows: EntryRows,
): Promise<void> {
  if (given.length === 0) {
    await lockSession(tx, s, sessionId, "id"); // a missing session still rejects
    return;
  }
  // Ids already stored, read under the session's row lock (`entries_by_entry_id`): the
  // two statements go out together and run in order, the lock taken first.
  // With them, the new ids a stored entry names as its parent (`entries_by_parent`): a
  // parent missing when that entry was written, through which a cycle could close.
  const ids = given.map((entry) => entry.id);
  const [locked, found, named] = await Promise.all([
    lockSession(tx, s, sessionId, "header, listing, next_seq"),
    tx.unsafe(
      `SELECT entry_id, json FROM ${s}.entries
         WHERE session_id = $1 AND entry_id = ANY($2::text[])`,
      [sessionId, ids],
    ),
    tx.unsafe(
      `SELECT DISTINCT parent_id FROM ${s}.entries
         WHERE session_id = $1 AND parent_id = ANY($2::text[])`,
      [sessionId, ids],
    ),
  ]);
  const stored = new Map(found.map((row) => [String(row.entry_id), String(row.json)]));
  const entries = newEntries(sessionId, given, (id) => stored.get(id));
  if (entries.length === 0) return;
  if (named.length > 0) {
    const dangling = new Set(named.map((row) => String(row.parent_id)));
    const links = await tx.unsafe(
      `SELECT entry_id, parent_id FROM ${s}.entries WHERE session_id = $1 ORDER BY seq`,
      [sessionId],
    );
    const parents = new Map(
      links.map((row) => [String(row.entry_id), row.parent_id as string | null]),
    );
    assertNoCycleAcrossAppends(sessionId, entries, dangling, (id) => parents.get(id));
  }
  const rows = entries.length === given.length ? givenRows : toEntryRows(entries);
  // Folded from the state read under the row lock, so no writer loses another's update.
  const listing = foldEntries(decodeListing(locked.listing, decoding(sessionId)), entries);
  const header = decodeHeader(locked.header, decoding(sessionId));
  const first = Number(locked.next_seq);
  // The update follows the rows in the same round trip where it can (`insertEntries`);
  // if the insert fails the update fails with it.
  const update = () =>
    tx.unsafe(
      `UPDATE ${s}.sessions SET listing = $2, modified = $3, next_seq = $4,
         change = nextval('${s}.change_seq') WHERE id = $1`,
      [
        sessionId,
        JSON.stringify(listing),
        listingToInfo(header, listing).modified.getTime(),
        first + entries.length,
      ],
      PREPARED,
    );
  await insertEntries(tx, s, sessionId, first, rows, { after: update });
}
