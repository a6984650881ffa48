/**
 * Where each session on the server came from: the machine label (host and agent folder)
 * of the `mu sync` push that created it there. Kept in its own `origins` table so that the
 * session's own rows, and so its exported bytes, are exactly what the machine sent. A
 * session created any other way (an import, an agent writing to the server directly) has
 * no row, and is shown with no machine.
 *
 * @module
 */
import { PREPARED, type Runner } from "./_rows.ts";

/**
 * The label each store records for the sessions it creates, beside the store rather than in
 * it, so that `PostgresSessionStore`'s constructor stays as it was.
 */
const labels = new WeakMap<object, string>();

/** Make `store` record `machine` for every session it creates; returns the store. */
export function labelCreates<T extends object>(store: T, machine: string | undefined): T {
  if (machine) labels.set(store, machine);
  return store;
}

/** The label `store` records for sessions it creates, if any. */
export function createdOn(store: object): string | undefined {
  return labels.get(store);
}

/** The migration step that adds the table (appended to `postgresMigrations`). */
export function originsMigration(s: string): readonly string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${s}.origins (
      session_id text PRIMARY KEY REFERENCES ${s}.sessions(id) ON DELETE CASCADE,
      machine text NOT NULL, synced_at bigint NOT NULL)`,
  ];
}

/** Record `machine` as the origin of a session just created (in the creating transaction). */
export async function recordOrigin(
  tx: Runner,
  s: string,
  sessionId: string,
  machine: string,
): Promise<void> {
  await tx.unsafe(
    `INSERT INTO ${s}.origins (session_id, machine, synced_at) VALUES ($1, $2, $3)
     ON CONFLICT (session_id) DO NOTHING`,
    [sessionId, machine, Date.now()] as string[],
    PREPARED,
  );
}

/** Session id -> machine label, for every labelled session (or only `ids`). */
export async function readOrigins(
  sql: Runner,
  s: string,
  ids?: readonly string[],
): Promise<Map<string, string>> {
  const rows = ids === undefined
    ? await sql.unsafe(`SELECT session_id, machine FROM ${s}.origins`)
    : await sql.unsafe(
      `SELECT session_id, machine FROM ${s}.origins WHERE session_id = ANY($1::text[])`,
      [ids as string[]],
    );
  return new Map(rows.map((row) => [String(row.session_id), String(row.machine)]));
}
