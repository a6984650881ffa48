/**
 * How the session list is arranged: sorted (modified, created or size), grouped by project
 * (the session's cwd; a group sits where its first session sits under the chosen sort), and
 * each fork linked to the session it came from. Pure functions over rows, so the page only
 * draws.
 *
 * @module
 */
import type { SessionRowView } from "../types.ts";

/** The list's sort orders, newest or largest first. */
export type ListSort = "modified" | "created" | "size";

/** Sort orders with their labels, in menu order. */
export const LIST_SORTS: ReadonlyArray<readonly [ListSort, string]> = [
  ["modified", "Last modified"],
  ["created", "Created"],
  ["size", "Size (messages)"],
];

/** Whether `value` names a sort order (a value from the URL or storage may not). */
export function isListSort(value: unknown): value is ListSort {
  return LIST_SORTS.some(([sort]) => sort === value);
}

/**
 * The rows in `sort` order, newest (or largest) first; ties keep the newer modified first
 * and then the id, so the order never depends on the store's.
 *
 * @example
 * ```ts
 * import { sortRows } from "./list_groups.ts";
 * sortRows([], "size"); // []
 * ```
 */
export function sortRows(rows: readonly SessionRowView[], sort: ListSort): SessionRowView[] {
  const key = (row: SessionRowView) =>
    sort === "created" ? row.created : sort === "size" ? row.messageCount : row.modified;
  return [...rows].sort((a, b) =>
    key(b) - key(a) || b.modified - a.modified || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}

/** The sessions of one project (one cwd). */
export interface ProjectGroup {
  /** The cwd ("" for sessions without one). */
  cwd: string;
  rows: SessionRowView[];
}

/**
 * Group sorted rows by cwd. A group sits where its first row sits in the sorted order, so
 * "last modified" puts the most recently active project first.
 *
 * @example
 * ```ts
 * import { groupByProject } from "./list_groups.ts";
 * groupByProject([]); // []
 * ```
 */
export function groupByProject(rows: readonly SessionRowView[]): ProjectGroup[] {
  const groups = new Map<string, ProjectGroup>();
  for (const row of rows) {
    let group = groups.get(row.cwd);
    if (!group) groups.set(row.cwd, group = { cwd: row.cwd, rows: [] });
    group.rows.push(row);
  }
  return [...groups.values()];
}

/**
 * Find each fork's parent among the listed rows (same source). Returns a lookup from a
 * row's `parentSessionId` to the parent row, or undefined when the parent is not listed
 * (deleted, never imported, or an internal session behind the toggle).
 *
 * @example
 * ```ts
 * import { parentLookup } from "./list_groups.ts";
 * parentLookup([])("abc"); // undefined
 * ```
 */
export function parentLookup(
  rows: readonly SessionRowView[],
): (parentSessionId: string) => SessionRowView | undefined {
  const byId = new Map<string, SessionRowView>();
  for (const row of rows) byId.set(row.id, row);
  return (parentSessionId) => byId.get(parentSessionId);
}

/** The last two path segments of a cwd: enough to tell projects apart in a heading. */
export function projectName(cwd: string): string {
  if (!cwd) return "(no cwd)";
  const parts = cwd.split(/[\\/]+/).filter(Boolean);
  return parts.length ? parts.slice(-2).join("/") : cwd;
}
