/**
 * Search in the PostgreSQL store as a query: the server narrows, the shared matcher decides.
 * Every searchable text (`search_text.ts`) of every entry is a row of `search_text`, case-
 * folded, written in the same transaction as its entries; a `pg_trgm` GIN index serves
 * `LIKE '%part%'` for every part of every wanted term (a necessary condition of a match),
 * cwd / session / internal / role filters run in SQL, and only the candidate rows' texts
 * reach the client, where `matchFolded` checks and scores each exactly as `scanSearch`
 * does. No session is loaded; the original texts of the kept hits (for snippets) are read
 * from their entry rows in one statement.
 *
 * Tables (schema step 2, `_schema.ts`):
 * ```sql
 * search_text(session_id, seq REFERENCES entries ON DELETE CASCADE, role,
 *             entry_id, ts, text)          -- folded text; PRIMARY KEY (session_id, seq, role)
 * search_pending(session_id REFERENCES sessions ON DELETE CASCADE,
 *                from_seq)                 -- rows from from_seq on not indexed yet
 * ```
 * The migration cannot run the extraction (it is TypeScript), so it marks every existing
 * session pending, and a bulk write (`_rows.ts`) marks its rows pending instead of writing
 * their search rows; a search indexes the pending sessions it may read first, each in its
 * own transaction under the session's row lock. Without `pg_trgm` (not installed, or no
 * right to create it) the table has no index and the same `LIKE`s scan it.
 *
 * @module
 */
import { SessionFormatError } from "../../src/errors.ts";
import { decodeRecord, listRecords } from "../../src/_records.ts";
import type { SessionEntry } from "../../src/schema.ts";
import {
  fieldText,
  type PreparedSearch,
  type SearchCandidate,
  type SearchHit,
  TopHits,
} from "../../src/search.ts";
import { foldSearchText, matchFolded, parseSearchQuery } from "../../src/_search_query.ts";
import { searchFields } from "../../src/search_text.ts";
import { throwIfAborted } from "../../src/store.ts";
import { type PostgresClient, transaction } from "./_connect.ts";
import { decoding, type Runner } from "./_rows.ts";

/** Schema step 2 over schema `s` (quoted): the search tables, every session pending. */
export function searchMigration(s: string): string[] {
  return [
    `CREATE TABLE ${s}.search_text (session_id text NOT NULL, seq bigint NOT NULL,
      role text NOT NULL, entry_id text NOT NULL, ts text NOT NULL, text text NOT NULL,
      PRIMARY KEY (session_id, seq, role),
      FOREIGN KEY (session_id, seq) REFERENCES ${s}.entries ON DELETE CASCADE)`,
    `CREATE TABLE ${s}.search_pending (session_id text PRIMARY KEY
      REFERENCES ${s}.sessions(id) ON DELETE CASCADE)`,
    `INSERT INTO ${s}.search_pending SELECT id FROM ${s}.sessions`,
    // pg_trgm ships with PostgreSQL (contrib) and is trusted: a database owner may create it.
    // The exception block is a savepoint, so a server without it still migrates (unindexed).
    `DO $$ BEGIN CREATE EXTENSION IF NOT EXISTS pg_trgm;
      EXCEPTION WHEN OTHERS THEN NULL; END $$`,
    `DO $$ DECLARE ns text := (SELECT n.nspname FROM pg_extension e
        JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm');
      BEGIN IF ns IS NOT NULL THEN EXECUTE format(
        'CREATE INDEX search_text_trgm ON ${s}.search_text USING gin (text %I.gin_trgm_ops)', ns);
      END IF; END $$`,
  ];
}

/** The search rows of entries, by their index in the list (seq = first + index). */
export interface SearchRows {
  index: number[];
  roles: string[];
  ids: string[];
  ts: string[];
  texts: string[];
}

/**
 * The folded texts of entries. PostgreSQL text cannot hold NUL, so it becomes U+FFFD (one
 * code unit for one: match offsets stay right), as the driver already does to lone surrogates.
 */
export function toSearchRows(entries: readonly SessionEntry[]): SearchRows {
  const rows: SearchRows = { index: [], roles: [], ids: [], ts: [], texts: [] };
  entries.forEach((entry, i) => {
    if (typeof entry.id !== "string") return;
    for (const field of searchFields(entry)) {
      rows.index.push(i);
      rows.roles.push(field.role);
      rows.ids.push(entry.id);
      rows.ts.push(String(entry.timestamp));
      rows.texts.push(storable(foldSearchText(field.text).text));
    }
  });
  return rows;
}

