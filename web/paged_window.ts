/**
 * A scrolling list that holds a bounded window of items, loaded a page at a time as either
 * end comes into view and dropped at the far end beyond the window, so a 100k-entry branch
 * never becomes 100k nodes (whose DOM every major GC would trace). Each page renders in
 * slices that yield to the browser. Shared by the conversation list, the context pane and
 * the raw pane (and so by the HTML export).
 *
 * @module
 */
import { clear } from "./dom.ts";

/** A page of items and how many there are in all. */
export interface WindowPage<T> {
  total: number;
  items: T[];
  /** `total` is not known yet: it only says more items follow these. */
  partial?: boolean;
}

/** What a {@link PagedWindow} needs from its owner. */
export interface PagedWindowOptions<T, P extends WindowPage<T>> {
  /** The element that holds one node per item (and nothing else once items load). */
  list: HTMLElement;
  /** Sentinels just above and below the list: a page loads when one comes near the view. */
  top: HTMLElement;
  bottom: HTMLElement;
  /** Items per page, and most items held at once. */
  pageSize: number;
  windowSize: number;
  fetch(start: number, count: number): Promise<P>;
  render(item: T): HTMLElement;
  /** Awaited after a fetch, before rendering (code the render needs, prepared meanwhile). */
  ready?: Promise<unknown>;
  /** Called with each page once its nodes are in the list. */
  onPage?(page: P, start: number): void;
  /** The element that scrolls the list (for browsers without scroll anchoring). */
  scroller(): Element;
}

/** Whether the browser keeps the visible content in place when content above it changes. */
const ANCHORING = typeof CSS !== "undefined" && CSS.supports?.("overflow-anchor", "auto");
/** Rendering work per slice before yielding to the browser (ms). */
const SLICE_MS = 8;
/**
 * Most text put into the list per frame (characters, one item at least). Traced on a large
 * session, a context page of 15 items went in at once and its frame spent far more than a
 * frame's budget laying out (mostly shaping text) and painting it; the style, layout and
 * paint of a frame grow with the text it adds.
 */
export const FRAME_CHARS = 6_000;

/** Resolves at the next animation frame (a timer where there are no frames). */
export const nextFrame = (): Promise<void> =>
  new Promise<void>((resolve) => {
    if (typeof requestAnimationFrame === "function") requestAnimationFrame(() => resolve());
    else setTimeout(resolve, 0);
  });

/**
 * Resolves in a task after the next frame has been rendered: what is changed then is laid
 * out in the frame after (a change made in an animation-frame callback is laid out in that
 * same frame, together with whatever a task changed just before it).
 */
export async function afterNextFrame(): Promise<void> {
  await nextFrame(); // runs before the frame's layout...
  await new Promise((resolve) => setTimeout(resolve, 0)); // ...this after it
}

/**
 * The window's state and loading; the owner builds the elements and renders items.
 *
 * @example
 * ```ts
 * import { PagedWindow } from "./paged_window.ts";
 * // const window = new PagedWindow({ list, top, bottom, pageSize: 25, windowSize: 150,
 * //   fetch: (start, count) => source.page(start, count), render: renderItem,
 * //   scroller: () => pane });
 * // await window.load(0, "after");
 * ```
 */
export class PagedWindow<T, P extends WindowPage<T> = WindowPage<T>> {
  /** Index of the first and one past the last item held. */
  from = 0;
  to = 0;
  /** How many items there are (-1 before the first page). */
  total = -1;
  /** Whether `total` is a lower bound (the last page was `partial`). */
  partial = false;
  #busy: Promise<void> | undefined;
  /** A sentinel asked for a page while another loaded (see `#checkEdges`). */
  #refused = false;
  #generation = 0;
  readonly #observer: IntersectionObserver;

