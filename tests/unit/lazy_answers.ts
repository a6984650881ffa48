/**
 * What a caller of a `SessionView` sees, gathered for the lazy-entries differential tests
 * (tests/unit/lazy_index.test.ts, tests/sqlite/lazy_cases.ts, tests/deno/jsonl_lazy.test.ts):
 * a lazily indexed manager must give exactly these answers of a view over the full load.
 * Runtime neutral.
 *
 * @module
 */
import type { SessionTreeNode, SessionView } from "../../core.ts";

/** The tree as nodes in walk order (a deep tree overflows a recursive deep compare). */
export function flatTree(roots: SessionTreeNode[]): unknown[] {
  const out: unknown[] = [];
  const stack = [...roots].reverse();
  for (let node = stack.pop(); node; node = stack.pop()) {
    out.push([node.entry, node.label, node.children.map((child) => child.entry.id)]);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
  }
  return out;
}

/** Answers at the view's current leaf (what resuming a session reads). */
export function leafAnswers(view: SessionView) {
  return {
    leaf: view.getLeafId(),
    leafEntry: view.getLeafEntry(),
    context: view.buildSessionContext(),
    projection: view.buildSessionProjection(),
    contextEntries: view.buildContextEntries(),
    branch: view.getBranch(),
  };
}

/** Whole-session answers for `ids` (they parse everything, so they come after the others). */
export function sessionAnswers(view: SessionView, ids: readonly string[]) {
  return {
    header: view.getHeader(),
    file: view.getSessionFile(),
    perId: ids.map((id) => ({
      entry: view.getEntry(id),
      children: view.getChildren(id),
      label: view.getLabel(id),
    })),
    roots: view.getChildren(null as unknown as string),
    dangling: view.getDanglingEntryIds(),
    name: view.getSessionNameState(),
    summary: view.getSessionSummary(),
    usage: view.getUsageTotals(),
    entries: view.getEntries(),
    tree: flatTree(view.getTree()),
  };
}

/** Both, in that order. */
export function answers(view: SessionView, ids: readonly string[]) {
  return { ...leafAnswers(view), ...sessionAnswers(view, ids) };
}
