/**
 * The SQLite store's partial read: a context-only load (`loadContext`, see
 * `src/context_load.ts`). It walks parent links from the covering
 * index `entries_walk` (session, seq, entry id, parent id, context flags) in memory, never
 * reading an entry's JSON it does not return; then only the rows it returns are read, by
 * primary key, and parsed.
 *
 * Rows written before schema 6 have no flags (`NULL`): such a row is parsed when the plan
 * needs its flags, so an old database answers the same, only slower.
 *
 * @module
 */
import { contextFlags, type LoadedContext, planContextLoad } from "../../src/context_load.ts";
import { EntryNotFoundError, SessionFormatError, SessionNotFoundError } from "../../src/errors.ts";
import { decodeHeader, decodeRecord } from "../../src/_records.ts";
import type { CompactionEntry, SessionEntry, SessionHeader } from "../../src/schema.ts";
import type { SqliteStatement } from "./_schema.ts";
import { planByWalk } from "./_walk.ts";
import { decoding } from "./_rows.ts";

/** Prepared-statement access (the store caches statements by SQL text). */
export type StatementSource = (sql: string) => SqliteStatement;

/**
 * A resolved root-to-leaf path: tree-text record numbers, root first. Seqs, ids and flags
 * are read from the tree text on demand (a long path's own arrays of them were most of
 * a context load's memory after the tree itself).
 */
interface PathRows {
  header: SessionHeader;
  rows: number[];
  tree: TreeText;
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
  header = readHeader(statement, sessionId),
): PathRows {
  if (leafId === null) return { header, rows: [], tree: new TreeText("") };
  const tree = new TreeText(readTreeText(statement, sessionId));
  const empty: PathRows = { header, rows: [], tree };
  const last = tree.length - 1;
  const leaf = leafId === undefined ? (last >= 0 ? tree.id(last) : null) : leafId;
  if (leaf === null) return empty;
  const at = new Map<string, number>(); // entry id -> row index (the latest wins)
  for (let i = 0; i <= last; i++) {
    const id = tree.id(i);
    if (id !== null) at.set(id, i);
  }
  if (!at.has(leaf)) throw new EntryNotFoundError(leaf);
  const path: number[] = [];
  for (let i = at.get(leaf); i !== undefined;) {
    if (path.length > at.size) {
      throw new SessionFormatError(`entry ${leaf} has a parentId cycle on its path`, {
        source: `sqlite:${sessionId}`,
      });
    }
    path.push(i);
    const parent = tree.parent(i);
    i = parent === null ? undefined : at.get(parent);
  }
  return { header, rows: path.reverse(), tree };
}

/** The session's header (`SessionNotFoundError` when there is no such session). */
function readHeader(statement: StatementSource, sessionId: string): SessionHeader {
  const row = statement("SELECT header FROM sessions WHERE id = ?").get(sessionId);
  if (!row) throw new SessionNotFoundError(sessionId);
  return decodeHeader(row.header, decoding(sessionId));
}

/**
 * The session's tree columns in commit order, from the covering index, as one string built
 * by SQLite: a row object per entry cost more time and memory than the rest of a
 * context-only load (100k rows). Records are separated by U+001E, fields by U+001F: seq,
 * `+id` (empty: NULL), `+parent` (empty: NULL), flags (empty: NULL). No stored id contains
 * either separator: ids with control characters are refused at the seam
 * (`assertStorableEntries`).
 */
export function readTreeText(
  statement: StatementSource,
  sessionId: string,
  below = Number.MAX_SAFE_INTEGER, // only rows before this seq (a lazy open's snapshot)
): string {
  const row = statement(
    `SELECT group_concat(seq || char(31) || ifnull('+' || entry_id, '') || char(31) ||
       ifnull('+' || parent_id, '') || char(31) || ifnull(flags, ''), char(30) ORDER BY seq)
       AS tree FROM entries WHERE session_id = ? AND seq < ?`,
  ).get(sessionId, below);
  return row?.tree == null ? "" : String(row.tree);
}

/**
 * Fields of the tree text read in place: only record offsets are kept, so the parents and
 * flags of rows off the path are never turned into strings.
 */
export class TreeText {
  readonly #text: string;
  readonly #starts: number[] = [];
  constructor(text: string) {
    this.#text = text;
    for (let at = 0; at < text.length;) {
      this.#starts.push(at);
      const end = text.indexOf("\x1e", at);
      at = end === -1 ? text.length : end + 1;
    }
    this.#starts.push(text.length + 1); // the end of the last record, plus its separator
  }
  get length(): number {
    return this.#starts.length - 1;
  }
  /** Field `n` (0-3) of record `i`; undefined when empty. */
  #field(i: number, n: number): string | undefined {
    let from = this.#starts[i];
    for (let k = 0; k < n; k++) from = this.#text.indexOf("\x1f", from) + 1;
    const end = n === 3 ? this.#starts[i + 1] - 1 : this.#text.indexOf("\x1f", from);
    return end === from ? undefined : this.#text.slice(from, end);
  }
  seq(i: number): number {
    return Number(this.#field(i, 0));
  }
  id(i: number): string | null {
    return this.#field(i, 1)?.slice(1) ?? null;
  }
  parent(i: number): string | null {
    return this.#field(i, 2)?.slice(1) ?? null;
  }
  flags(i: number): number | null {
    const text = this.#field(i, 3);
    return text === undefined ? null : Number(text);
  }
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
 * A context-only load (the store's `loadContext`): planned from the rows' path pointers
 * (`_walk.ts`), or, when a row on the way has none, by `planContextLoad` over the path's
 * indexed flags from the tree scan; then only the planned rows parsed.
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
  const header = readHeader(statement, sessionId);
  if (leafId !== null) {
    const bySeq = new Map<number, SessionEntry>(); // the boundary is parsed while planning
    const read = (seq: number) => {
      let entry = bySeq.get(seq);
      if (!entry) bySeq.set(seq, entry = readEntries(statement, sessionId, [seq])[0]);
      return entry;
    };
    const plan = planByWalk(statement, sessionId, leafId, read);
    if (plan) return { header, prefix: plan.prefix.map(read), entries: plan.entries.map(read) };
  }
  const path = resolvePath(statement, sessionId, leafId, header);
  const parsed = new Map<number, SessionEntry>(); // rows the plan parsed: never parsed twice
  const read = (i: number) => {
    let entry = parsed.get(i);
    if (!entry) {
      const seq = path.tree.seq(path.rows[i]);
      parsed.set(i, entry = readEntries(statement, sessionId, [seq])[0]);
    }
    return entry;
  };
  const flagsAt = (i: number) => path.tree.flags(path.rows[i]) ?? contextFlags(read(i));
  const plan = planContextLoad(
    path.rows.length,
    flagsAt,
    (i) => path.tree.id(path.rows[i])!,
    (i) => read(i) as CompactionEntry,
  );
  const entries: SessionEntry[] = [];
  for (let i = plan.start; i < path.rows.length; i++) entries.push(read(i));
  return { header: path.header, prefix: plan.prefix.map(read), entries };
}