const storable = (text: string) => text.replaceAll("\0", "\uFFFD");

/**
 * The insert of search rows for the session `$1` written at `$2...`, the rows' five arrays
 * bound from `$first` on (shared by the entries insert and the backfill).
 */
export const SEARCH_INSERT = (s: string, first: number) =>
  `INSERT INTO ${s}.search_text (session_id, seq, role, entry_id, ts, text)
   SELECT $1, $2::bigint + i, r, e, t, x FROM unnest($${first}::bigint[], $${first + 1}::text[],
     $${first + 2}::text[], $${first + 3}::text[], $${first + 4}::text[]) AS u(i, r, e, t, x)`;

/** `LIKE` operand for a literal substring. */
const contains = (part: string) => `%${storable(part).replace(/[\\%_]/g, "\\$&")}%`;

/** Entry rows a pending session's indexing reads and indexes per statement. */
const INDEX_ROWS = 2_000;

/** Candidate rows read per round trip (the signal is checked between batches). */
const BATCH = 500;

/**
 * Search the store's tables: index pending sessions, stream the candidates the server
 * narrows, match and keep the best, then read the kept hits' original texts.
 */
export async function postgresSearch(
  sql: PostgresClient,
  s: string,
  prepared: PreparedSearch,
): Promise<SearchHit[]> {
  const { signal, cwd, includeInternal, sessionId } = prepared.options;
  throwIfAborted(signal);
  const where: string[] = [];
  const params: unknown[] = [];
  const bind = (value: unknown) => `$${params.push(value)}`;
  if (cwd !== undefined) where.push(`ss.cwd = ${bind(cwd)}`);
  if (sessionId !== undefined) where.push(`ss.id = ${bind(sessionId)}`);
  if (!includeInternal) where.push("NOT ss.internal");
  await indexPending(sql, s, where, [...params], signal);

  where.push(`t.role = ANY(${bind([...prepared.roles])}::text[])`);
  where.push(`NOT EXISTS (SELECT 1 FROM ${s}.search_pending p WHERE p.session_id = t.session_id)`);
  for (const term of prepared.query.terms) {
    // An excluded plain word is an exact substring test; other exclusions the matcher checks.
    if (term.exclude && term.kind === "word") {
      where.push(`t.text NOT LIKE ${bind(contains(term.text))}`);
    }
    if (term.exclude) continue;
    for (const part of term.parts) where.push(`t.text LIKE ${bind(contains(part))}`);
  }
  return await transaction(sql, "ISOLATION LEVEL REPEATABLE READ READ ONLY", async (tx) => {
    // No statement can run on the transaction while its cursor is open (postgres.js queues
    // it behind the cursor), so whether a session is listed is asked after the cursor ends:
    // meanwhile each session keeps its own best `limit`, a superset of its share of the hits.
    const bySession = new Map<string, TopHits<number>>();
    // The stored texts hold U+FFFD for NUL: a query with a NUL is matched as stored.
    const query = prepared.query.source.includes("\0")
      ? parseSearchQuery(storable(prepared.query.source))
      : prepared.query;
    const cursor = tx.unsafe(
      `SELECT t.session_id, t.seq, t.entry_id, t.role, t.ts, t.text
         FROM ${s}.search_text t JOIN ${s}.sessions ss ON ss.id = t.session_id
        WHERE ${where.join(" AND ")}`,
      params as never[],
    ).cursor(BATCH);
    for await (const rows of cursor) {
      throwIfAborted(signal);
      for (const row of rows) {
        const match = matchFolded(String(row.text), query);
        if (!match) continue;
        const sessionId = String(row.session_id);
        let own = bySession.get(sessionId);
        if (!own) bySession.set(sessionId, own = new TopHits<number>(prepared.limit));
        if (!own.wants(match.score)) continue;
        own.offer({
          sessionId,
          entryId: String(row.entry_id),
          role: row.role as SearchCandidate["role"],
          timestamp: String(row.ts),
          score: match.score,
          ref: Number(row.seq),
        });
      }
    }
    throwIfAborted(signal);
    const top = new TopHits<number>(prepared.limit);
    for (const id of await listed(tx, s, [...bySession.keys()], prepared)) {
      for (const candidate of await keptOf(bySession.get(id)!, prepared)) top.offer(candidate);
    }
    return await top.finish(prepared.query, await originals(tx, s, top, prepared));
  });
}

