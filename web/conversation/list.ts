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
import { button, clear, el, formatCount } from "../dom.ts";
import type { ConvItem } from "./model.ts";
import { renderItem } from "./render.ts";
import { prepareGrammars } from "./highlight.ts";

/** Items loaded per page. */
export const CONV_PAGE = 30;
/** Most items held in the page at once. */
export const CONV_WINDOW = 150;
/** Whether the browser keeps the visible content in place when content above it changes. */
const ANCHORING = typeof CSS !== "undefined" && CSS.supports?.("overflow-anchor", "auto");
/** Rendering work per slice before yielding to the browser (ms). */
const SLICE_MS = 8;

/** Where the list gets items. */
export interface ConversationSource {
  page(start: number, count: number): Promise<{ total: number; items: ConvItem[] }>;
}

const nextFrame = () =>
  new Promise<void>((resolve) => {
    if (typeof requestAnimationFrame === "function") requestAnimationFrame(() => resolve());
    else setTimeout(resolve, 0);
  });

/** A mounted conversation list. */
export class ConversationList {
  readonly element: HTMLElement;
  readonly #list: HTMLElement;
  readonly #top: HTMLElement;
  readonly #bottom: HTMLElement;
  readonly #observer: IntersectionObserver;
  readonly #status: HTMLElement;
  #from = 0;
  #to = 0;
  #total = -1;
  #busy: Promise<void> | undefined;
  #generation = 0;
  /** Grammars compiled a frame each while the first page is fetched (see {@link prepareGrammars}). */
  readonly #grammars = prepareGrammars(nextFrame);
  readonly #onKey = (event: KeyboardEvent) => this.#key(event);

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
    this.#observer = new IntersectionObserver((entries) => {
      for (const entry of entries) {
        if (!entry.isIntersecting) continue;
        if (entry.target === this.#bottom) void this.#later();
        else void this.#earlier();
      }
    }, { rootMargin: "800px 0px" });
    this.#observer.observe(this.#top);
    this.#observer.observe(this.#bottom);
    document.addEventListener("keydown", this.#onKey);
  }

  /** Load the first page. */
  async start(): Promise<void> {
    await this.#load(0, "after");
  }

  /** How many items the conversation has (-1 before the first page). */
  get total(): number {
    return this.#total;
  }

  async #load(start: number, where: "after" | "before" | "replace"): Promise<void> {
    while (this.#busy) await this.#busy;
    const generation = this.#generation;
    const run = (async () => {
      const count = where === "before" ? Math.min(CONV_PAGE, this.#from) : CONV_PAGE;
      const page = await this.source.page(start, count);
      await this.#grammars;
      if (generation !== this.#generation) return;
      this.#total = page.total;
      if (where === "replace") {
        clear(this.#list);
        this.#from = this.#to = start;
      }
      const nodes: HTMLElement[] = [];
      let began = performance.now();
      for (const item of page.items) {
        nodes.push(renderItem(item));
        if (performance.now() - began > SLICE_MS) {
          await nextFrame(); // a heavy page (long code, diffs) renders over several frames
          if (generation !== this.#generation) return;
          began = performance.now();
        }
      }
      if (where === "before") {
        this.#keepInPlace(() => this.#list.prepend(...nodes));
        this.#from = start;
        this.#trim("end");
      } else {
        this.#list.append(...nodes);
        this.#to = start + page.items.length;
        if (where === "after") this.#keepInPlace(() => this.#trim("start"));
      }
      if (page.total === 0) {
        this.#list.append(el("p", { class: "empty muted" }, "No messages on this branch."));
      }
      this.#status.textContent = `${formatCount(page.total)} items`;
    })();
    this.#busy = run;
    try {
      await run;
    } finally {
      if (this.#busy === run) this.#busy = undefined;
    }
    this.#checkEdges(where);
  }

  /**
   * An observer reports only changes: when a page leaves its sentinel still in view (short
   * items, a tall screen), observing it again makes the observer report it once more,
   * asynchronously and without forcing a layout here.
   */
  #checkEdges(where: "after" | "before" | "replace"): void {
    if (!this.element.isConnected) return;
    const sentinel = where === "before" ? this.#top : this.#bottom;
    this.#observer.unobserve(sentinel);
    this.#observer.observe(sentinel);
  }

  /**
   * Drop items beyond {@link CONV_WINDOW} at one end, so a long read never holds (and lays
   * out) more than a window of the conversation; scrolling back loads them again.
   */
  #trim(end: "start" | "end"): void {
    const nodes = this.#list.children;
    let extra = nodes.length - CONV_WINDOW;
    while (extra-- > 0) {
      if (end === "start") {
        nodes[0].remove();
        this.#from++;
      } else {
        nodes[nodes.length - 1].remove();
        this.#to--;
      }
    }
  }

  /**
   * Change the list above what the reader looks at without moving it. Browsers with
   * scroll anchoring do this themselves; elsewhere the first item's shift is scrolled back
   * (one measured layout).
   */
  #keepInPlace(change: () => void): void {
    if (ANCHORING) return change();
    const anchor = this.#list.lastElementChild as HTMLElement | null;
    const before = anchor?.getBoundingClientRect().top ?? 0;
    change();
    const shift = (anchor?.isConnected ? anchor.getBoundingClientRect().top : before) - before;
    if (shift) this.#scroller().scrollTop += shift;
  }

  async #later(): Promise<void> {
    if (this.#busy || this.#total < 0 || this.#to >= this.#total) return;
    await this.#load(this.#to, "after");
  }

  async #earlier(): Promise<void> {
    if (this.#busy || this.#from <= 0) return;
    await this.#load(Math.max(0, this.#from - CONV_PAGE), "before");
  }

  /** The element that scrolls the list: this pane in the viewer, the page in the export. */
  #scroller(): Element {
    const overflow = getComputedStyle(this.element).overflowY;
    return overflow === "auto" || overflow === "scroll"
      ? this.element
      : document.scrollingElement ?? document.documentElement;
  }

  /** Show the end of the conversation and focus its last message. */
  async jumpToLatest(): Promise<void> {
    if (this.#total < 0) await this.start();
    if (this.#to < this.#total) {
      this.#generation++;
      this.#busy = undefined;
      await this.#load(Math.max(0, this.#total - CONV_PAGE), "replace");
    }
    const items = this.#items();
    const last = items[items.length - 1];
    if (last) this.#focusItem(last, "end");
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
      if (direction > 0) await this.#later();
      else await this.#earlier();
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
    this.#generation++;
    this.#observer.disconnect();
    document.removeEventListener("keydown", this.#onKey);
  }
}
