/**
 * The raw JSON lines of the entries on the active path, beside the context or the
 * conversation: a bounded window of pages (see {@link PagedWindow}), "show all" for long
 * lines, and an entry revealed (scrolled to and highlighted) for a search hit or a click.
 *
 * @module
 */
import { el } from "../dom.ts";
import type { RawEntryView } from "../types.ts";
import { PagedWindow } from "../paged_window.ts";
import type { ContextSource } from "./context.ts";
import { foldedBlock } from "./fold_block.ts";

const RAW_PAGE = 25;
/** Most raw entries held: scrolling on drops pages at the far end (see {@link PagedWindow}). */
export const RAW_WINDOW = 6 * RAW_PAGE;

/** The raw entries on the active path (paged), with "show all" for long lines. */
export class RawPane {
  readonly element: HTMLElement;
  readonly #list: HTMLElement;
  readonly #window: PagedWindow<RawEntryView>;
  #first: Promise<void> | undefined;

  constructor(readonly source: ContextSource) {
    this.#list = el("ol", { class: "raw-list" });
    const top = el("div", { class: "sentinel" });
    const bottom = el("div", { class: "sentinel" });
    this.element = el(
      "section",
      { class: "pane raw-pane" },
      el("h3", {}, "Raw entries on this branch"),
      top,
      this.#list,
      bottom,
    );
    const { client, sessionId, leafId } = source;
    this.#window = new PagedWindow({
      list: this.#list,
      top,
      bottom,
      pageSize: RAW_PAGE,
      windowSize: RAW_WINDOW,
      fetch: (start, count) => client.call("raw", sessionId, leafId, start, count),
      render: (item) => this.#renderItem(item),
      onPage: (page) => {
        if (page.total === 0) {
          this.#list.append(el("li", { class: "empty" }, "No entries on this branch."));
        }
      },
      scroller: () => this.element,
    });
  }

  /** Load the next page (the first on the first call). */
  async more(): Promise<void> {
    if (!this.#first) return await (this.#first = this.#window.load(0, "after"));
    await this.#first; // a second caller meanwhile must not load the first page again
    await this.#window.settled();
    await this.#window.later();
  }

  /**
   * Scroll to and highlight an entry, loading pages until it is there (bounded). The window
   * may have moved past the start of the branch: the search then begins again from there.
   */
  async reveal(entryId: string): Promise<void> {
    await this.#window.settled();
    if (!this.#find(entryId) && this.#window.from > 0) await this.#window.load(0, "replace");
    for (let i = 0; i < 50; i++) {
      const found = this.#find(entryId);
      if (found) {
        for (const old of this.#list.querySelectorAll(".highlight")) {
          old.classList.remove("highlight");
        }
        found.classList.add("highlight");
        found.scrollIntoView({ block: "center" });
        return;
      }
      const win = this.#window;
      if (win.total >= 0 && win.to >= win.total) return;
      await this.more();
    }
  }

  #find(entryId: string): HTMLElement | undefined {
    return [...this.#list.children].find((li) => (li as HTMLElement).dataset.id === entryId) as
      | HTMLElement
      | undefined;
  }

  #renderItem(item: RawEntryView): HTMLElement {
    const { client, sessionId } = this.source;
    const full = item.fullLength > item.json.length
      ? { length: item.fullLength, load: () => client.call("rawEntry", sessionId, item.id) }
      : undefined;
    return el(
      "li",
      { class: "raw-item", dataset: { id: item.id } },
      el(
        "div",
        { class: "item-head" },
        el("code", {}, item.id),
        el("span", { class: "muted" }, item.type),
      ),
      ...foldedBlock("json", item.json, full),
    );
  }

  /** Stop observing (the view is being replaced). */
  dispose(): void {
    this.#window.dispose();
  }
}
