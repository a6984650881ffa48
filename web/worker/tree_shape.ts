/**
 * A session's tree drawn before its full load: from the store's lazy open (`OPEN_LAZY`,
 * the SQLite store's covering index), which hands out the ids and parents of every entry
 * without parsing a body. The rows' order and gutters come from those columns; an entry's
 * kind, preview and time are parsed only when its row is asked for (a page on screen),
 * plus the few bodies the order needs (the children of branch points, sorted by time as
 * `getTree` sorts them). The rows are the ones the loaded session draws
 * (`OpenedSession.treeRows`), label chips included: the store names its label entries'
 * positions (`labelPositions`: the SQLite store from a partial index of label rows, the
 * JSONL store from its scan), and only those entries are parsed, once.
 *
 * Only sessions the lazy index would take are drawn this way (unique ids, every parent
 * written before its child); any other waits for the full load, which decides them.
 *
 * @module
 */
import type { LazySession } from "../../src/lazy_index.ts";
import type { SessionEntry } from "../../src/schema.ts";
import type { TreeRowView, TreeStartView } from "../types.ts";
import { flattenShape, treeRowView } from "./tree_rows.ts";

/** What the shape reads of a lazy open (a loaded session gives the same from its entries). */
export type ShapeColumns = Pick<
  LazySession,
  "ids" | "parents" | "read" | "labelPositions" | "reading" | "deferred"
>;

/** The columns of the lazy open, read now (a deferred open reads them here, once). */
function columns(session: ShapeColumns): { ids: string[]; parents: (string | null)[] } | undefined {
  const deferred = session.deferred;
  if (!deferred) return session;
  const tree = deferred.tree();
  const intact = tree.ids.length === deferred.count && tree.ids.at(-1) === deferred.lastId;
  return intact ? tree : undefined;
}

/** Which rows of a tree to answer (`TreeShape.page`). */
export interface TreePage {
  /** The leaf the rows are marked for (null: no row marked). */
  leafId: string | null;
  /** The entry whose row is answered as `focusRow` (default: the leaf). */
  focusId?: string;
  /** The first row; by default the page is centred on the focused row. */
  start?: number;
  count: number;
}

/** Rows of a session's tree from its ids and parents, bodies parsed per page. */
export class TreeShape {
  readonly #session: ShapeColumns;
  readonly #ids: string[];
  readonly #at: Map<string, number>;
  readonly #parents: (number | undefined)[];
  /** Display order: a position per row. */
  readonly #order: Int32Array;
  readonly #prefixes: string[];
  readonly #rowOf: Int32Array;
  readonly #childCount: Uint32Array;
  #path?: { leafId: string | null; ids: Set<string> };
  /** Current labels by target id, read on the first page of rows. */
  #labels?: Map<string, string>;

  private constructor(
    session: ShapeColumns,
    ids: string[],
    at: Map<string, number>,
    parents: (number | undefined)[],
  ) {
    this.#session = session;
    this.#ids = ids;
    this.#at = at;
    this.#parents = parents;
    const roots: number[] = [];
    const children: number[][] = [];
    this.#childCount = new Uint32Array(ids.length);
    for (let i = 0; i < ids.length; i++) {
      const parent = parents[i];
      if (parent === undefined) roots.push(i);
      else {
        (children[parent] ??= []).push(i);
        this.#childCount[parent]++;
      }
    }
    // As `getTree`: siblings by timestamp (stable; an unreadable one counts as 0).
    for (const siblings of children) {
      if (!siblings || siblings.length < 2) continue;
      const times = new Map(siblings.map((i) => [i, timeOf(session.read(i))]));
      siblings.sort((a, b) => times.get(a)! - times.get(b)!);
    }
    const rows = flattenShape(roots, (i) => children[i] ?? []);
    this.#order = new Int32Array(rows.length);
    this.#prefixes = new Array(rows.length);
    this.#rowOf = new Int32Array(ids.length);
    rows.forEach((row, r) => {
      this.#order[r] = row.node;
      this.#prefixes[r] = row.prefix;
      this.#rowOf[row.node] = r;
    });
  }

