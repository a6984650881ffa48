/**
 * The conversation as a scrolling list that holds a window of items, loaded a page at a
 * time as either end comes into view (a 100k-entry branch never becomes 100k nodes at
 * once), each page rendered in slices that yield to the browser so no task runs long.
 * "Jump to latest" moves the window to the end; markers (model changes, labels, ...) can be
 * hidden; `j`/`k` (or the arrow keys inside the list) move between messages.
 * Shared by the viewer (pages from the worker) and the HTML export (pages from the
 * embedded JSON).
 *
 * @module
 */
import { button, el, formatCount } from "../dom.ts";
import type { ConvItem } from "./model.ts";
import { renderItem } from "./render.ts";
import { summaryBlock } from "./summary.ts";
import { OutlineRail } from "./outline.ts";
import type { OutlineRow } from "./outline_model.ts";
import type { BranchSummaryView } from "../worker/branch_summary.ts";
import { prepareGrammars } from "./highlight.ts";
import { afterNextFrame, nextFrame, PagedWindow } from "../paged_window.ts";
import { ScrollAnchor } from "../scroll_anchor.ts";

import { CONV_PAGE } from "./model.ts";

export { CONV_PAGE };
/** Most items held in the page at once. */
export const CONV_WINDOW = 150;
/** Most frames "Jump to latest" keeps the last item at the end while the layout settles. */
const SETTLE_FRAMES = 60;
/** What the reader does to scroll: a jump stops following its item then. */
const READER_INPUT = ["wheel", "touchstart", "pointerdown", "keydown"] as const;

/** Where the list gets items. */
export interface ConversationSource {
  page(
    start: number,
    count: number,
  ): Promise<{ total: number; items: ConvItem[]; partial?: boolean }>;
  /** The branch's summary, shown above the list when given. */
  summary?(): Promise<BranchSummaryView>;
  /** The branch's outline rows, for the outline rail above the list when given. */
  outline?(): Promise<OutlineRow[]>;
  /** The exact item count, asked when a page was `partial` and the end is wanted. */
  total?(): Promise<number>;
  /**
   * Ask for the summary and the outline only once the first page is in (they wait for a
   * load the first page does not; asked at once, they would go before it).
   */
  afterFirstPage?: boolean;
}

/** Wrap each occurrence of `terms` (any case) in the text under `root` in a `<mark>`. */
export function markTerms(root: HTMLElement, terms: readonly string[]): number {
  const wanted = [...new Set(terms.map((term) => term.toLowerCase()).filter(Boolean))];
  if (!wanted.length) return 0;
  const texts: Text[] = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) texts.push(node as Text);
  let marked = 0;
  for (const text of texts) {
    const value = text.data;
    const lower = value.toLowerCase();
    const parts: Array<string | HTMLElement> = [];
    let at = 0;
    for (;;) {
      let next = -1;
      let term = "";
      for (const candidate of wanted) {
        const found = lower.indexOf(candidate, at);
        if (found >= 0 && (next < 0 || found < next)) [next, term] = [found, candidate];
      }
      if (next < 0) break;
      if (next > at) parts.push(value.slice(at, next));
      parts.push(el("mark", { class: "find-mark" }, value.slice(next, next + term.length)));
      at = next + term.length;
      marked++;
    }
    if (!parts.length) continue;
    if (at < value.length) parts.push(value.slice(at));
    text.replaceWith(...parts);
  }
  return marked;
}

/** A mounted conversation list. */
export class ConversationList {
  readonly element: HTMLElement;
  readonly #list: HTMLElement;
  readonly #top: HTMLElement;
  readonly #bottom: HTMLElement;
  readonly #status: HTMLElement;
  readonly #window: PagedWindow<ConvItem>;
  readonly #anchor: ScrollAnchor;
  readonly #onKey = (event: KeyboardEvent) => this.#key(event);
  #firstPageIn = () => {};

