/**
 * The SQLite store's partial reads: one branch (`loadBranch`) and a context-only load
 * (`loadContext`, see `src/context_load.ts`). Both walk parent links from the covering
 * index `entries_walk` (session, seq, entry id, parent id, context flags) in memory, never
 * reading an entry's JSON they do not return; then only the rows they return are read, by
 * primary key, and parsed.
 *
 * Rows written before schema 6 have no flags (`NULL`): such a row is parsed when the plan
 * needs its flags, so an old database answers the same, only slower.
 *
 * @module
 */
import { contextFlags, type LoadedContext, planContextLoad } from "../../src/context_load.ts";
import { EntryNotFoundError, SessionFormatError, SessionNotFoundError } from "../../src/errors.ts";
import { decodeHeader, decodeRecord } from "../../src/records.ts";
import type { CompactionEntry, SessionEntry, SessionHeader } from "../../src/schema.ts";
import type { LoadedBranch } from "../../src/store.ts";
import type { SqliteStatement } from "./_schema.ts";

/** Prepared-statement access (the store caches statements by SQL text). */
export type StatementSource = (sql: string) => SqliteStatement;

/** How rows decode: without keeping each record's text (see the store's `decoding`). */
const decoding = (sessionId: string) => ({ source: `sqlite:${sessionId}`, keepText: false });

/** A resolved root-to-leaf path: row seqs, ids and flags (NULL: unknown), root first. */
interface PathRows {
  header: SessionHeader;
  seqs: number[];
  ids: string[];
  flags: (number | null)[];
}

/**
 * The header and the path to `leafId` (default: the last committed entry; `null`: empty).
 * The parent links come in commit order, so a duplicate id resolves to its latest entry
 * (as in the tree index); an unknown leaf rejects with `EntryNotFoundError`, a cycle on the
 * path with `SessionFormatError`. Run inside a read transaction.
 */
function resolvePath(
  statement: StatementSource,
  sessionId: string,
  leafId: string | null | undefined,
): PathRows {
  const row = statement("SELECT header FROM sessions WHERE id = ?").get(sessionId);
  if (!row) throw new SessionNotFoundError(sessionId);
  const header = decodeHeader(row.header, decoding(sessionId));
  const empty: PathRows = { header, seqs: [], ids: [], flags: [] };
  if (leafId === null) return empty;
  const rows = statement(
    "SELECT seq, entry_id, parent_id, flags FROM entries WHERE session_id = ? ORDER BY seq",
  ).all(sessionId);
  const leaf = leafId === undefined ? rows.at(-1)?.entry_id as string | null ?? null : leafId;
  if (leaf === null) return empty;
  const at = new Map<string, number>(); // entry id -> row index (the latest wins)
  for (let i = 0; i < rows.length; i++) {
    const id = rows[i].entry_id;
    if (id !== null) at.set(String(id), i);
  }
  if (!at.has(leaf)) throw new EntryNotFoundError(leaf);
  const path: Record<string, unknown>[] = [];
  for (let i = at.get(leaf); i !== undefined;) {
    if (path.length > at.size) {
      throw new SessionFormatError(`entry ${leaf} has a parentId cycle on its path`, {
        source: `sqlite:${sessionId}`,
      });
    }
    const current: Record<string, unknown> = rows[i];
    path.push(current);
    i = current.parent_id === null ? undefined : at.get(String(current.parent_id));
  }
  path.reverse();
  return {
    header,
    seqs: path.map((r) => Number(r.seq)),
    ids: path.map((r) => String(r.entry_id)),
    flags: path.map((r) => r.flags === null || r.flags === undefined ? null : Number(r.flags)),
  };
}

/** Parse the rows at `seqs`, in that order. */
function readEntries(
  statement: StatementSource,
  sessionId: string,
  seqs: readonly number[],
): SessionEntry[] {
  const select = statement("SELECT json FROM entries WHERE session_id = ? AND seq = ?");
  return seqs.map((seq) =>
    decodeRecord<SessionEntry>(select.get(sessionId, seq)!.json, 0, decoding(sessionId))
  );
}

/**
 * The branch ending at `leafId`, root first (the store's `loadBranch`).
 *
 * @example
 * ```ts
 * import { readBranch, type StatementSource } from "./_context.ts";
 * declare const statement: StatementSource;
 * const { entries } = readBranch(statement, "s1", undefined);
 * ```
 */
export function readBranch(
  statement: StatementSource,
  sessionId: string,
  leafId: string | null | undefined,
): LoadedBranch {
  const path = resolvePath(statement, sessionId, leafId);
  return { header: path.header, entries: readEntries(statement, sessionId, path.seqs) };
}

/**
 * A context-only load (the store's `loadContext`): the plan of `planContextLoad` over the
 * path's indexed flags, then only the planned rows parsed.
 *
 * @example
 * ```ts
 * import { readContext, type StatementSource } from "./_context.ts";
 * declare const statement: StatementSource;
 * const { prefix, entries } = readContext(statement, "s1", undefined);
 * ```
 */
export function readContext(
  statement: StatementSource,
  sessionId: string,
  leafId: string | null | undefined,
): LoadedContext {
  const path = resolvePath(statement, sessionId, leafId);
  const parsed = new Map<number, SessionEntry>(); // rows the plan parsed: never parsed twice
  const read = (i: number) => {
    let entry = parsed.get(i);
    if (!entry) parsed.set(i, entry = readEntries(statement, sessionId, [path.seqs[i]])[0]);
    return entry;
  };
  const flagsAt = (i: number) => path.flags[i] ??= contextFlags(read(i));
  const plan = planContextLoad(
    path.seqs.length,
    flagsAt,
    (i) => path.ids[i],
    (i) => read(i) as CompactionEntry,
  );
  const entries: SessionEntry[] = [];
  for (let i = plan.start; i < path.seqs.length; i++) entries.push(read(i));
  return { header: path.header, prefix: plan.prefix.map(read), entries };
}
