/**
 * Find in session: the library's search limited to the open session (every branch), the
 * hits in time order, stepped through with next / previous. Each step shows the hit's
 * message in the conversation with the match marked, on the hit's branch, as opening a
 * search hit does: finding never makes the hit the leaf (the page offers that apart).
 *
 * @module
 */
import { button, el, replaceChildren } from "../dom.ts";
import type { ViewerClient } from "../rpc.ts";
import type { SearchHitView } from "../types.ts";

/** Most hits stepped through in one session. */
const FIND_LIMIT = 500;

/** The find bar of a session page. */
export class FindBar {
  readonly element: HTMLElement;
  readonly #input: HTMLInputElement;
  readonly #status: HTMLElement;
  #query = "";
  #hits: SearchHitView[] = [];
  /** More matches than were fetched. */
  #more = false;
  #at = -1;
  #token = 0;

  constructor(
    readonly client: ViewerClient,
    readonly sessionKey: string,
    readonly onHit: (hit: SearchHitView) => void,
  ) {
    this.#input = el("input", {
      class: "search find",
      attrs: {
        type: "search",
        id: "find-in-session",
        placeholder: "Find in this session",
        "aria-label": "Find in this session",
        spellcheck: "false",
      },
    });
    this.#status = el("span", {
      class: "muted",
      attrs: { id: "find-status", "aria-live": "polite" },
    });
    const form = el(
      "form",
      { class: "find-bar", attrs: { role: "search" } },
      this.#input,
      button("↑", () => void this.step(-1), {
        class: "small",
        title: "Previous match",
        attrs: { id: "find-prev", type: "button" },
      }),
      button("↓", () => void this.step(1), {
        class: "small",
        title: "Next match",
        attrs: { id: "find-next", type: "button" },
      }),
      this.#status,
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      void this.step(1);
    });
    this.element = form;
  }

  /** Go to the next (`1`) or previous (`-1`) match, searching first if the text changed. */
  async step(direction: 1 | -1): Promise<void> {
    const query = this.#input.value.trim();
    if (!query) {
      this.#hits = [];
      replaceChildren(this.#status);
      return;
    }
    if (query !== this.#query) {
      const token = ++this.#token;
      replaceChildren(this.#status, "Searching…");
      try {
        const view = await this.client.call("search", query, {
          sessionKey: this.sessionKey,
          limit: FIND_LIMIT,
        });
        if (token !== this.#token) return;
        // Time order, so next / previous walk the session as it happened.
        this.#more = view.more === true;
        this.#hits = (view.groups[0]?.hits ?? []).toSorted((a, b) =>
          a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0
        );
      } catch (error) {
        if (token !== this.#token) return;
        this.#hits = [];
        replaceChildren(this.#status, `Find failed: ${(error as Error).message}`);
        return;
      }
      this.#query = query;
      this.#at = direction === 1 ? -1 : 0;
    }
    const count = this.#hits.length;
    if (!count) {
      replaceChildren(this.#status, "No matches");
      return;
    }
    this.#at = (this.#at + direction + count) % count;
    replaceChildren(this.#status, `${this.#at + 1} of ${count}${this.#more ? "+" : ""}`);
    this.onHit(this.#hits[this.#at]);
  }
}
