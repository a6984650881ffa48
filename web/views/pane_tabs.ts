/**
 * Small screens: the session page's panes (tree, context, raw entries, usage) become one
 * row of tabs. The buttons set `data-pane` on the page; `styles/layout.css` shows only that
 * pane below 900 px (and hides the page's own Context / Usage tabs, which these replace)
 * and hides these buttons above it, where the panes sit side by side. Choosing an entry in
 * the tree on a small screen switches to the context, where its effect shows.
 *
 * @module
 */
import { button, el } from "../dom.ts";

/** The panes a small screen shows one at a time. */
export type SmallPane = "tree" | "context" | "conversation" | "raw" | "usage";

const PANES: ReadonlyArray<readonly [SmallPane, string]> = [
  ["tree", "Tree"],
  ["context", "Context"],
  ["conversation", "Conversation"],
  ["raw", "Raw"],
  ["usage", "Usage"],
];

/** Below this width (px) the panes are tabs (keep in step with `styles/layout.css`). */
export const SMALL_SCREEN_PX = 900;

/** The tab bar of a session page's panes. */
export class PaneTabs {
  readonly element: HTMLElement;
  readonly #buttons = new Map<SmallPane, HTMLButtonElement>();

  /**
   * @example
   * ```ts
   * import { PaneTabs } from "./pane_tabs.ts";
   * const page = document.createElement("div");
   * const tabs = new PaneTabs(page, "context", (pane) => console.log(pane));
   * page.prepend(tabs.element); // page.dataset.pane === "context"
   * ```
   */
  constructor(
    readonly page: HTMLElement,
    initial: SmallPane,
    /** A tab was chosen (the page switches between context and usage). */
    readonly onShow: (pane: SmallPane) => void,
  ) {
    for (const [pane, label] of PANES) {
      this.#buttons.set(
        pane,
        button(label, () => {
          this.show(pane);
          this.onShow(pane);
        }, {
          class: "tab",
          attrs: { role: "tab", id: `pane-tab-${pane}` },
        }),
      );
    }
    this.element = el(
      "div",
      { class: "tabs pane-tabs", attrs: { role: "tablist", "aria-label": "Pane" } },
      ...this.#buttons.values(),
    );
    this.show(initial);
  }

  /** Show one pane (on a small screen; on a wide one all stay visible). */
  show(pane: SmallPane): void {
    this.page.dataset.pane = pane;
    for (const [name, node] of this.#buttons) {
      node.classList.toggle("active", name === pane);
      node.setAttribute("aria-selected", String(name === pane));
    }
  }

  /** After a tree choice: on a small screen, show what it changed (in `main`, the open view). */
  followLeaf(main: "context" | "conversation"): void {
    if (this.page.dataset.pane === "tree") this.showOnSmallScreen(main);
  }

  /** On a small screen, switch to `pane` (as if its tab was chosen); wide screens show all. */
  showOnSmallScreen(pane: SmallPane): void {
    if (innerWidth >= SMALL_SCREEN_PX || this.page.dataset.pane === pane) return;
    this.show(pane);
    this.onShow(pane);
  }
}
