/**
 * The positions of one branch (root to leaf) of a session whose rows all carry path pointers
 * (`_walk.ts`), without the session's tree columns: the viewer's first Conversation page
 * needs only the branch, and reading every row's id, parent and flags into the lazy index
 * (a map of every id, three columns of 100k) was most of that page.
 *
 * The ids and parents up to the leaf come from the covering walk index as one string built
 * by SQLite (an index scan; no entry row is touched), and the branch is found by one
 * backward pass over it: where every row has pointers, ids are unique and every parent was
 * written before its child, so the first row above a child with its parent's id is that
 * parent. No map of ids is built. A recursive query following the rows' `walk` pointers
 * reads the same answer, but each step reads an entry row (the pointer cell follows the
 * JSON), which on a 100k-entry session cost several times the index scan.
 *
 * @module
 */
import type { StatementSource } from "./_context.ts";

const RECORD = "\x1e";
const FIELD = "\x1f";

/**
 * Positions (seqs) of the branch ending at the row `leafSeq`, root first; `undefined` when
 * the rows up to it are not what the caller vouched for (a gap in the seqs, the leaf's id
 * elsewhere, a parent not above its child): the caller reads the tree then. Run it inside
 * a read transaction. Ids never contain the separators (`assertStorableEntries`).
 *
 * @example
 * ```ts
 * import { readBranchPositions } from "./_path.ts";
 * import type { StatementSource } from "./_context.ts";
 * declare const statement: StatementSource;
 * readBranchPositions(statement, "s1", 41, "e41"); // [0, 1, 5, ..., 41]
 * ```
 */
export function readBranchPositions(
  statement: StatementSource,
  sessionId: string,
  leafSeq: number,
  leafId: string,
): number[] | undefined {
  // The subquery's order is the index's (no sort); group_concat keeps it.
  const row = statement(
    `SELECT count(*) AS n, group_concat(entry_id || char(31) || ifnull(parent_id, ''), char(30))
       AS tree FROM (SELECT entry_id, parent_id FROM entries INDEXED BY entries_walk
       WHERE session_id = ? AND seq <= ? ORDER BY seq)`,
  ).get(sessionId, leafSeq);
  if (!row || Number(row.n) !== leafSeq + 1 || row.tree == null) return undefined;
  return branchOf(String(row.tree), leafSeq, leafId);
}

/** The backward pass over records `id FIELD parent` separated by RECORD, the last at `leafSeq`. */
function branchOf(text: string, leafSeq: number, leafId: string): number[] | undefined {
  const path: number[] = [];
  let wanted: string | null = leafId;
  let end = text.length;
  for (let seq = leafSeq; seq >= 0 && wanted !== null; seq--) {
    const start = text.lastIndexOf(RECORD, end - 1) + 1;
    const split = text.indexOf(FIELD, start);
    if (split < 0 || split >= end) return undefined;
    if (text.startsWith(wanted, start) && split - start === wanted.length) {
      path.push(seq);
      wanted = split + 1 === end ? null : text.slice(split + 1, end);
    } else if (seq === leafSeq) return undefined; // the leaf is not the row it was said to be
    end = start - 1;
  }
  return wanted === null ? path.reverse() : undefined; // a parent not above its child
}
