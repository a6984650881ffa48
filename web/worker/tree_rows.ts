/**
 * Flatten a session tree into display rows, the way pi's `/tree` draws it: a chain of
 * single children stays in one column; at a branch point every child gets a connector
 * (`├─`, `└─`) and its subtree a gutter (`│  `). Built once per opened session, iteratively
 * (deep sessions never overflow the stack); pages of it are marked for the current leaf.
 *
 * @module
 */
import type { SessionEntry } from "../../src/schema.ts";
import type { SessionTreeNode } from "../../src/tree.ts";
import type { TreeRowView } from "../types.ts";
import { entryKind, entryPreview } from "./describe.ts";

/** A row without the per-leaf marks. */
export interface TreeRow {
  node: SessionTreeNode;
  prefix: string;
}

/**
 * Gutters longer than this are shortened from the left (very bushy trees): eight levels
 * of connectors, so even a phone's row keeps room for the entry's kind and text.
 */
export const MAX_PREFIX = 24;

function clampPrefix(prefix: string): string {
  return prefix.length > MAX_PREFIX ? `⋯${prefix.slice(prefix.length - MAX_PREFIX + 1)}` : prefix;
}

/**
 * Rows of the tree in display order (depth first, children in the order `getTree` gives:
 * by timestamp).
 */
export function flattenTree(roots: SessionTreeNode[]): TreeRow[] {
  return flattenShape(roots, (node) => node.children);
}

/**
 * {@link flattenTree} over any node type: the loaded tree's nodes, or the positions of a
 * tree known only by its ids and parents (`tree_shape.ts`), which draws the same rows.
 */
export function flattenShape<N>(
  roots: readonly N[],
  childrenOf: (node: N) => readonly N[],
): { node: N; prefix: string }[] {
  const rows: { node: N; prefix: string }[] = [];
  interface Frame {
    node: N;
    gutter: string;
    connector: string;
    childGutter: string;
  }
  const stack: Frame[] = [];
  const pushChildren = (children: readonly N[], gutter: string) => {
    if (children.length === 1) {
      stack.push({ node: children[0], gutter, connector: "", childGutter: gutter });
      return;
    }
    for (let i = children.length - 1; i >= 0; i--) {
      const last = i === children.length - 1;
      stack.push({
        node: children[i],
        gutter,
        connector: last ? "└─ " : "├─ ",
        childGutter: gutter + (last ? "   " : "│  "),
      });
    }
  };
  pushChildren(roots, "");
  while (stack.length > 0) {
    const frame = stack.pop()!;
    rows.push({ node: frame.node, prefix: clampPrefix(frame.gutter + frame.connector) });
    pushChildren(childrenOf(frame.node), frame.childGutter);
  }
  return rows;
}

/** Count entries with more than one child. */
export function countBranchPoints(rows: readonly TreeRow[]): number {
  let count = 0;
  for (const row of rows) if (row.node.children.length > 1) count++;
  return count;
}

/** Rows `[start, start+count)` as views, marked for the path to the current leaf. */
export function treeRowViews(
  rows: readonly TreeRow[],
  start: number,
  count: number,
  pathIds: ReadonlySet<string>,
  leafId: string | null,
): TreeRowView[] {
  const out: TreeRowView[] = [];
  const end = Math.min(rows.length, Math.max(0, start) + Math.max(0, count));
  const marks = { pathIds, leafId };
  for (let i = Math.max(0, start); i < end; i++) {
    const { node, prefix } = rows[i];
    out.push(treeRowView(node.entry, prefix, node.children.length, node.label, marks));
  }
  return out;
}

/** One row's view: the entry's kind and preview, marked for the path to the current leaf. */
export function treeRowView(
  entry: SessionEntry,
  prefix: string,
  childCount: number,
  label: string | undefined,
  marks: { pathIds: ReadonlySet<string>; leafId: string | null },
): TreeRowView {
  const view: TreeRowView = {
    id: entry.id,
    prefix,
    kind: entryKind(entry),
    text: entryPreview(entry),
    timestamp: typeof entry.timestamp === "string" ? entry.timestamp : "",
    onPath: marks.pathIds.has(entry.id),
    leaf: entry.id === marks.leafId,
    childCount,
  };
  if (label !== undefined) view.label = label;
  return view;
}
