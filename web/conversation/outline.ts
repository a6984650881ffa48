/**
 * The outline rail above the conversation (viewer and HTML export): every item of the
 * branch as a short row, filtered (default, no tools, user only, labeled, all), each a
 * button that brings the conversation to that item wherever it is. Folded on phones
 * (a `<details>` closed below the small-screen width), open on wide screens. A long
 * branch lists its first rows and adds more on demand, so the rail stays cheap.
 *
 * @module
 */
import { button, el, formatCount, replaceChildren } from "../dom.ts";
import {
  OUTLINE_FILTERS,
  type OutlineFilter,
  type OutlineRow,
  outlineShows,
} from "./outline_model.ts";

/** Rows listed before "Show more". */
export const OUTLINE_ROWS_SHOWN = 200;
/** Below this width (px) the rail starts folded (as the pane tabs, `styles/layout.css`). */
const SMALL_SCREEN_PX = 900;

const KIND_NAMES: Record<string, string> = {
  user: "You",
  assistant: "AI",
  tool: "Tool",
  bash: "$",
  summary: "Sum",
  custom: "Ext",
  meta: "·",
};

/** A mounted outline rail. */
export class OutlineRail {
  readonly element: HTMLDetailsElement;
  readonly #list: HTMLOListElement;
  readonly #count: HTMLElement;
  readonly #filters = new Map<OutlineFilter, HTMLButtonElement>();
  #rows: OutlineRow[] = [];
  #filter: OutlineFilter = "default";
  #shown = OUTLINE_ROWS_SHOWN;

  /**
   * @example
   * ```ts
   * import { OutlineRail } from "./outline.ts";
   * const rail = new OutlineRail(Promise.resolve([]), (row) => console.log(row.index));
   * document.body.append(rail.element);
   * ```
   */
  constructor(rows: Promise<OutlineRow[]>, readonly jump: (row: OutlineRow) => void) {
    this.#list = el("ol", { class: "outline-list" });
    this.#count = el("span", { class: "muted outline-count" }, "…");
    for (const [filter, name] of OUTLINE_FILTERS) {
      this.#filters.set(
        filter,
        button(name, () => this.#setFilter(filter), {
          class: "small outline-filter",
          dataset: { filter },
          attrs: { "aria-pressed": "false" },
        }),
      );
    }
    this.element = el(
      "details",
      { class: "conv-outline", attrs: { id: "conv-outline" } },
      el("summary", {}, "Outline ", this.#count),
      el(
        "div",
        { class: "outline-filters", attrs: { role: "group", "aria-label": "Outline filter" } },
        ...this.#filters.values(),
      ),
      this.#list,
    );
    this.element.open = innerWidth >= SMALL_SCREEN_PX;
    rows.then((all) => {
      this.#rows = all;
      this.#draw();
    }).catch(() => this.element.remove()); // the conversation reads fine without it
  }

  #setFilter(filter: OutlineFilter): void {
    this.#filter = filter;
    this.#shown = OUTLINE_ROWS_SHOWN;
    this.#draw();
  }

  #draw(): void {
    for (const [filter, node] of this.#filters) {
      node.setAttribute("aria-pressed", String(filter === this.#filter));
      node.classList.toggle("active", filter === this.#filter);
    }
    const matching = this.#rows.filter((row) => outlineShows(row, this.#filter));
    this.#count.textContent = `${formatCount(matching.length)} of ${
      formatCount(this.#rows.length)
    }`;
    const items = matching.slice(0, this.#shown).map((row) => {
      const jump = el(
        "button",
        {
          class: `outline-row kind-${row.kind}`,
          dataset: { id: row.id, index: String(row.index) },
          onClick: () => this.jump(row),
        },
        el("span", { class: "outline-kind" }, KIND_NAMES[row.kind] ?? row.kind),
        row.label !== undefined ? el("span", { class: "chip label-chip" }, row.label) : null,
        el("span", { class: "outline-text" }, row.text || "—"),
      );
      jump.type = "button";
      return el("li", {}, jump);
    });
    const more = matching.length - this.#shown;
    replaceChildren(
      this.#list,
      ...items,
      more > 0
        ? el(
          "li",
          {},
          button(`Show ${formatCount(Math.min(more, OUTLINE_ROWS_SHOWN))} more`, () => {
            this.#shown += OUTLINE_ROWS_SHOWN;
            this.#draw();
          }, { class: "link-button outline-more" }),
        )
        : null,
      matching.length === 0 ? el("li", { class: "muted" }, "Nothing under this filter.") : null,
    );
  }
}