  constructor(readonly source: ConversationSource) {
    this.#list = el("div", {
      class: "conv-list",
      attrs: { role: "feed", "aria-label": "Conversation" },
    });
    this.#top = el("div", { class: "sentinel conv-top" });
    this.#bottom = el("div", { class: "sentinel conv-bottom" });
    this.#status = el("span", { class: "muted conv-count" });
    const markers = el("input", { attrs: { type: "checkbox", id: "conv-markers", checked: true } });
    markers.addEventListener("change", () => {
      this.#list.classList.toggle("hide-markers", !markers.checked);
    });
    this.element = el(
      "section",
      { class: "pane conversation", attrs: { id: "conversation" } },
      el(
        "div",
        { class: "conv-toolbar" },
        el("label", { class: "toggle" }, markers, " Markers"),
        button("Jump to latest", () => void this.jumpToLatest(), {
          class: "conv-latest",
          attrs: { id: "conv-latest" },
        }),
        el("span", { class: "muted hint" }, "j / k: next / previous message"),
        this.#status,
      ),
      this.#top,
      this.#list,
      this.#bottom,
    );
    // The summary and the outline each need the whole branch: where the first page comes
    // without it (`afterFirstPage`), they are asked for once that page is in, not before it.
    const firstPage = source.afterFirstPage
      ? new Promise<void>((resolve) => this.#firstPageIn = resolve)
      : Promise.resolve();
    if (source.outline) {
      const rows = firstPage.then(() => source.outline!());
      this.element.prepend(new OutlineRail(rows, (row) => void this.jumpTo(row)).element);
    }
    if (source.summary) {
      const slot = el("div", { class: "conv-summary-slot" });
      this.element.prepend(slot);
      firstPage.then(() => source.summary!()).then((summary) =>
        slot.replaceWith(summaryBlock(summary))
      ).catch(() => slot.remove()); // the conversation reads fine without it
    }
    this.#window = new PagedWindow({
      list: this.#list,
      top: this.#top,
      bottom: this.#bottom,
      pageSize: CONV_PAGE,
      windowSize: CONV_WINDOW,
      fetch: (start, count) => source.page(start, count),
      render: renderItem,
      // Grammars compiled a frame each while the first page is fetched (see prepareGrammars).
      ready: prepareGrammars(nextFrame),
      onPage: (page) => {
        if (page.total === 0) {
          this.#list.append(el("p", { class: "empty muted" }, "No messages on this branch."));
        }
        // A partial page knows only that more follow.
        this.#status.textContent = page.partial
          ? `${formatCount(page.total - 1)}+ items`
          : `${formatCount(page.total)} items`;
      },
      scroller: () => this.#scroller(),
    });
    this.#anchor = new ScrollAnchor(this.#list, () => this.#scroller());
    document.addEventListener("keydown", this.#onKey);
  }

  /** Load the first page; `shown` is called once its first rows are in the list. */
  async start(shown?: () => void): Promise<void> {
    try {
      await this.#window.load(0, "after", shown);
    } finally {
      this.#firstPageIn();
    }
  }

  /** The exact item count, when the pages so far said only that more follow. */
  async #exactTotal(): Promise<void> {
    const win = this.#window;
    if (!win.partial || !this.source.total) return;
    // The count needs the whole session (through `mu serve`, every page of it): say so.
    this.#status.textContent = "Loading the rest of the conversation…";
    const total = await this.source.total();
    if (win.partial) [win.total, win.partial] = [total, false];
    this.#status.textContent = `${formatCount(win.total)} items`;
  }

  /** How many items the conversation has (-1 before the first page). */
  get total(): number {
    return this.#window.total;
  }

  /**
   * The element that scrolls the list: the nearest enclosing one that scrolls and has
   * more to show than fits (this pane where the page lays out columns; an outer one where
   * the pane grows with its content, on narrower screens), else the page (the export).
   */
  #scroller(): Element {
    for (let node = this.element as Element | null; node; node = node.parentElement) {
      if (node === document.body) break;
      const overflow = getComputedStyle(node).overflowY;
      const scrolls = overflow === "auto" || overflow === "scroll";
      // (A pane a pixel or two taller than its box through rounding does not count.)
      if (scrolls && node.scrollHeight - node.clientHeight > 2) return node;
    }
    return document.scrollingElement ?? document.documentElement;
  }

  /** Show the end of the conversation and focus its last message. */
  async jumpToLatest(): Promise<void> {
    const win = this.#window;
    if (win.total < 0) await this.start();
    await this.#exactTotal();
    if (win.to < win.total) {
      await win.load(Math.max(0, win.total - CONV_PAGE), "replace");
    }
    const items = this.#items();
    const last = items[items.length - 1];
    if (!last) return;
    this.#focusItem(last, "end");
    await this.#keepAtEnd(last);
  }

  /**
   * Keep the last item at the end while what came into view is laid out: the items stood
   * in at placeholder heights when the jump scrolled, and the anchor keeps the item's top
   * where the jump put it, not its end, so an item laid out shorter (and the scroll
   * position clamped meanwhile) left it lower than the end, cut off. Scrolled to the end
   * again each frame the scroller has room below it, until the layout is still or the
   * reader acts.
   */
  async #keepAtEnd(node: HTMLElement): Promise<void> {
    let acted = false;
    const stop = () => acted = true;
    for (const type of READER_INPUT) document.addEventListener(type, stop, { capture: true });
    try {
      for (let frame = 0, still = 0; frame < SETTLE_FRAMES && still < 3; frame++) {
        await afterNextFrame();
        if (acted || !node.isConnected || !node.classList.contains("conv-current")) return;
        const scroller = this.#scroller();
        const room = scroller.scrollHeight - scroller.clientHeight - scroller.scrollTop;
        // An item taller than the view shows its start (see `#focusItem`): left there.
        const fits = node.getBoundingClientRect().height < scroller.clientHeight;
        if (room <= 1 || !fits) still++;
        else {
          still = 0;
          scroller.scrollTop += room; // the list's end: the last item and the room after it
          this.#anchor.pin(node);
        }
      }
    } finally {
      for (const type of READER_INPUT) document.removeEventListener(type, stop, { capture: true });
    }
  }

  /** Bring the conversation to one item (from the outline), loading its page if needed. */
  async jumpTo(row: OutlineRow): Promise<void> {
    const win = this.#window;
    if (win.total < 0) await this.start();
    await this.#exactTotal();
    if (row.index < win.from || row.index >= win.to) {
      await win.load(Math.max(0, row.index - 2), "replace");
    }
    const node = this.#list.querySelector<HTMLElement>(
      `.conv-item[data-id="${CSS.escape(row.id)}"]`,
    );
    if (node) this.#focusItem(node, "start");
  }

  /**
   * Show the item at `index` (a search hit): its page loaded in place of
   * the window unless held, scrolled to, and each occurrence of `terms` in it marked.
   */
  async reveal(index: number, terms: readonly string[]): Promise<HTMLElement | undefined> {
    const win = this.#window;
    await win.settled();
    if (win.total < 0) await this.start();
    await this.#exactTotal();
    if (index < 0 || index >= win.total) return undefined;
    if (index < win.from || index >= win.to) {
      const start = Math.max(0, index - Math.floor(CONV_PAGE / 2));
      await win.load(start, "replace");
    }
    await win.settled();
    const node = this.#list.children[index - win.from] as HTMLElement | undefined;
    if (!node) return undefined;
    for (const old of this.#list.querySelectorAll(".conv-hit")) old.classList.remove("conv-hit");
    for (const mark of this.#list.querySelectorAll("mark.find-mark")) {
      mark.replaceWith(...mark.childNodes);
    }
    markTerms(node, terms);
    // The items around it are laid out as they come into view (their heights were
    // placeholders when the scroll was computed): scroll again until it stays in view.
    for (let tries = 0; tries < 4; tries++) {
      this.#focusItem(node, "start");
      await afterNextFrame();
      await afterNextFrame();
      const box = node.getBoundingClientRect();
      if (box.top >= 0 && box.top < innerHeight) break;
    }
    node.classList.add("conv-hit");
    return node;
  }

  #items(): HTMLElement[] {
    const hideMarkers = this.#list.classList.contains("hide-markers");
    return [...this.#list.querySelectorAll<HTMLElement>(".conv-item")].filter((node) =>
      !(hideMarkers && node.classList.contains("conv-marker"))
    );
  }

  #focusItem(node: HTMLElement, block: ScrollLogicalPosition = "start"): void {
    for (const old of this.#list.querySelectorAll(".conv-current")) {
      old.classList.remove("conv-current");
    }
    node.classList.add("conv-current");
    node.focus({ preventScroll: true });
    node.scrollIntoView({ block });
    // An item taller than the view, aligned at its end, or one aligned under a sticky bar
    // (the phone's top bar, the export's toolbar): bring its header into view.
    const scroller = this.#scroller();
    const covered = coveredTop(scroller) - node.getBoundingClientRect().top;
    if (covered > 0) scroller.scrollTop -= covered;
    this.#anchor.pin(node);
  }

  /** Move to the next (+1) or previous (-1) message, loading a page at the window's edge. */
  async step(direction: 1 | -1): Promise<void> {
    const current = this.#list.querySelector<HTMLElement>(".conv-current");
    let items = this.#items();
    let index = current ? items.indexOf(current) : -1;
    let target: HTMLElement | undefined = index < 0
      ? items[direction > 0 ? 0 : items.length - 1]
      : items[index + direction];
    if (!target && current) {
      if (direction > 0) await this.#window.later();
      else await this.#window.earlier();
      items = this.#items(); // the window moved: find the current item again
      index = items.indexOf(current);
      target = index < 0 ? undefined : items[index + direction];
    }
    if (target) this.#focusItem(target, "start");
  }

  #key(event: KeyboardEvent): void {
    if (!this.element.isConnected || event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target as HTMLElement | null;
    if (target && /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName)) return;
    if (target?.isContentEditable) return;
    const inList = target ? this.#list.contains(target) : false;
    const key = event.key;
    if (key === "j" || (inList && key === "ArrowDown")) {
      event.preventDefault();
      void this.step(1);
    } else if (key === "k" || (inList && key === "ArrowUp")) {
      event.preventDefault();
      void this.step(-1);
    }
  }

  /** Stop observing and listening (the view is being replaced). */
  dispose(): void {
    this.#window.dispose();
    this.#anchor.dispose();
    document.removeEventListener("keydown", this.#onKey);
  }
}

/** The lowest edge (viewport px) of what covers the top of `scroller`: its own top, sticky bars. */
function coveredTop(scroller: Element): number {
  let edge = scroller === document.scrollingElement ? 0 : scroller.getBoundingClientRect().top;
  for (const bar of document.querySelectorAll<HTMLElement>(".topbar, .conv-toolbar")) {
    const position = getComputedStyle(bar).position;
    if (position !== "sticky" && position !== "fixed") continue;
    const box = bar.getBoundingClientRect();
    if (box.height > 0 && box.top <= edge + 1) edge = Math.max(edge, box.bottom);
  }
  return edge;
}