  /**
   * The shape of a lazily opened session, or `undefined` when its ids repeat or a parent
   * comes after its child (the full load decides those, with its errors).
   *
   * @example
   * ```ts
   * import { TreeShape } from "./tree_shape.ts";
   * import type { LazySession } from "../../src/lazy_index.ts";
   * declare const session: LazySession;
   * TreeShape.from(session)?.rowCount;
   * ```
   */
  static from(session: ShapeColumns): TreeShape | undefined {
    const reading = session.reading ?? ((fn) => fn());
    return reading(() => TreeShape.#from(session));
  }

  static #from(session: ShapeColumns): TreeShape | undefined {
    const known = columns(session);
    if (!known) return undefined;
    const { ids } = known;
    const at = new Map<string, number>();
    for (let i = 0; i < ids.length; i++) {
      if (at.has(ids[i])) return undefined;
      at.set(ids[i], i);
    }
    const parents: (number | undefined)[] = new Array(ids.length);
    for (let i = 0; i < ids.length; i++) {
      const parentId = known.parents[i];
      // A parent the session lacks makes a root, as in `getTree`.
      const parent = parentId === null ? undefined : at.get(parentId);
      if (parent !== undefined && parent >= i) return undefined;
      parents[i] = parent;
    }
    return new TreeShape(session, ids, at, parents);
  }

  /** Rows of the tree (= entries). */
  get rowCount(): number {
    return this.#order.length;
  }

  /** Row index of an entry, -1 when absent. */
  rowIndex(entryId: string): number {
    const at = this.#at.get(entryId);
    return at === undefined ? -1 : this.#rowOf[at];
  }

  /** The tree's size, the focused entry's row and the rows of `page`. */
  page(page: TreePage): TreeStartView {
    const focusRow = this.rowIndex(page.focusId ?? page.leafId ?? "");
    const start = page.start ?? Math.max(0, focusRow - Math.floor(page.count / 2));
    const rows = this.treeRows(page.leafId, start, page.count);
    return { rowCount: this.rowCount, focusRow, start, rows };
  }

  /** Rows `[start, start+count)` marked for `leafId`, their entries parsed now. */
  treeRows(leafId: string | null, start: number, count: number): TreeRowView[] {
    const reading = this.#session.reading ?? ((fn) => fn());
    return reading(() => this.#rows(leafId, start, count));
  }

  #rows(leafId: string | null, start: number, count: number): TreeRowView[] {
    const marks = { pathIds: this.#pathIds(leafId), leafId };
    const labels = this.#currentLabels();
    const end = Math.min(this.rowCount, Math.max(0, start) + Math.max(0, count));
    const out: TreeRowView[] = [];
    for (let r = Math.max(0, start); r < end; r++) {
      const at = this.#order[r];
      const entry = this.#session.read(at);
      const label = labels.get(entry.id);
      out.push(treeRowView(entry, this.#prefixes[r], this.#childCount[at], label, marks));
    }
    return out;
  }

  /** Labels as `getLabel` answers them: the last label entry per target; an empty one clears. */
  #currentLabels(): Map<string, string> {
    if (!this.#labels) {
      this.#labels = new Map();
      for (const at of this.#session.labelPositions()) {
        if (at >= this.#ids.length) continue; // appended after the columns were read
        const entry = this.#session.read(at);
        if (entry.type !== "label") continue;
        if (entry.label) this.#labels.set(entry.targetId, entry.label);
        else this.#labels.delete(entry.targetId);
      }
    }
    return this.#labels;
  }

  /** Ids from the root to `leafId` (from the parents column), cached for the last leaf. */
  #pathIds(leafId: string | null): Set<string> {
    if (this.#path?.leafId !== leafId) {
      const ids = new Set<string>();
      let at = leafId === null ? undefined : this.#at.get(leafId);
      while (at !== undefined) {
        ids.add(this.#ids[at]);
        at = this.#parents[at];
      }
      this.#path = { leafId, ids };
    }
    return this.#path.ids;
  }
}

function timeOf(entry: SessionEntry): number {
  const ms = Date.parse(entry.timestamp);
  return Number.isNaN(ms) ? 0 : ms;
}
