/**
 * Path pointers (schema 9): each `entries` row keeps, in its `walk` column, the position
 * (`seq`) of its parent and of the nearest entry on its own root path (itself included)
 * that sets the model, the thinking level, the context window, a system message, and the
 * nearest verbatim compaction. A context-only load then starts at the leaf, jumps to the
 * boundary and to the replayed settings, and walks parent links only over the context
 * range: it reads the rows it returns and a few pointer cells, never the session's tree
 * (100k rows: the tree scan was most of a load).
 *
 * Pointers are computed when a row is written, from its parent's (found through the
 * `entries_by_id` index: the latest row with that id, as the tree index resolves it). They
 * are only kept while that resolution cannot change later:
 * - a row whose parent id is not there yet (dangling, a parent written after its child, a
 *   self-parent) gets none (NULL), nor does any row below it;
 * - a row reusing an id already in the session clears every pointer of the session (a
 *   child resolved to the older row would now resolve to the newer one).
 * A load that meets a row without pointers (also every row written before schema 9) falls
 * back to the tree scan of `_context.ts`, which answers every case.
 *
 * @module
 */
import {
  CONTEXT_MODEL,
  CONTEXT_SYSTEM,
  CONTEXT_THINKING,
  CONTEXT_VERBATIM,
  CONTEXT_WINDOW,
} from "../../src/context_load.ts";
import { EntryNotFoundError } from "../../src/errors.ts";
import type { CompactionEntry, SessionEntry } from "../../src/schema.ts";
import type { SqliteStatement } from "./_schema.ts";

/** The pointers of one row; -1: none on its path. */
export interface Walk {
  /** Parent's seq (-1: a root). */
  parent: number;
  model: number;
  thinking: number;
  window: number;
  system: number;
  verbatim: number;
}

const FIELDS = ["parent", "model", "thinking", "window", "system", "verbatim"] as const;
const FLAG_OF = {
  model: CONTEXT_MODEL,
  thinking: CONTEXT_THINKING,
  window: CONTEXT_WINDOW,
  system: CONTEXT_SYSTEM,
  verbatim: CONTEXT_VERBATIM,
} as const;

/**
 * The column text: the six fields comma-separated, -1 as empty.
 *
 * @example
 * ```ts
 * import { encodeWalk } from "./_walk.ts";
 * encodeWalk({ parent: 4, model: 2, thinking: -1, window: -1, system: -1, verbatim: -1 }); // "4,2,,,,"
 * ```
 */
export function encodeWalk(walk: Walk): string {
  return FIELDS.map((field) => walk[field] < 0 ? "" : String(walk[field])).join(",");
}

/**
 * The pointers of a `walk` cell; `undefined` for NULL (unknown) or anything malformed.
 *
 * @example
 * ```ts
 * import { decodeWalk } from "./_walk.ts";
 * decodeWalk("4,2,,,,")?.model; // 2
 * ```
 */
export function decodeWalk(cell: unknown): Walk | undefined {
  if (typeof cell !== "string") return undefined;
  const parts = cell.split(",");
  if (parts.length !== FIELDS.length) return undefined;
  const walk = {} as Walk;
  for (let i = 0; i < FIELDS.length; i++) {
    const value = parts[i] === "" ? -1 : Number(parts[i]);
    if (!Number.isSafeInteger(value)) return undefined;
    walk[FIELDS[i]] = value;
  }
  return walk;
}

/** A row's pointers from its parent's (`undefined`: a root). */
function childWalk(seq: number, flags: number, parent: Walk | undefined, parentSeq: number): Walk {
  const walk: Walk = { parent: parent ? parentSeq : -1 } as Walk;
  for (const field of ["model", "thinking", "window", "system", "verbatim"] as const) {
    walk[field] = flags & FLAG_OF[field] ? seq : parent ? parent[field] : -1;
  }
  return walk;
}

/** What {@link computeWalks} needs of a row about to be written. */
export interface WalkInput {
  id: string | null;
  parentId: string | null;
  flags: number;
}

/** The latest committed row with an id: its seq and pointers (undefined: none there). */
export type CommittedLookup = (id: string) => { seq: number; walk: Walk | undefined } | undefined;

/**
 * The `walk` cells of `rows`, written at `firstSeq`, `firstSeq + 1`, ...; `clearCommitted`
 * when an id is reused, so the caller clears every committed row's pointers first.
 *
 * @example
 * ```ts
 * import { computeWalks } from "./_walk.ts";
 * computeWalks([{ id: "a", parentId: null, flags: 0 }], 0, () => undefined).cells; // [",,,,,"]
 * ```
 */
export function computeWalks(
  rows: readonly WalkInput[],
  firstSeq: number,
  committed: CommittedLookup,
): { cells: (string | null)[]; clearCommitted: boolean } {
  const written = new Map<string, number>(); // id -> index in rows (the latest)
  const walks: (Walk | undefined)[] = [];
  let clearCommitted = false;
  const latest = (id: string) => {
    const at = written.get(id);
    if (at !== undefined) return { seq: firstSeq + at, walk: walks[at] };
    const row = committed(id);
    return row && clearCommitted ? { seq: row.seq, walk: undefined } : row;
  };
  for (let i = 0; i < rows.length; i++) {
    const { id, parentId, flags } = rows[i];
    if (id !== null && latest(id)) {
      // A reused id: everything resolved to the older row so far is stale.
      clearCommitted = true;
      walks.fill(undefined);
    }
    let walk: Walk | undefined;
    if (id !== null) {
      const parent = parentId === null ? undefined : latest(parentId);
      if (parentId === null) walk = childWalk(firstSeq + i, flags, undefined, -1);
      else if (parent?.walk) walk = childWalk(firstSeq + i, flags, parent.walk, parent.seq);
    }
    walks.push(walk);
    if (id !== null) written.set(id, i);
  }
  return { cells: walks.map((walk) => walk ? encodeWalk(walk) : null), clearCommitted };
}