/**
 * The sessions of `ids` a listing shows (stored header and fold decode, and the search's
 * cwd / internal options pass): the scan searches exactly the listed sessions.
 */
async function listed(
  tx: Runner,
  s: string,
  ids: string[],
  prepared: PreparedSearch,
): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await tx.unsafe(
    `SELECT id, header, listing FROM ${s}.sessions WHERE id = ANY($1::text[])`,
    [ids] as never[],
  );
  const { cwd, includeInternal } = prepared.options;
  const records = rows.map((row) => ({
    id: String(row.id),
    header: row.header,
    listing: row.listing,
  }));
  return listRecords(records, "postgres", { cwd, includeInternal }).map((info) => info.id);
}

/** The candidates `top` keeps (finish() with empty texts lists them; they are private). */
async function keptOf(top: TopHits<number>, prepared: PreparedSearch) {
  const kept: SearchCandidate<number>[] = [];
  await top.finish(prepared.query, (candidate) => (kept.push(candidate), ""));
  return kept;
}

/** A `textOf` for the kept hits, their entry rows read in one statement. */
async function originals(tx: Runner, s: string, top: TopHits<number>, prepared: PreparedSearch) {
  const kept = await keptOf(top, prepared);
  const rows = kept.length === 0 ? [] : await tx.unsafe(
    `SELECT e.session_id, e.seq, e.json FROM ${s}.entries e
       JOIN unnest($1::text[], $2::bigint[]) AS k(id, seq) ON e.session_id = k.id AND e.seq = k.seq`,
    [kept.map((c) => c.sessionId), kept.map((c) => c.ref!)] as never[],
  );
  const json = new Map(rows.map((row) => [`${row.session_id}\0${row.seq}`, row.json]));
  return (candidate: SearchCandidate<number>) => {
    const text = json.get(`${candidate.sessionId}\0${candidate.ref}`);
    if (text === undefined) return "";
    const entry = decodeRecord<SessionEntry>(text, 0, decoding(candidate.sessionId));
    return fieldText(entry, candidate.role);
  };
}

/**
 * Index the pending sessions the search may read (`where` over `sessions ss`), each in its
 * own transaction under its row lock. One whose entries do not decode stays pending and
 * out of searches, as the scan skips a session it cannot load.
 */
async function indexPending(
  sql: PostgresClient,
  s: string,
  where: string[],
  params: unknown[],
  signal?: AbortSignal,
): Promise<void> {
  const pending = await sql.unsafe(
    `SELECT p.session_id FROM ${s}.search_pending p JOIN ${s}.sessions ss
       ON ss.id = p.session_id${where.length ? ` WHERE ${where.join(" AND ")}` : ""}`,
    params as never[],
  );
  for (const { session_id: id } of pending) {
    throwIfAborted(signal);
    try {
      await transaction(sql, "", async (tx) => {
        await tx.unsafe(`SELECT 1 FROM ${s}.sessions WHERE id = $1 FOR UPDATE`, [id]);
        const done = await tx.unsafe(
          `DELETE FROM ${s}.search_pending WHERE session_id = $1 RETURNING from_seq`,
          [id],
        );
        if (done.length === 0) return; // another process indexed it
        const from = Number(done[0].from_seq);
        await tx.unsafe(`DELETE FROM ${s}.search_text WHERE session_id = $1 AND seq >= $2`, [
          id,
          from,
        ]);
        const source = decoding(String(id));
        // A few thousand rows at a time: a session a sync wrote in bulk can be far larger
        // than the memory one search should take.
        for (let after = from - 1;;) {
          const rows = await tx.unsafe(
            `SELECT seq, json FROM ${s}.entries WHERE session_id = $1 AND seq > $2
              ORDER BY seq LIMIT ${INDEX_ROWS}`,
            [id, after],
          );
          if (rows.length === 0) break;
          after = Number(rows.at(-1)!.seq);
          const entries = rows.map((row) =>
            decodeRecord<SessionEntry>(row.json, Number(row.seq) + 2, source)
          );
          const search = toSearchRows(entries);
          search.index = search.index.map((i) => Number(rows[i].seq)); // rows by their own seq
          await tx.unsafe(SEARCH_INSERT(s, 3), [
            ...[id, 0],
            ...[search.index, search.roles, search.ids, search.ts, search.texts],
          ] as never[]);
        }
      });
    } catch (error) {
      if (!(error instanceof SessionFormatError)) throw error;
    }
  }
}
