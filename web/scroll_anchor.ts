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
 * Near the end of the scroller, an item above the anchor that shrinks (one laid out again
 * shorter than the height it stood in at) by more than the room left below the view makes
 * the browser clamp the scroll position to the new end before any script runs. That clamp
 * looks like the reader scrolling up; taken as such, the shift it hides stayed on screen
 * (the first wheel step after "Jump to latest" moved the text a few hundred pixels too
 * far). A position recorded beyond the scroller's end is therefore read as that end.
 *
 * A layout change above the list moves the anchor too: the summary or the outline rail
 * arriving late above the conversation, a header that wraps. The list's own size does not
 * change then, so watching the list alone left such a shift on screen until the reader's
 * next scroll, which then "corrected" it by as much again (the first wheel step after
 * "Jump to latest" moved the text by a few hundred pixels). So every element between the
 * list and the scroller, and every element before each of them, is watched as well: any
 * change above the anchor changes the size of one of them.
 *
 * @module
 */

/** What the reader does to scroll (a pinned item is let go then). */
const READER_INPUT = ["wheel", "touchstart", "pointerdown", "keydown"] as const;

/** A scroller's top and the visible part of it, in viewport coordinates (see `#view`). */
interface ScrollerView {
  top: number;
  /** The middle of the visible part; none when none of it is visible. */
  middle?: number;
  shownTop: number;
  shownBottom: number;
}

/** The anchoring of one scrolling list. */
export class ScrollAnchor {
  #anchor: HTMLElement | undefined;
  /** The anchor's top relative to the scroller's view top when it was chosen... */
  #offset = 0;
  /** ...and the scroll position then: a scroll since moves it by the same distance. */
  #scrollTop = 0;
  /** An item the page scrolled to on purpose: the anchor until the reader scrolls. */
  #pinned: HTMLElement | undefined;
  readonly #unpin = () => this.#pinned = undefined;
  readonly #resize: ResizeObserver;
  /** What `#resize` watches besides the list (see `#watchAbove`). */
  #watched = new Set<Element>();
  /** The list's ancestors opted out of the browser's anchoring, with their own value. */
  readonly #optedOut = new Map<HTMLElement, string>();
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
    for (const type of READER_INPUT) {
      document.addEventListener(type, this.#unpin, { capture: true, passive: true });
    }
  }

  /**
   * Keep `item` (just scrolled to: a search hit, the latest message) where it is while
   * the items around it are laid out, until the reader scrolls.
   */
  pin(item: HTMLElement): void {
    // Measured from where the scroll to it left it: a shift the old anchor saw would undo
    // that scroll.
    this.#pinned = item;
    this.#choose(this.scroller());
  }

