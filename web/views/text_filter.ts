/**
 * The message-text half of the session list's filter: the filter's words go to the store's
 * full-text search (the same search as the search box, in the worker), and the keys of the
 * sessions with a hit come back as a set. Typing is debounced; an answer for a query the
 * filter no longer shows is dropped, so a slow search never overwrites a newer one.
 *
 * @module
 */
import type { SearchView } from "../types.ts";

/** Typing pauses this long before the text search runs. */
const DEBOUNCE_MS = 250;

/** Cached text matches of the current filter. */
export class TextFilter {
  #query = "";
  #scope = "";
  #keys: ReadonlySet<string> | undefined;
  #stale = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #token = 0;

  constructor(
    /** Run the store's search (the worker's `search`). */
    readonly search: (query: string) => Promise<SearchView>,
    /** Called when matches for the shown filter arrive. */
    readonly onChange: () => void,
  ) {}

  /**
   * The keys of the sessions whose messages match `filter` in `scope` (a string naming the
   * listed source and toggles), or undefined while the search runs (one is started).
   *
   * @example
   * ```ts
   * import { TextFilter } from "./text_filter.ts";
   * const filter = new TextFilter(
   *   (query) => Promise.resolve({ query, groups: [], total: 0 }),
   *   () => {},
   * );
   * filter.matches("", "browser|false"); // an empty set: nothing to search
   * ```
   */
  matches(filter: string, scope: string): ReadonlySet<string> | undefined {
    const query = filter.trim();
    if (!query) return new Set();
    const same = query === this.#query && scope === this.#scope;
    if (same && !this.#stale) return this.#keys;
    // A stale answer for the same query stays shown until the fresh one replaces it.
    const shown = same ? this.#keys : undefined;
    this.#query = query;
    this.#scope = scope;
    this.#keys = shown;
    this.#stale = false;
    clearTimeout(this.#timer);
    const token = ++this.#token;
    this.#timer = setTimeout(() => {
      this.search(query).then(
        (view) => new Set(view.groups.map((group) => group.key)),
        // A query the search cannot parse matches no message text; the facts still filter.
        () => new Set<string>(),
      ).then((keys) => {
        if (token !== this.#token) return;
        this.#keys = keys;
        this.onChange();
      });
    }, DEBOUNCE_MS);
    return shown;
  }

  /** The listed sessions changed: search again on the next draw, showing the old answer meanwhile. */
  reset(): void {
    this.#stale = true;
  }
}
