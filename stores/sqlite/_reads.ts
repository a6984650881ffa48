/**
 * The SQLite store's reads that need no path planning: the listing's `sessions` rows (no
 * entry row is read to list), the change tokens, and a whole session's rows in commit order
 * (at once, or streamed in parts).
 * Each runs inside the caller's `storageOperation` (and, for a whole session, its read
 * transaction); the partial reads are in `_context.ts`.
 *
 * @module
 */
import { SessionNotFoundError } from "../../src/errors.ts";
import { decodeHeader, decodeRecord } from "../../src/_records.ts";
import { CURRENT_SESSION_VERSION, type SessionEntry } from "../../src/schema.ts";
import type { ListOptions, LoadedSession } from "../../src/store.ts";
import type { StatementSource } from "./_context.ts";
import type { SqliteValue } from "./_schema.ts";

/**
 * The `sessions` rows a listing folds (`listRecords`), newest first.
 *
 * @example
 * ```ts
 * import { listingRows } from "./_reads.ts";
 * import type { StatementSource } from "./_context.ts";
 * declare const statement: StatementSource;
 * listingRows(statement, { cwd: "/work" }).map((row) => row.id);
 * ```
 */
export function listingRows(
  statement: StatementSource,
  options: ListOptions,
): { id: string; header: unknown; listing: unknown }[] {
  const where: string[] = [];
  const params: SqliteValue[] = [];
  if (options.cwd !== undefined) {
    where.push("cwd = ?");
    params.push(options.cwd);
  }
  if (!options.includeInternal) where.push("internal = 0");
  const sql = `SELECT id, header, listing FROM sessions${
    where.length ? ` WHERE ${where.join(" AND ")}` : ""
  } ORDER BY modified DESC, created_at DESC, id`;
  return statement(sql).all(...params).map((row) => ({
    id: String(row.id),
    header: row.header,
    listing: row.listing,
  }));
}

/**
 * A token that changes with every commit touching the session (its last entry position
 * and header), or without an id with every commit by any connection: SQLite's
 * `data_version` counts other connections' commits, `total_changes()` this one's.
 *
 * @example
 * ```ts
 * import { readChangeToken } from "./_reads.ts";
 * import type { StatementSource } from "./_context.ts";
 * declare const statement: StatementSource;
 * readChangeToken(statement, "s1"); // "41:123"
 * ```
 */
export function readChangeToken(statement: StatementSource, sessionId?: string): string {
  if (sessionId === undefined) {
    const version = statement("PRAGMA data_version").get();
    const own = statement("SELECT total_changes() AS n").get();
    return `${Object.values(version ?? {})[0]}:${own?.n}`;
  }
  const row = statement(
    "SELECT (SELECT MAX(seq) FROM entries WHERE session_id = ?) AS seq, header FROM sessions WHERE id = ?",
  ).get(sessionId, sessionId);
  if (!row) throw new SessionNotFoundError(sessionId);
  return `${row.seq}:${String(row.header).length}`;
}

/**
 * The header text and entry rows of one session, in commit order (run it in one read
 * transaction so both come from one snapshot).
 *
 * @example
 * ```ts
 * import { readSessionRows } from "./_reads.ts";
 * import type { StatementSource } from "./_context.ts";
 * declare const statement: StatementSource;
 * const { headerText, rows } = readSessionRows(statement, "s1");
 * ```
 */
export function readSessionRows(
  statement: StatementSource,
  sessionId: string,
): { headerText: string; rows: Record<string, unknown>[] } {
  const row = statement("SELECT header FROM sessions WHERE id = ?").get(sessionId);
  if (!row) throw new SessionNotFoundError(sessionId);
  const headerText = String(row.header);
  const rows = statement("SELECT json FROM entries WHERE session_id = ? ORDER BY seq")
    .all(sessionId);
  return { headerText, rows };
}

/** Rows read per statement of a streamed session: parts gather pages up to their size. */
const PAGE_ROWS = 256;

/**
 * The session in parts of about `batchChars` characters of entry JSON, paged by `seq` (one
 * short read transaction per page, so writers are not held off): each entry keeps its
 * stored text, as a whole load with it would. Appends landing meanwhile come at the end.
 *
 * @example
 * ```ts
 * import { streamSessionRows } from "./_reads.ts";
 * import type { StatementSource } from "./_context.ts";
 * declare const statement: StatementSource;
 * declare const inTransaction: <T>(read: () => T) => Promise<T>;
 * for await (const part of streamSessionRows(statement, inTransaction, "s1", 1 << 20)) {
 *   console.log(part.entries.length);
 * }
 * ```
 */
export async function* streamSessionRows(
  statement: StatementSource,
  inTransaction: <T>(read: () => T) => Promise<T>,
  sessionId: string,
  batchChars: number,
): AsyncGenerator<LoadedSession> {
  const options = { source: `sqlite:${sessionId}`, keepText: true };
  const page = (after: number) =>
    statement(
      "SELECT seq, json FROM entries WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?",
    ).all(sessionId, after, PAGE_ROWS);
  const first = await inTransaction(() => {
    const row = statement("SELECT header FROM sessions WHERE id = ?").get(sessionId);
    if (!row) throw new SessionNotFoundError(sessionId);
    return { headerText: row.header, rows: page(-1) };
  });
  const header = decodeHeader(first.headerText, options);
  let rows = first.rows;
  let entries: SessionEntry[] = [];
  let chars = 0;
  let line = 2;
  const part = (): LoadedSession => {
    const taken = entries;
    entries = [];
    chars = 0;
    return { header, entries: taken, sourceVersion: CURRENT_SESSION_VERSION, upgraded: false };
  };
  let handedOut = false;
  while (rows.length > 0) {
    for (const row of rows) {
      entries.push(decodeRecord<SessionEntry>(row.json, line++, options));
      chars += String(row.json).length;
      if (chars >= batchChars) {
        handedOut = true;
        yield part();
      }
    }
    if (rows.length < PAGE_ROWS) break;
    const after = Number(rows.at(-1)!.seq);
    rows = await inTransaction(() => page(after));
  }
  if (entries.length > 0 || !handedOut) yield part();
}