  #isPage(scroller: Element): boolean {
    return scroller === document.scrollingElement || scroller === document.documentElement;
  }

  /**
   * The scroller's top (what an item's place is measured from: it moves only when an outer
   * scroller scrolls, and then with the items) and the middle of its visible part, in
   * viewport coordinates; no middle when none of it is visible.
   */
  #view(scroller: Element): ScrollerView {
    if (this.#isPage(scroller)) {
      return { top: 0, middle: innerHeight / 2, shownTop: 0, shownBottom: innerHeight };
    }
    const box = scroller.getBoundingClientRect();
    const shownTop = Math.max(0, box.top);
    const shownBottom = Math.min(innerHeight, box.bottom);
    return {
      top: box.top,
      middle: shownBottom > shownTop ? (shownTop + shownBottom) / 2 : undefined,
      shownTop,
      shownBottom,
    };
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
      // Content above that shrank by more than the room left below the view makes the
      // browser pull the scroll position back to the new end: the part of the move down to
      // there is no scroll of the reader's, and the shift is measured from the new end.
      const end = scroller.scrollHeight - scroller.clientHeight;
      const scrolled = scroller.scrollTop - Math.min(this.#scrollTop, end);
      const expected = this.#offset - scrolled;
      const shift = anchor.getBoundingClientRect().top - this.#view(scroller).top - expected;
      if (Math.abs(shift) >= 0.5) scroller.scrollTop += shift;
      this.#choose(scroller, { anchor, offset: expected });
      return;
    }
    this.#choose(scroller);
  }

  /**
   * Watch the sizes of what lies above the list inside `scroller`: the list's ancestors up
   * to the scroller and every earlier sibling of each (a few elements). A removed element
   * is reported once (its size becomes zero) and is let go at the next choice; one that
   * came in its place is watched from then.
   */
  #watchAbove(scroller: Element): void {
    const wanted = new Set<Element>();
    const chain = new Set<HTMLElement>();
    for (
      let node: HTMLElement | null = this.list;
      node && node !== scroller;
      node = node.parentElement
    ) {
      if (node !== this.list) {
        wanted.add(node);
        chain.add(node);
      }
      for (
        let before = node.previousElementSibling;
        before;
        before = before.previousElementSibling
      ) {
        wanted.add(before);
      }
    }
    for (const node of this.#watched) {
      if (!wanted.has(node)) this.#resize.unobserve(node);
    }
    for (const node of wanted) {
      if (!this.#watched.has(node)) this.#resize.observe(node);
    }
    this.#watched = wanted;
    // The scroller too while the list is shown (where the page scrolls, it holds the other
    // tabs as well, and they keep the browser's anchoring).
    if (this.list.getClientRects().length && scroller instanceof HTMLElement) chain.add(scroller);
    this.#optOut(chain);
  }

  /**
   * Opt the list's ancestors up to the scroller out of the browser's anchoring, as the list
   * is: where the list's pane itself scrolls, the browser anchored on what is beside the
   * list (the toolbar, the outline) and moved the scroll position under this anchoring's
   * corrections, so a fraction of a pixel corrected came out as a pixel moved. What is let
   * go gets back the value it had.
   */
  #optOut(chain: Set<HTMLElement>): void {
    for (const [node, before] of this.#optedOut) {
      if (chain.has(node)) continue;
      node.style.overflowAnchor = before;
      this.#optedOut.delete(node);
    }
    for (const node of chain) {
      if (this.#optedOut.has(node)) continue;
      this.#optedOut.set(node, node.style.overflowAnchor);
      node.style.overflowAnchor = "none";
    }
  }

  /**
   * Choose the item across the middle of the view (in view, so laid out) as the anchor.
   * `kept` is where the previous anchor was meant to stay: the scroll position moves in
   * whole pixels, so a shift of a fraction of one is left on screen, and measuring the
   * anchor afresh after each shift would let those fractions add up (the summary, the
   * outline and its count landing one after the other moved the text by over a pixel).
   * When the same item stays the anchor within a pixel of that place, that place is kept.
   */
  #choose(scroller: Element, kept?: { anchor: HTMLElement; offset: number }): void {
    this.#anchor = undefined;
    if (!this.list.isConnected) return;
    this.#watchAbove(scroller);
    const view = this.#view(scroller);
    const place = (item: HTMLElement, top: number) => {
      this.#anchor = item;
      this.#offset = kept?.anchor === item && Math.abs(top - view.top - kept.offset) < 1
        ? kept.offset
        : top - view.top;
      this.#scrollTop = scroller.scrollTop;
    };
    // A pinned item scrolled out of view by the page itself (an outline row brought into
    // view) is let go: held, a page put in above it pulled the view back to it, thousands
    // of pixels away from what the reader went to.
    if (this.#pinned?.isConnected && !this.#inView(this.#pinned, view)) {
      this.#pinned = undefined;
    }
    if (this.#pinned?.isConnected) {
      place(this.#pinned, this.#pinned.getBoundingClientRect().top);
      return;
    }
    const middle = view.middle;
    if (middle === undefined) return;
    let best: HTMLElement | undefined;
    let top = 0;
    for (const child of this.list.children as HTMLCollectionOf<HTMLElement>) {
      const box = child.getBoundingClientRect();
      if (!box.height) continue; // hidden (a marker while markers are off)
      best = child;
      top = box.top;
      if (box.bottom >= middle) break;
    }
    // A list that starts below the middle has nothing to keep in place: the view shows what
    // is above it (the outline, the summary), which a page put in at the list's top does not
    // move.
    if (best && top <= middle) place(best, top);
  }

  /** Whether any of `item` is inside the visible part of the scroller `view` describes. */
  #inView(item: HTMLElement, view: ScrollerView): boolean {
    const box = item.getBoundingClientRect();
    return box.bottom > view.shownTop && box.top < view.shownBottom;
  }

  /** Stop following. */
  dispose(): void {
    this.#resize.disconnect();
    this.#watched.clear();
    this.#optOut(new Set());
    document.removeEventListener("scroll", this.#onScroll, { capture: true });
    for (const type of READER_INPUT) {
      document.removeEventListener(type, this.#unpin, { capture: true });
    }
    this.#anchor = undefined;
  }
}
