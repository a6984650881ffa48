/**
 * Keeps the message the reader looks at where it is while the list above it changes size:
 * pages prepended or trimmed, and items that are laid out for the first time as they come
 * into view (the conversation's items skip layout out of view, `content-visibility: auto`,
 * and stand in at a placeholder height until first shown).
 *
 * The browser's own scroll anchoring cannot do this: it anchors on the first item in view,
 * which is exactly the one that has just come in at its placeholder height; when it is
 * laid out for real it grows downwards and pushes what the reader was reading a screen or
 * more down (after "Jump to latest", where nothing above was ever shown, each step up
 * landed somewhere else). Here the anchor is the item across the middle of the view
 * (already laid out: it is in view), chosen again after every scroll; after each layout
 * that moved it, the scroll position follows it before the frame is painted.
 *
 * @module
 */

/** The anchoring of one scrolling list. */
export class ScrollAnchor {
  #anchor: HTMLElement | undefined;
  /** The anchor's top relative to the scroller's view top when it was chosen... */
  #offset = 0;
  /** ...and the scroll position then: a scroll since moves it by the same distance. */
  #scrollTop = 0;
  readonly #resize: ResizeObserver;
  readonly #onScroll = (event: Event) => {
    const scroller = this.scroller();
    if (event.target === scroller || (event.target === document && this.#isPage(scroller))) {
      this.#follow();
    }
  };

  /**
   * @param list The element whose children are the items.
   * @param scroller The element that scrolls them (read each time: it depends on the layout).
   */
  constructor(readonly list: HTMLElement, readonly scroller: () => Element) {
    // The browser's anchoring would fight this one: opted out for the list's items.
    list.style.overflowAnchor = "none";
    this.#resize = new ResizeObserver(() => this.#follow());
    this.#resize.observe(list);
    // An element's scroll events do not bubble and the page's reach the document: listen
    // where both arrive (capturing at the document).
    document.addEventListener("scroll", this.#onScroll, { capture: true, passive: true });
  }

  #isPage(scroller: Element): boolean {
    return scroller === document.scrollingElement || scroller === document.documentElement;
  }

  /** The top of the scroller's visible part and its height, in viewport coordinates. */
  #view(scroller: Element): { top: number; height: number } {
    if (this.#isPage(scroller)) return { top: 0, height: innerHeight };
    const box = scroller.getBoundingClientRect();
    const top = Math.max(0, box.top);
    return { top, height: Math.max(0, Math.min(innerHeight, box.bottom) - top) };
  }

  /**
   * After a scroll or a layout: where the anchor is, against where the scroll alone would
   * have put it; a difference is a layout shift above it, scrolled away. Then the item now
   * across the middle of the view becomes the anchor.
   */
  #follow(): void {
    const scroller = this.scroller();
    const anchor = this.#anchor;
    if (anchor?.isConnected && this.list.isConnected) {
      const expected = this.#offset - (scroller.scrollTop - this.#scrollTop);
      const shift = anchor.getBoundingClientRect().top - this.#view(scroller).top - expected;
      if (Math.abs(shift) >= 0.5) scroller.scrollTop += shift;
    }
    this.#choose(scroller);
  }

  /** Choose the item across the middle of the view (in view, so laid out) as the anchor. */
  #choose(scroller: Element): void {
    this.#anchor = undefined;
    if (!this.list.isConnected) return;
    const view = this.#view(scroller);
    if (!view.height) return;
    const middle = view.top + view.height / 2;
    let best: HTMLElement | undefined;
    let top = 0;
    for (const child of this.list.children as HTMLCollectionOf<HTMLElement>) {
      const box = child.getBoundingClientRect();
      if (!box.height) continue; // hidden (a marker while markers are off)
      best = child;
      top = box.top;
      if (box.bottom >= middle) break;
    }
    if (!best) return;
    this.#anchor = best;
    this.#offset = top - view.top;
    this.#scrollTop = scroller.scrollTop;
  }

  /** Stop following. */
  dispose(): void {
    this.#resize.disconnect();
    document.removeEventListener("scroll", this.#onScroll, { capture: true });
    this.#anchor = undefined;
  }
}
