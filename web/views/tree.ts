/**
 * The session tree: a virtual list over the worker's flattened tree rows (fixed row
 * height, pages fetched on demand), so a session of 100k entries renders only the rows on
 * screen. Branch connectors, labels, the active path and the current leaf are marked;
 * clicking a row makes that entry the leaf; the arrow keys move a focus cursor and Enter
 * makes its entry the leaf.
 *
 * @module
 */
import { el, replaceChildren } from "../dom.ts";
import type { ViewerClient } from "../rpc.ts";
import type { TreeRowView, TreeStartView } from "../types.ts";

/** Height of one row in CSS pixels (matches `.tree-row` in style.css). */
export const TREE_ROW_HEIGHT = 26;
const PAGE = 200;
const OVERSCAN = 20;

/** Short badge text for an entry kind. */
export function kindBadge(kind: string): { text: string; tone: string } {
  const role = kind.startsWith("message:") ? kind.slice(8) : "";
  const map: Record<string, [string, string]> = {
    user: ["user", "user"],
    assistant: ["assistant", "assistant"],
    toolResult: ["tool", "tool"],
    bashExecution: ["bash", "tool"],
    custom: ["custom", "custom"],
    branchSummary: ["summary", "summary"],
    system: ["system", "meta"],
    compactionSummary: ["old summary", "meta"],
  };
  if (role) {
    const [text, tone] = Object.hasOwn(map, role) ? map[role] : [role, "meta"];
    return { text, tone };
  }
  const entryMap: Record<string, [string, string]> = {
    compaction: ["compaction", "boundary"],
    context_edit: ["edit", "edit"],
    branch_summary: ["summary", "summary"],
    custom_message: ["custom", "custom"],
    model_change: ["model", "meta"],
    thinking_level_change: ["thinking", "meta"],
    context_window_change: ["window", "meta"],
    label: ["label", "meta"],
    session_info: ["name", "meta"],
    session_summary: ["summary", "meta"],
    custom: ["state", "meta"],
    usage: ["usage", "meta"],
    context_compaction: ["retired", "meta"],
  };
  const [text, tone] = Object.hasOwn(entryMap, kind) ? entryMap[kind] : [kind, "meta"];
  return { text, tone };
}

/** Options for {@link TreeView}. */
export interface TreeViewOptions {
  client: ViewerClient;
  sessionId: string;
  rowCount: number;
  leafId: string | null;
  onSelect(entryId: string): void;
  /**
   * The rows the worker answered with the tree's size (`treeStart`), shown until their
   * pages come: a page asked meanwhile may wait behind the session's full load.
   */
  start?: TreeStartView;
}

/** The virtual tree list. */
export class TreeView {
  /** The scroll container to put in the page. */
  readonly element: HTMLDivElement;
  readonly #spacer: HTMLDivElement;
  readonly #window: HTMLDivElement;
  readonly #pages = new Map<number, TreeRowView[]>();
  readonly #pending = new Set<number>();
  #stale = new Map<number, TreeRowView[]>();
  /** The first rows (see `TreeViewOptions.start`), for the leaf they were marked for. */
  #start: TreeStartView | undefined;
  #generation = 0;
  #leafId: string | null;
  #frame = 0;
  /** The row the arrow keys moved to (focus only; Enter makes it the leaf). */
  #cursor: number | undefined;

