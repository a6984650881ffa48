/**
 * The PostgreSQL store's partial read: a context-only load (`loadContext`, see
 * `src/context_load.ts`). The server walks parent links through the
 * `(session_id, entry_id, seq)` index returning ids and context flags only; the load plans
 * in memory, then reads the JSON of just the planned rows.
 *
 * Rows written before the flags column (schema 3) have `NULL` flags: their JSON is read
 * when the plan needs them, so an old schema answers the same, only slower.
 *
 * @module
 */
import {
  CONTEXT_VERBATIM,
  contextFlags,
  type LoadedContext,
  planContextLoad,
} from "../../src/context_load.ts";
import { EntryNotFoundError, SessionFormatError, SessionNotFoundError } from "../../src/errors.ts";
import { decodeHeader, decodeRecord } from "../../src/_records.ts";
import type { CompactionEntry, SessionEntry, SessionHeader } from "../../src/schema.ts";
import { branchPath, decoding, type Runner } from "./_rows.ts";

type PathColumns = Parameters<typeof branchPath>[5];

/**
 * The header and the path rows to `leafId` (default: the last committed entry; `null`:
 * none), root first, with `columns`. Unknown leaf: `EntryNotFoundError`; a cycle on the
 * path: `SessionFormatError`. Run inside a snapshot transaction.
 */
async function resolvePath(
  tx: Runner,
  s: string,
  sessionId: string,
  leafId: string | null | undefined,
  columns: PathColumns,
): Promise<{ header: SessionHeader; path: readonly Record<string, unknown>[] }> {
  const session = await tx.unsafe(`SELECT header, next_seq FROM ${s}.sessions WHERE id = $1`, [
    sessionId,
  ]);
  if (session.length === 0) throw new SessionNotFoundError(sessionId);
  const header = decodeHeader(session[0].header, decoding(sessionId));
  let leaf = leafId;
  if (leaf === undefined) {
    const last = await tx.unsafe(
      `SELECT entry_id FROM ${s}.entries WHERE session_id = $1 ORDER BY seq DESC LIMIT 1`,
      [sessionId],
    );
    leaf = (last[0]?.entry_id as string | null | undefined) ?? null;
  }
  if (leaf === null) return { header, path: [] };
  // Depth is bounded by the entry count: a path longer than that has a parent cycle.
  const limit = Number(session[0].next_seq) + 1;
  const path = await branchPath(tx, s, sessionId, leaf, limit, columns);
  if (path.length === 0) throw new EntryNotFoundError(leaf);
  if (Number(path[0].depth) >= limit) {
    throw new SessionFormatError(`entry ${leaf} has a parentId cycle on its path`, {
      source: `postgres:${sessionId}`,
    });
  }
  return { header, path };
}

/**
 * A context-only load (the store's `loadContext`): the plan of `planContextLoad` over the
 * path's stored flags, then only the planned rows read and parsed.
 *
 * @example
 * ```ts
 * import { readContext } from "./_context.ts";
 * import type { Runner } from "./_rows.ts";
 * declare const tx: Runner;
 * const { prefix, entries } = await readContext(tx, '"mu_sessions"', "s1", undefined);
 * ```
 */
export async function readContext(
  tx: Runner,
  s: string,
  sessionId: string,
  leafId: string | null | undefined,
): Promise<LoadedContext> {
  const { header, path } = await resolvePath(tx, s, sessionId, leafId, ["entry_id", "flags"]);
  const seqAt = (i: number) => Number(path[i].seq);
  const parsed = new Map<number, SessionEntry>(); // by seq
  const read = async (positions: Iterable<number>) => {
    const seqs = [...new Set([...positions].map(seqAt))].filter((seq) => !parsed.has(seq));
    if (seqs.length === 0) return;
    const rows = await tx.unsafe(
      `SELECT seq, json FROM ${s}.entries WHERE session_id = $1 AND seq = ANY($2::bigint[])`,
      [sessionId, seqs],
    );
    for (const row of rows) {
      parsed.set(Number(row.seq), decodeRecord<SessionEntry>(row.json, 0, decoding(sessionId)));
    }
  };
  const entryAt = (i: number) => parsed.get(seqAt(i))!;
  // Rows from before the flags column: their flags come from their JSON.
  await read(path.flatMap((row, i) => row.flags == null ? [i] : []));
  const flags = path.map((row, i) =>
    row.flags == null ? contextFlags(entryAt(i)) : Number(row.flags)
  );
  // The plan reads the last verbatim boundary's fields: fetch that row first.
  const boundary = flags.findLastIndex((f) => (f & CONTEXT_VERBATIM) !== 0);
  if (boundary >= 0) await read([boundary]);
  const plan = planContextLoad(
    path.length,
    (i) => flags[i],
    (i) => path[i].entry_id as string,
    (i) => entryAt(i) as CompactionEntry,
  );
  const range = Array.from({ length: path.length - plan.start }, (_, k) => plan.start + k);
  await read([...plan.prefix, ...range]);
  return { header, prefix: plan.prefix.map(entryAt), entries: range.map(entryAt) };
}