  constructor(readonly options: PagedWindowOptions<T, P>) {
    this.#observer = new IntersectionObserver((entries) => {
      for (const entry of entries) {
        if (!entry.isIntersecting) continue;
        if (entry.target === options.bottom) void this.later();
        else void this.earlier();
      }
    }, { rootMargin: "800px 0px" });
    this.#observer.observe(options.top);
    this.#observer.observe(options.bottom);
  }

  /** Whether a page is loading. */
  get busy(): boolean {
    return this.#busy !== undefined;
  }

  /** Resolves once no page is loading (a load the observer started included). */
  async settled(): Promise<void> {
    while (this.#busy) await this.#busy;
  }

  /** Whether every item from 0 to the end is held. */
  get complete(): boolean {
    return this.total >= 0 && !this.partial && this.from === 0 && this.to >= this.total;
  }

  /**
   * Load the page at `start`: after the window, before it, or in place of it (a jump).
   * A jump cancels a load in flight. The page goes into the list a batch per frame (see
   * {@link FRAME_CHARS}); `shown` is called once the first batch is in.
   */
  async load(
    start: number,
    where: "after" | "before" | "replace",
    shown?: () => void,
  ): Promise<void> {
    if (where === "replace") {
      this.#generation++;
      this.#busy = undefined;
    }
    while (this.#busy) await this.#busy;
    const generation = this.#generation;
    const { list, options } = { list: this.options.list, options: this.options };
    const run = (async () => {
      const count = where === "before" ? Math.min(options.pageSize, this.from) : options.pageSize;
      const page = await options.fetch(start, count);
      await options.ready;
      if (generation !== this.#generation) return;
      this.total = page.total;
      this.partial = page.partial === true;
      // A page before the window fills from its end, next to the rows shown, so the list
      // stays contiguous while it grows.
      const items = where === "before" ? [...page.items].reverse() : page.items;
      let batch: HTMLElement[] = [];
      let chars = 0;
      let first = true;
      const flush = () => {
        if (first && where === "replace") {
          clear(list);
          this.from = this.to = start;
        }
        if (where === "before") {
          const nodes = batch.reverse();
          this.#keepInPlace(() => list.prepend(...nodes));
          this.from -= nodes.length;
        } else {
          list.append(...batch);
          this.to += batch.length;
        }
        batch = [];
        chars = 0;
        if (first) shown?.();
        first = false;
      };
      let began = performance.now();
      for (const item of items) {
        const node = options.render(item);
        batch.push(node);
        chars += node.textContent?.length ?? 0;
        if (chars >= FRAME_CHARS || performance.now() - began > SLICE_MS) {
          flush();
          await afterNextFrame(); // the next batch is laid out in a frame of its own
          if (generation !== this.#generation) return;
          began = performance.now();
        }
      }
      if (batch.length || first) flush();
      if (where === "before") {
        this.from = start;
        this.#trim("end");
      } else {
        this.to = start + page.items.length;
        if (where === "after") this.#keepInPlace(() => this.#trim("start"));
      }
      options.onPage?.(page, start);
    })();
    this.#busy = run;
    try {
      await run;
    } finally {
      if (this.#busy === run) this.#busy = undefined;
    }
    this.#checkEdges(where);
  }

  /** Load the page after the window, if there is one and nothing is loading. */
  async later(): Promise<void> {
    if (this.#busy) return void (this.#refused = true);
    if (this.total < 0 || this.to >= this.total) return;
    await this.load(this.to, "after");
  }

  /** Load the page before the window, if there is one and nothing is loading. */
  async earlier(): Promise<void> {
    if (this.#busy) return void (this.#refused = true);
    if (this.from <= 0) return;
    await this.load(Math.max(0, this.from - this.options.pageSize), "before");
  }

  /**
   * An observer reports only changes: when a page leaves its sentinel still in view (short
   * items, a tall screen), observing it again makes the observer report it once more,
   * asynchronously and without forcing a layout here. A sentinel that asked while another
   * page loaded was refused and will not report again while it stays in view: both are
   * observed again then (a page loaded downwards while the top sentinel asked otherwise
   * left the window stuck, the reader's scrolling no longer loading anything).
   */
  #checkEdges(where: "after" | "before" | "replace"): void {
    if (!this.options.list.isConnected) return;
    const { top, bottom } = this.options;
    const sentinels = this.#refused ? [top, bottom] : [where === "before" ? top : bottom];
    this.#refused = false;
    for (const sentinel of sentinels) {
      this.#observer.unobserve(sentinel);
      this.#observer.observe(sentinel);
    }
  }

  /** Drop items beyond the window at one end; scrolling back loads them again. */
  #trim(end: "start" | "end"): void {
    const nodes = this.options.list.children;
    let extra = nodes.length - this.options.windowSize;
    while (extra-- > 0) {
      if (end === "start") {
        nodes[0].remove();
        this.from++;
      } else {
        nodes[nodes.length - 1].remove();
        this.to--;
      }
    }
  }

  /**
   * Change the list above what the reader looks at without moving it. Browsers with
   * scroll anchoring do this themselves; elsewhere the last item's shift is scrolled back
   * (one measured layout).
   */
  #keepInPlace(change: () => void): void {
    if (ANCHORING) return change();
    const anchor = this.options.list.lastElementChild as HTMLElement | null;
    const before = anchor?.getBoundingClientRect().top ?? 0;
    change();
    const shift = (anchor?.isConnected ? anchor.getBoundingClientRect().top : before) - before;
    if (shift) this.options.scroller().scrollTop += shift;
  }

  /** Stop loading and observing (the view is being replaced). */
  dispose(): void {
    this.#generation++;
    this.#observer.disconnect();
  }
}