/**
 * The latest row with an id (`?` id, `?` session). The index is named: without statistics
 * the planner took the primary key and scanned the session's rows (100k rows: most of a
 * second per append).
 */
export const ID_LOOKUP_SQL = `SELECT seq, walk FROM entries INDEXED BY entries_by_id
  WHERE entry_id = ? AND session_id = ? ORDER BY seq DESC LIMIT 1`;

/**
 * The committed-row lookup of `sessionId` through `entries_by_id`.
 *
 * @example
 * ```ts
 * import { committedLookup } from "./_walk.ts";
 * import type { SqliteStatement } from "./_schema.ts";
 * declare const statement: (sql: string) => SqliteStatement;
 * committedLookup(statement, "s1")("e1"); // { seq, walk } or undefined
 * ```
 */
export function committedLookup(
  statement: (sql: string) => SqliteStatement,
  sessionId: string,
): CommittedLookup {
  const select = statement(ID_LOOKUP_SQL);
  return (id) => {
    const row = select.get(id, sessionId);
    return row ? { seq: Number(row.seq), walk: decodeWalk(row.walk) } : undefined;
  };
}

/** Positions (seqs) a context-only load returns, ascending. */
export interface WalkPlan {
  prefix: number[];
  entries: number[];
}

/**
 * Plan a context-only load from the path pointers: the same choice as `planContextLoad`
 * over the resolved path (boundary, kept tail, replayed settings), reading only the pointer
 * cells of the context range and of the few replayed entries, and parsing only the boundary
 * (through `read`). `undefined` when a row on the way has no pointers: scan the tree then.
 * An unknown leaf rejects with `EntryNotFoundError`. Run inside a read transaction.
 *
 * @example
 * ```ts
 * import { planByWalk } from "./_walk.ts";
 * import type { SqliteStatement } from "./_schema.ts";
 * import type { SessionEntry } from "../../src/schema.ts";
 * declare const statement: (sql: string) => SqliteStatement;
 * declare const read: (seq: number) => SessionEntry;
 * const plan = planByWalk(statement, "s1", undefined, read); // { prefix, entries } or undefined
 * ```
 */
export function planByWalk(
  statement: (sql: string) => SqliteStatement,
  sessionId: string,
  leafId: string | undefined,
  read: (seq: number) => SessionEntry,
): WalkPlan | undefined {
  const select = statement("SELECT walk FROM entries WHERE session_id = ? AND seq = ?");
  const pointers = (seq: number) => decodeWalk(select.get(sessionId, seq)?.walk);
  let leaf: { seq: number; walk: Walk | undefined } | undefined;
  if (leafId === undefined) {
    const row = statement(
      "SELECT seq, entry_id, walk FROM entries WHERE session_id = ? ORDER BY seq DESC LIMIT 1",
    ).get(sessionId);
    if (!row) return { prefix: [], entries: [] };
    if (row.entry_id == null) return undefined; // a leaf without an id: the tree scan decides
    leaf = { seq: Number(row.seq), walk: decodeWalk(row.walk) };
  } else {
    leaf = committedLookup(statement, sessionId)(leafId);
    if (!leaf) throw new EntryNotFoundError(leafId);
  }
  if (!leaf.walk) return undefined;
  // Down from the leaf, parent by parent, to `until` (a seq on the path); root first.
  const down = (from: number, walk: Walk, until: number) => {
    const seqs = [from];
    for (let at = walk; seqs[seqs.length - 1] > until && at.parent >= 0;) {
      const next = pointers(at.parent);
      if (!next) return undefined;
      seqs.push(at.parent);
      at = next;
    }
    return seqs;
  };
  const boundary = leaf.walk.verbatim;
  const tail = down(leaf.seq, leaf.walk, Math.max(boundary, -1));
  if (!tail) return undefined;
  if (boundary < 0) return { prefix: [], entries: tail.reverse() };
  if (tail[tail.length - 1] !== boundary) return undefined; // not on the path: never so
  const { firstKeptEntryId, systemMessage } = read(boundary) as CompactionEntry;
  const boundaryWalk = pointers(boundary);
  if (!boundaryWalk) return undefined;
  let start = { seq: boundary, walk: boundaryWalk };
  const kept = typeof firstKeptEntryId === "string"
    ? committedLookup(statement, sessionId)(firstKeptEntryId)
    : undefined;
  if (kept && kept.seq < boundary) {
    // The kept row is the latest with its id; it starts the range only if it is on the path.
    const keptTail = down(boundary, boundaryWalk, kept.seq);
    if (!keptTail) return undefined;
    if (keptTail[keptTail.length - 1] === kept.seq) {
      if (!kept.walk) return undefined;
      tail.push(...keptTail.slice(1));
      start = { seq: kept.seq, walk: kept.walk };
    }
  }
  const prefix = new Set<number>();
  if (start.walk.parent >= 0) {
    const before = pointers(start.walk.parent);
    if (!before) return undefined;
    for (const seq of [before.model, before.thinking, before.window]) if (seq >= 0) prefix.add(seq);
    // Without a checkpoint every earlier system message replays: follow their chain.
    for (let seq = systemMessage ? -1 : before.system; seq >= 0;) {
      prefix.add(seq);
      const parent = pointers(seq)?.parent;
      if (parent === undefined) return undefined;
      if (parent < 0) break;
      const above = pointers(parent);
      if (!above) return undefined;
      seq = above.system;
    }
  }
  return { prefix: [...prefix].sort((a, b) => a - b), entries: tail.reverse() };
}
