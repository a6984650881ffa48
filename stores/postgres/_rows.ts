/**
 * Row encoding and the multi-row statements of the PostgreSQL store (`store.ts`): entry rows
 * as parallel arrays, the `sessions` columns of a header and fold state, the bulk insert and
 * the root-to-leaf walk.
 *
 * @module
 */
import { contextFlags } from "../../src/context_load.ts";
import { encodeEntries, SESSION_ROW_COLUMNS, sessionRowValues } from "../../src/_records.ts";
import type { ListingState } from "../../src/_listing.ts";
import type { SessionEntry, SessionHeader } from "../../src/schema.ts";
import type { PostgresClient } from "./_connect.ts";
import { SEARCH_INSERT, type SearchRows, toSearchRows } from "./_search.ts";

/** A row of `entries` as written. */
export interface EntryRows {
  ids: (string | null)[];
  parents: (string | null)[];
  types: string[];
  /** `contextFlags` of each entry: what a context-only load plans with. */
  flags: number[];
  json: string[];
  /**
   * Their searchable texts (`search_text` rows), written with them; undefined for a bulk
   * write, whose session is marked `search_pending` instead (see {@link SEARCH_INLINE_MAX}).
   */
  search?: SearchRows;
}

/**
 * A write of more entries than this (a sync or an import) leaves its rows' search texts to
 * the next search that may read the session (`search_pending` from its first seq, as a
 * migrated session is pending from 0): the search rows and their trigram index were most
 * of the time of writing a session. An agent's appends, a message or a few each, stay
 * indexed as they are written. Hits are the same either way.
 */
export const SEARCH_INLINE_MAX = 8;

/** Entries as rows: their ids, parents and types beside the exact JSON text of each. */
export function toEntryRows(
  entries: readonly SessionEntry[],
  json = encodeEntries(entries),
): EntryRows {
  return {
    ids: entries.map((entry) => typeof entry.id === "string" ? entry.id : null),
    parents: entries.map((entry) => typeof entry.parentId === "string" ? entry.parentId : null),
    types: entries.map((entry) => String(entry.type)),
    flags: entries.map(contextFlags),
    json,
    search: entries.length > SEARCH_INLINE_MAX ? undefined : toSearchRows(entries),
  };
}

/** The `sessions` columns after `id`, in {@link SESSION_COLUMNS} order. */
export const sessionColumns: (
  header: SessionHeader,
  headerText: string,
  listing: ListingState,
) => unknown[] = sessionRowValues;

/** The `sessions` columns after `id`, comma-separated (for INSERT). */
export const SESSION_COLUMNS = SESSION_ROW_COLUMNS;
/** `cwd = $2, ..., listing = $9`: the session id is `$1`. */
export const SESSION_UPDATE = SESSION_COLUMNS.split(", ").map((c, i) => `${c} = $${i + 2}`).join(
  ", ",
);

/** Rows decode without keeping their text: exportJsonl reads the stored text itself. */
export const decoding = (sessionId: string) => ({
  source: `postgres:${sessionId}`,
  keepText: false,
});

/** The query surface of a client or a transaction. */
export type Runner = Pick<PostgresClient, "unsafe">;

/**
 * For the statements every write sends: kept prepared on each connection (postgres.js names
 * them by their text), so after a connection's first use they go out with the statements
 * around them and the server does not plan them again. A client created with
 * `prepare: false` (a transaction-pooling proxy) still sends them unnamed.
 */
export const PREPARED = { prepare: true } as const;

/**
 * Write `rows` numbered from `firstSeq`, after `order.before` and followed by `order.after`
 * (statements of the same transaction; nothing else may be sent meanwhile). The statements
 * go out together where they can: postgres.js pipelines a transaction's queries, and if
 * one fails the rest fail with it. A bulk write (no search rows) marks the session
 * `search_pending` from `firstSeq`. The rows go in one statement (parallel arrays, a
 * data-modifying CTE; the foreign key is checked at the statement's end), their JSON texts
 * as one parameter split on the server at a character valid JSON never holds raw: as an
 * array literal each quote in them would be escaped by the client and unescaped by the
 * server.
 */