  constructor(readonly options: TreeViewOptions) {
    this.#leafId = options.leafId;
    this.#start = options.start;
    this.#spacer = el("div", { class: "tree-spacer" });
    this.#spacer.style.height = `${options.rowCount * TREE_ROW_HEIGHT}px`;
    this.#window = el("div", { class: "tree-window", attrs: { role: "tree" } });
    this.#spacer.append(this.#window);
    this.element = el("div", {
      class: "tree",
      attrs: { tabindex: 0, "aria-label": "Session tree" },
    }, this.#spacer);
    this.element.addEventListener("scroll", () => this.#schedule());
    new ResizeObserver(() => this.#schedule()).observe(this.element);
    this.element.addEventListener("keydown", (event) => {
      const step = event.key === "ArrowDown" ? 1 : event.key === "ArrowUp" ? -1 : 0;
      if (step) {
        event.preventDefault();
        void this.#moveCursor(step);
      } else if (event.key === "Enter" || event.key === " ") {
        const row = this.#cursor === undefined ? undefined : this.#row(this.#cursor);
        if (!row) return;
        event.preventDefault();
        options.onSelect(row.id);
      }
    });
    this.#window.addEventListener("click", (event) => {
      const row = (event.target as Element).closest<HTMLElement>(".tree-row");
      const id = row?.dataset.id;
      if (id === undefined) return;
      this.#cursor = undefined; // the arrows go on from the clicked row, the new leaf
      options.onSelect(id);
    });
  }

  /** Mark a new leaf (rows are refetched, old marks stay until they arrive). */
  setLeaf(leafId: string | null): void {
    if (leafId === this.#leafId) return;
    this.#leafId = leafId;
    this.refresh();
  }

  /** Fetch the rows again (the loaded session's add the label chips); shown ones stay meanwhile. */
  refresh(): void {
    this.#generation++;
    this.#stale = new Map(this.#pages);
    this.#pages.clear();
    this.#pending.clear();
    this.#schedule();
  }

  /** Scroll so that an entry's row is visible (centred when it was off screen). */
  async reveal(entryId: string): Promise<void> {
    this.revealRow(await this.options.client.call("treeRowIndex", this.options.sessionId, entryId));
  }

  /** Scroll so that row `index` is visible (centred when it was off screen). */
  revealRow(index: number): void {
    if (index < 0) return;
    const top = index * TREE_ROW_HEIGHT;
    const view = this.element;
    if (top < view.scrollTop || top + TREE_ROW_HEIGHT > view.scrollTop + view.clientHeight) {
      view.scrollTop = Math.max(0, top - view.clientHeight / 2);
    }
    this.#schedule();
  }

  /**
   * Move the keyboard cursor a row up or down (from the leaf the first time), scrolled into
   * view. Only moving: a long tree is read with the arrows without rebuilding the context
   * on every press.
   */
  async #moveCursor(delta: number): Promise<void> {
    const { client, sessionId, rowCount } = this.options;
    let from = this.#cursor;
    if (from === undefined) {
      from = this.#leafId === null
        ? -1
        : await client.call("treeRowIndex", sessionId, this.#leafId);
      if (from < 0) from = delta > 0 ? -1 : rowCount;
    }
    const target = Math.min(rowCount - 1, Math.max(0, from + delta));
    this.#cursor = target;
    const top = target * TREE_ROW_HEIGHT;
    const view = this.element;
    if (top < view.scrollTop) view.scrollTop = top;
    else if (top + TREE_ROW_HEIGHT > view.scrollTop + view.clientHeight) {
      view.scrollTop = top + TREE_ROW_HEIGHT - view.clientHeight;
    }
    this.#schedule();
  }

  #schedule(): void {
    if (this.#frame) return;
    this.#frame = requestAnimationFrame(() => {
      this.#frame = 0;
      this.#render();
    });
  }

  #fetch(page: number): void {
    if (this.#pages.has(page) || this.#pending.has(page)) return;
    this.#pending.add(page);
    const generation = this.#generation;
    const { client, sessionId } = this.options;
    client.call("treeRows", sessionId, this.#leafId, page * PAGE, PAGE).then((rows) => {
      if (generation !== this.#generation) return;
      this.#pending.delete(page);
      this.#pages.set(page, rows);
      this.#stale.delete(page);
      this.#schedule();
    }).catch(() => this.#pending.delete(page));
  }

  #row(index: number): TreeRowView | undefined {
    const page = Math.floor(index / PAGE);
    const row = (this.#pages.get(page) ?? this.#stale.get(page))?.[index - page * PAGE];
    return row ?? this.#start?.rows[index - this.#start.start];
  }

  #render(): void {
    const { rowCount } = this.options;
    const height = this.element.clientHeight || 600;
    const first = Math.max(0, Math.floor(this.element.scrollTop / TREE_ROW_HEIGHT) - OVERSCAN);
    const last = Math.min(rowCount, first + Math.ceil(height / TREE_ROW_HEIGHT) + OVERSCAN * 2);
    for (let page = Math.floor(first / PAGE); page <= Math.floor((last - 1) / PAGE); page++) {
      this.#fetch(page);
    }
    this.#window.style.transform = `translateY(${first * TREE_ROW_HEIGHT}px)`;
    const rows: HTMLElement[] = [];
    for (let i = first; i < last; i++) {
      const row = this.#renderRow(this.#row(i));
      if (i === this.#cursor) {
        row.classList.add("cursor");
        row.id = "tree-cursor";
      }
      rows.push(row);
    }
    replaceChildren(this.#window, ...rows);
    if (this.#cursor === undefined) this.element.removeAttribute("aria-activedescendant");
    else this.element.setAttribute("aria-activedescendant", "tree-cursor");
  }

  #renderRow(row: TreeRowView | undefined): HTMLElement {
    if (!row) return el("div", { class: "tree-row loading" }, "…");
    const badge = kindBadge(row.kind);
    const classes = ["tree-row"];
    if (row.onPath) classes.push("on-path");
    if (row.leaf) classes.push("leaf");
    const node = el(
      "div",
      {
        class: classes.join(" "),
        title: `${row.id} · ${row.timestamp}`,
        attrs: { role: "treeitem", "aria-selected": row.leaf ? "true" : "false" },
        dataset: { id: row.id },
      },
      el("span", { class: "tree-prefix" }, row.prefix),
      el(
        "span",
        { class: "tree-dot", attrs: { "aria-hidden": "true" } },
        row.leaf ? "●" : row.onPath ? "•" : "·",
      ),
      el("span", { class: `badge tone-${badge.tone}` }, badge.text),
      row.label !== undefined ? el("span", { class: "chip label-chip" }, row.label) : null,
      el("span", { class: "tree-text" }, row.text),
      row.childCount > 1
        ? el("span", { class: "tree-branches" }, `${row.childCount} branches`)
        : null,
    );
    return node;
  }
}
