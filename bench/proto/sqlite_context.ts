/**
 * PROTOTYPE (benchmark-only): a SQLite "context load" that parses only what the
 * projection of the active branch can use. A verbatim-lines boundary hides everything
 * before its kept tail, so after the path is walked on the tree columns alone (no JSON), only
 * these rows are parsed: the compactions on the path (to find the active boundary), the
 * path from `firstKeptEntryId` (or the boundary) to the leaf, and the latest model,
 * thinking-level and context-window changes before it (the state the projection
 * replays). They are handed to the library's `buildSessionProjection` as a short chain.
 *
 * Not complete, on purpose: system-prompt messages before the boundary are not replayed
 * (the library would need a `role` column to find them without parsing), and an assistant
 * message's provider/model before the tail is not used as the model. It quantifies the
 * gain of the approach; `bench/proto/case.ts` compares its projection with the full one.
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import type { SessionEntry } from "../../core.ts";

/**
 * Every row's tree columns, no JSON: one pass over the session (cheaper than a recursive
 * walk with a lookup per step, which costs ~20 µs per path entry at 100k).
 */
const TREE_SQL = `SELECT seq, entry_id AS id, parent_id AS parent, type FROM entries
  WHERE session_id = ? ORDER BY seq`;

/** `IN (SELECT …)` lets SQLite index the wanted seqs; a join with json_each scans it per row. */
const JSON_SQL = `SELECT seq, json FROM entries
  WHERE session_id = ?1 AND seq IN (SELECT value FROM json_each(?2))`;

interface TreeRow {
  seq: number;
  id: string;
  parent: string | null;
  type: string;
}

/** Root-first path to `leafId`; a duplicate id resolves to its latest row, as the index does. */
function walk(rows: TreeRow[], leafId: string): TreeRow[] {
  const byId = new Map<string, TreeRow>();
  for (const row of rows) byId.set(row.id, row);
  const path: TreeRow[] = [];
  const seen = new Set<string>();
  for (
    let row = byId.get(leafId);
    row && !seen.has(row.id);
    row = row.parent === null ? undefined : byId.get(row.parent)
  ) {
    seen.add(row.id);
    path.push(row);
  }
  return path.reverse();
}

/** The entries the projection of `leafId` needs, as a parent chain ending at the leaf. */
export function loadContextEntries(
  db: DatabaseSync,
  sessionId: string,
  leafId: string,
): { entries: SessionEntry[]; pathLength: number; parsed: number; pathMs: number } {
  const t = performance.now();
  const path = walk(db.prepare(TREE_SQL).all(sessionId) as unknown as TreeRow[], leafId);
  const pathMs = performance.now() - t;
  const parse = (seqs: number[]) => {
    const rows = db.prepare(JSON_SQL).all(sessionId, JSON.stringify(seqs)) as {
      seq: number;
      json: string;
    }[];
    const bySeq = new Map(rows.map((row) => [row.seq, JSON.parse(row.json) as SessionEntry]));
    return seqs.map((seq) => bySeq.get(seq)!);
  };
  // The active boundary: the last verbatim-lines compaction on the path.
  const compactionAt = path.flatMap((row, i) => row.type === "compaction" ? [i] : []);
  const compactions = parse(compactionAt.map((i) => path[i].seq));
  let start = 0;
  for (let k = compactions.length - 1; k >= 0; k--) {
    const entry = compactions[k] as SessionEntry & {
      details?: { strategy?: string };
      firstKeptEntryId?: string | null;
    };
    if (entry.details?.strategy !== "verbatim-lines") continue;
    const boundary = compactionAt[k];
    const kept = entry.firstKeptEntryId;
    const at = typeof kept === "string" ? path.findIndex((row) => row.id === kept) : -1;
    start = at >= 0 && at < boundary ? at : boundary;
    break;
  }
  // The latest state-changing entries before the context range (replayed by the projection).
  const state: number[] = [];
  for (const type of ["model_change", "thinking_level_change", "context_window_change"]) {
    for (let i = start - 1; i >= 0; i--) {
      if (path[i].type === type) {
        state.push(i);
        break;
      }
    }
  }
  state.sort((a, b) => a - b);
  const wanted = [...state, ...path.slice(start).map((_, i) => start + i)];
  const entries = parse(wanted.map((i) => path[i].seq));
  // Re-link the chain so the projection walks it (copies: stored entries stay untouched).
  for (let i = 0; i < entries.length && i <= state.length; i++) {
    entries[i] = { ...entries[i], parentId: i === 0 ? null : entries[i - 1].id } as SessionEntry;
  }
  return { entries, pathLength: path.length, parsed: entries.length + compactions.length, pathMs };
}