export async function insertEntries(
  tx: Runner,
  s: string,
  sessionId: string,
  firstSeq: number,
  rows: EntryRows,
  order: { before?: () => PromiseLike<unknown>; after?: () => PromiseLike<unknown> } = {},
): Promise<void> {
  const { before, after } = order;
  const search = rows.search;
  const pending = () =>
    tx.unsafe(
      `INSERT INTO ${s}.search_pending (session_id, from_seq) VALUES ($1, $2)
       ON CONFLICT (session_id) DO UPDATE
         SET from_seq = least(${s}.search_pending.from_seq, excluded.from_seq)`,
      [sessionId, firstSeq],
      PREPARED,
    );
  if (rows.json.length === 0) {
    await before?.();
    await after?.();
  } else {
    // A raw record separator cannot occur in JSON text (a control character in a string is
    // escaped); the array form stays for a caller that bypassed `toJsonLine`.
    const joinable = !rows.json.some((text) => text.includes(JSON_SEPARATOR));
    const json = joinable ? `string_to_array($6, E'\\x1e')` : "$6::text[]";
    await Promise.all([
      before?.(),
      tx.unsafe(
        `WITH inserted AS (INSERT INTO ${s}.entries
           (session_id, seq, entry_id, parent_id, type, json, flags)
         SELECT $1, $2::bigint + n - 1, e, p, t, j, f
           FROM unnest($3::text[], $4::text[], $5::text[], ${json}, $7::int[]) WITH ORDINALITY
             AS u(e, p, t, j, f, n))
         ${search ? SEARCH_INSERT(s, 8) : "SELECT 1"}`,
        [
          ...[sessionId, firstSeq, rows.ids, rows.parents, rows.types],
          ...[joinable ? rows.json.join(JSON_SEPARATOR) : rows.json, rows.flags],
          ...(search ? [search.index, search.roles, search.ids, search.ts, search.texts] : []),
        ] as string[],
      ),
      search ? undefined : pending(),
      after?.(),
    ]);
  }
}

/** Joins the JSON texts of a write into one parameter (U+001E, record separator). */
const JSON_SEPARATOR = "\x1e";

/**
 * The entries on the path from the root to `leaf` (the `columns` asked for, and `depth`: 0
 * for the leaf), root first. Each step up takes the latest entry with the parent's id,
 * through the `(session_id, entry_id, seq)` index; at most `limit` steps (a longer path has
 * a cycle). A context-only load asks for ids and flags, not `json`: the server then reads
 * no entry text at all.
 */
export async function branchPath(
  tx: Runner,
  s: string,
  sessionId: string,
  leaf: string,
  limit: number,
  columns: readonly ("json" | "entry_id" | "flags")[] = ["json"],
): Promise<readonly Record<string, unknown>[]> {
  const own = columns.join(", ");
  const stepped = columns.map((column) => `e.${column}`).join(", ");
  return await tx.unsafe(
    `WITH RECURSIVE path(seq, parent_id, ${own}, depth) AS (
       (SELECT seq, parent_id, ${own}, 0 FROM ${s}.entries
         WHERE session_id = $1 AND entry_id = $2 ORDER BY seq DESC LIMIT 1)
       UNION ALL
       SELECT e.seq, e.parent_id, ${stepped}, p.depth + 1 FROM path p
         CROSS JOIN LATERAL (SELECT seq, parent_id, ${own} FROM ${s}.entries
           WHERE session_id = $1 AND entry_id = p.parent_id
           ORDER BY seq DESC LIMIT 1) e
        WHERE p.depth < $3)
     SELECT seq, ${own}, depth FROM path ORDER BY depth DESC`,
    [sessionId, leaf, limit],
  );
}
