/**
 * The PostgreSQL store's statements on its `sessions` table: inserting a session's row (and
 * its origin), locking the row for a write, updating it, reading a session's texts, the listing query and the change token.
 * Separate from `store.ts`, which holds the store's operations and their transactions;
 * these take the runner and the quoted schema and only speak SQL.
 *
 * @module
 */
import type { ListOptions } from "../../src/store.ts";
import type { PostgresClient } from "./_connect.ts";
import { SessionExistsError, SessionNotFoundError } from "../../src/errors.ts";
import { recordOrigin } from "./_origins.ts";
import { PREPARED, type Runner, SESSION_COLUMNS, SESSION_UPDATE } from "./_rows.ts";

/**
 * Insert a new session's row, and its origin when a `mu sync` push creates it (in the same
 * transaction, so no crash leaves it unlabelled); an id already taken writes nothing.
 */
export async function insertSession(
  tx: Runner,
  s: string,
  id: string,
  columns: unknown[],
  nextSeq: number,
  origin: string | undefined,
): Promise<void> {
  const inserted = await tx.unsafe(
    `INSERT INTO ${s}.sessions (id, ${SESSION_COLUMNS}, next_seq)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (id) DO NOTHING
     RETURNING id`,
    [id, ...columns, nextSeq] as string[],
    PREPARED,
  );
  if (inserted.length === 0) throw new SessionExistsError(id);
  if (origin) await recordOrigin(tx, s, id, origin);
}

/** Lock the session's row for this transaction; its selected columns, or not found. */
export async function lockSession(tx: Runner, s: string, sessionId: string, columns: string) {
  const rows = await tx.unsafe(
    `SELECT ${columns} FROM ${s}.sessions WHERE id = $1 FOR UPDATE`,
    [sessionId],
    PREPARED,
  );
  if (rows.length === 0) throw new SessionNotFoundError(sessionId);
  return rows[0];
}

/** Rewrite a session's row (header columns, append position) and draw a new change number. */
export async function updateSession(
  tx: Runner,
  s: string,
  id: string,
  columns: unknown[],
  nextSeq: number,
) {
  await tx.unsafe(
    `UPDATE ${s}.sessions SET ${SESSION_UPDATE}, next_seq = $10,
       change = nextval('${s}.change_seq') WHERE id = $1`,
    [id, ...columns, nextSeq] as string[],
  );
}

/** Header text and entry texts of one session (run it inside a snapshot). */
export async function readSessionTexts(tx: Runner, s: string, sessionId: string) {
  const rows = await tx.unsafe(`SELECT header FROM ${s}.sessions WHERE id = $1`, [
    sessionId,
  ]);
  if (rows.length === 0) throw new SessionNotFoundError(sessionId);
  const entries = await tx.unsafe(
    `SELECT json FROM ${s}.entries WHERE session_id = $1 ORDER BY seq`,
    [sessionId],
  );
  return { headerText: String(rows[0].header), json: entries.map((row) => row.json) };
}

/**
 * The listing rows (id, header, listing, and the change token's parts), filtered by cwd and
 * internal, newest first.
 */
export function listSessionRows(sql: PostgresClient, s: string, options: ListOptions) {
  const where: string[] = [];
  const params: unknown[] = [];
  if (options.cwd !== undefined) where.push(`cwd = $${params.push(options.cwd)}`);
  if (!options.includeInternal) where.push("NOT internal");
  return sql.unsafe(
    `SELECT id, header, listing, next_seq, change FROM ${s}.sessions${
      where.length ? ` WHERE ${where.join(" AND ")}` : ""
    } ORDER BY modified DESC, created_at DESC, id`,
    params as string[],
  );
}

/** The change token of one session, or without an id of the whole store (see `changeToken`). */
export async function changeTokenOf(
  sql: PostgresClient,
  s: string,
  sessionId: string | undefined,
): Promise<string> {
  if (sessionId === undefined) {
    const [row] = await sql.unsafe(
      `SELECT count(*) AS n, coalesce(sum(change), 0) AS sum FROM ${s}.sessions`,
    );
    return `${row.n}:${row.sum}`;
  }
  const rows = await sql.unsafe(
    `SELECT next_seq, change FROM ${s}.sessions WHERE id = $1`,
    [sessionId],
  );
  if (rows.length === 0) throw new SessionNotFoundError(sessionId);
  return rowChangeToken(rows[0]);
}

/** A session's change token from its row: its append position and last change number. */
export function rowChangeToken(row: Record<string, unknown>): string {
  return `${row.next_seq}:${row.change}`;
}

/** The change tokens of `ids`, in order (undefined for an id not stored): one query. */
export async function changeTokensOf(
  sql: PostgresClient,
  s: string,
  ids: readonly string[],
): Promise<(string | undefined)[]> {
  if (ids.length === 0) return [];
  const rows = await sql.unsafe(
    `SELECT id, next_seq, change FROM ${s}.sessions WHERE id = ANY($1::text[])`,
    [ids] as never[],
  );
  const tokens = new Map(rows.map((row) => [String(row.id), rowChangeToken(row)]));
  return ids.map((id) => tokens.get(id));
}
