/**
 * The search box of the session list: full-text search over all sessions (this browser's
 * store and, under `mu serve`, this computer's), results grouped by session with
 * their snippets, the matched text in `<mark>` elements built from text (never HTML). A hit
 * links to its session's conversation, which shows the message on the hit's branch with
 * the matched text marked; the leaf is not cut at the hit.
 *
 * @module
 */
import { el, formatCount, hashLink, replaceChildren } from "../dom.ts";
import type { ViewerClient } from "../rpc.ts";
import type { SessionSource } from "../session_key.ts";
import type { SearchHitView, SearchProgressView, SearchView } from "../types.ts";
import { sessionHash } from "./list.ts";
import { loadingNotice } from "./loading.ts";

/** Typing pauses this long before searching; Enter searches at once. */
const DEBOUNCE_MS = 300;

/** The matched strings of a hit's snippet (what the page marks in the message). */
export function hitTerms(hit: Pick<SearchHitView, "snippet" | "ranges">): string[] {
  return [...new Set(hit.ranges.map(([start, end]) => hit.snippet.slice(start, end)))];
}

/**
 * The route of a hit: its session's conversation, `focus` = the entry to reveal, `mark` =
 * the text to mark; no leaf (the page shows the hit on its branch without cutting it).
 *
 * @example
 * ```ts
 * import { hitHash } from "./search.ts";
 * location.hash = hitHash("computer/abc", { entryId: "e0000042", snippet: "a token", ranges: [[2, 7]] });
 * ```
 */
export function hitHash(
  key: string,
  hit: Pick<SearchHitView, "entryId" | "snippet" | "ranges">,
): string {
  const params = new URLSearchParams({ tab: "conversation", focus: hit.entryId });
  for (const term of hitTerms(hit)) params.append("mark", term);
  return `${sessionHash(key)}?${params}`;
}

/** The snippet as text nodes with each matched range in a `<mark>`. */
function snippetNodes(snippet: string, ranges: readonly [number, number][]): HTMLElement {
  const out = el("span", { class: "snippet" });
  let at = 0;
  for (const [start, end] of ranges) {
    if (start < at || end <= start || end > snippet.length) continue; // never overlap
    if (start > at) out.append(snippet.slice(at, start));
    out.append(el("mark", {}, snippet.slice(start, end)));
    at = end;
  }
  if (at < snippet.length) out.append(snippet.slice(at));
  return out;
}

function hitItem(key: string, hit: SearchHitView): HTMLElement {
  return el(
    "li",
    { class: "search-hit", dataset: { entry: hit.entryId } },
    hashLink(
      hitHash(key, hit),
      { class: "search-hit-link" },
      el("span", { class: "chip tone-meta role" }, hit.role),
      " ",
      snippetNodes(hit.snippet, hit.ranges),
    ),
  );
}

function renderResults(view: SearchView, partial = false): HTMLElement {
  if (!view.groups.length && partial) return el("div");
  if (!view.groups.length) {
    return el("p", { class: "muted", attrs: { id: "search-empty" } }, "No matches.");
  }
  return el(
    "div",
    {},
    el(
      "p",
      { class: "muted count" },
      `${view.total}${view.more ? "+" : ""} ${
        view.total === 1 && !view.more ? "match" : "matches"
      }` +
        ` in ${view.groups.length}${view.more ? "+" : ""} ` +
        (view.groups.length === 1 && !view.more ? "session" : "sessions") +
        (partial ? " so far" : ""),
    ),
    ...view.groups.map((group) =>
      el(
        "section",
        { class: "search-group", dataset: { key: group.key } },
        el(
          "h4",
          {},
          hashLink(sessionHash(group.key), { class: "session-link" }, group.title),
          " ",
          el(
            "span",
            { class: "chip tone-meta source" },
            group.source === "computer" ? "this computer" : "this browser",
          ),
        ),
        el("ul", { class: "search-hits" }, ...group.hits.map((hit) => hitItem(group.key, hit))),
      )
    ),
  );
}

/** The search form and its results; one instance lives across list redraws. */
export class SearchPanel {
  readonly element: HTMLElement;
  readonly #input: HTMLInputElement;
  readonly #results: HTMLElement;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #token = 0;
  /** The running search's progress line. */
  #searching: { element: HTMLElement; stop(): void } | undefined;
  /** The scope of the shown results, so a source switch searches again. */
  #searched = "";

  constructor(
    readonly client: ViewerClient,
    /** What to search: every source (no `source`) unless the page pins one. */
    readonly scope: () => { source?: SessionSource; includeInternal: boolean },
  ) {
    this.#input = el("input", {
      class: "search",
      attrs: {
        type: "search",
        id: "session-search",
        placeholder: 'Search all messages (words, "phrases", prefix*, -exclude)',
        "aria-label": "Search sessions",
        spellcheck: "false",
      },
    });
    this.#results = el("div", {
      class: "search-results",
      attrs: { id: "search-results", "aria-live": "polite" },
    });
    const form = el("form", { class: "search-form", attrs: { role: "search" } }, this.#input);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      void this.run();
    });
    this.#input.addEventListener("input", () => {
      clearTimeout(this.#timer);
      this.#timer = setTimeout(() => void this.run(), DEBOUNCE_MS);
    });
    this.element = el("div", { class: "search-panel" }, form, this.#results);
    client.onEvent((event) => {
      if (event.type === "search-progress") this.#partial(event.data);
    });
  }

  /** The search still runs (the store indexes what it searches): what it found so far. */
  #partial(progress: SearchProgressView): void {
    if (progress.id !== this.#token || !this.#searching) return;
    this.#searching.stop();
    const { entriesDone, entries } = progress;
    this.#searching.element.textContent = `Searching… ${formatCount(entriesDone)} of ${
      formatCount(entries)
    } entries`;
    replaceChildren(
      this.#results,
      this.#searching.element,
      renderResults(progress.view, true),
    );
  }

  /** Search again if the scope (the internal toggle) changed since the last search. */
  sync(): void {
    if (this.#input.value.trim() && JSON.stringify(this.scope()) !== this.#searched) {
      void this.run();
    }
  }

  /** Search for the box's text now (an empty box clears the results). */
  async run(): Promise<void> {
    clearTimeout(this.#timer);
    const token = ++this.#token;
    const query = this.#input.value.trim();
    const scope = this.scope();
    this.#searched = JSON.stringify(scope);
    if (!query) {
      replaceChildren(this.#results);
      return;
    }
    // Something on screen at once: the first search of a large store can take a while.
    // Partial results replace it as the worker reports them (`#partial`).
    this.#searching?.stop();
    const searching = loadingNotice("search-progress", "Searching…");
    this.#searching = searching;
    replaceChildren(this.#results, searching.element);
    try {
      const view = await this.client.call("search", query, {
        ...scope,
        limit: 100,
        progressId: token,
      });
      if (token === this.#token) replaceChildren(this.#results, renderResults(view));
    } catch (error) {
      if (token !== this.#token) return;
      const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      replaceChildren(this.#results, el("p", { class: "error" }, `Search failed: ${text}`));
    } finally {
      searching.stop();
      if (this.#searching === searching) this.#searching = undefined;
    }
  }
}
