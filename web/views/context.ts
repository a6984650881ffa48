/**
 * The projected context beside the raw entries. Left: exactly what
 * `buildSessionProjection` gives for the current leaf (model, thinking level, context
 * window, replayed system prompt, the compaction boundary, and each source entry with its
 * model-visible messages and marks: edited, omitted, synthetic interrupted result, kept
 * tail, dropped). Right: the raw JSON lines of the entries on the path. Both load in
 * pages as they are scrolled into view.
 *
 * @module
 */
import {
  button,
  el,
  factList,
  formatCount,
  replaceChildren,
  safeImage,
  showFolded,
} from "../dom.ts";
import type { ViewerClient } from "../rpc.ts";
import type {
  BlockView,
  ContextAs,
  ContextItemView,
  ContextPageView,
  MessageView,
  RawEntryView,
} from "../types.ts";
import { RETIRED_EXPLANATION, retiredNote } from "./older_agent.ts";

const CONTEXT_PAGE = 15;
const RAW_PAGE = 25;

/** CSS tone of a projection mark. */
export function flagTone(flag: string): string {
  if (flag.startsWith("compaction boundary")) return "boundary";
  if (flag.startsWith("synthetic")) return "synthetic";
  if (flag.startsWith("edited") || flag.startsWith("omitted")) return "edit";
  if (flag.startsWith("kept tail")) return "tail";
  if (flag.startsWith("dropped")) return "dropped";
  if (flag.startsWith("retired") || flag.startsWith("summary as the older")) return "retired";
  return "meta";
}

/** Where a context view reads from. */
export interface ContextSource {
  client: ViewerClient;
  sessionId: string;
  leafId: string | null;
  /** Another reading of the context (the older agent's), read-only. */
  as?: ContextAs;
}

function moreButton(full: number, load: () => Promise<string>, target: HTMLElement): HTMLElement {
  const more = button(`Show all ${formatCount(full)} characters`, async () => {
    more.disabled = true;
    try {
      const text = await load();
      more.remove();
      showFolded(target, text); // long text a fold at a time, not all laid out at once
    } catch (error) {
      more.textContent = `Could not load: ${(error as Error).message}`;
    }
  }, { class: "link-button" });
  return more;
}

function renderBlock(block: BlockView, loadFull: () => Promise<string>): HTMLElement {
  switch (block.kind) {
    case "image": {
      if (block.dataUrl) {
        return el(
          "figure",
          { class: "block image" },
          safeImage(block.dataUrl, `${block.mimeType} image`),
        );
      }
      return el("div", { class: "block note" }, `[${block.note ?? "image not displayed"}]`);
    }
    case "thinking": {
      const pre = el("pre", { class: "text" }, block.text);
      return el(
        "details",
        { class: "block thinking" },
        el("summary", {}, "thinking"),
        pre,
        block.fullLength ? moreButton(block.fullLength, loadFull, pre) : null,
      );
    }
    case "toolCall": {
      const pre = el("pre", { class: "json" }, block.text);
      return el(
        "div",
        { class: "block tool-call" },
        el(
          "div",
          { class: "tool-call-head" },
          "→ ",
          el("b", {}, block.name),
          el("span", { class: "muted" }, ` ${block.id}`),
        ),
        pre,
        block.fullLength ? moreButton(block.fullLength, loadFull, pre) : null,
      );
    }
    default: {
      const pre = el("pre", { class: block.kind === "other" ? "json" : "text" }, block.text);
      return el(
        "div",
        { class: `block ${block.kind}` },
        pre,
        block.fullLength ? moreButton(block.fullLength, loadFull, pre) : null,
      );
    }
  }
}

function renderMessage(
  message: MessageView,
  load: (blockIndex: number) => Promise<string>,
): HTMLElement {
  return el(
    "div",
    { class: `message role-${message.role.replace(/[^A-Za-z]/g, "")}` },
    el(
      "div",
      { class: "message-head" },
      el("span", { class: "role" }, message.role),
      message.subtitle ? el("span", { class: "subtitle" }, message.subtitle) : null,
      ...message.meta.map((fact) => el("span", { class: "meta" }, fact)),
    ),
    ...message.blocks.map((block, i) => renderBlock(block, () => load(i))),
  );
}

function emptyNote(item: ContextItemView): string {
  if (item.flags.some((f) => f.startsWith("retired"))) return RETIRED_EXPLANATION;
  if (item.flags.some((f) => f.startsWith("kept tail"))) {
    return "serialized into the boundary message";
  }
  if (item.flags.some((f) => f.startsWith("omitted"))) return "omitted from the model context";
  if (item.flags.some((f) => f.startsWith("dropped"))) return "dropped from the derived context";
  if (item.flags.some((f) => f.startsWith("system prompt"))) {
    return "replayed into the system prompt";
  }
  return "no model-visible message";
}

/** The projected context list (paged). */
export class ContextPane {
  readonly element: HTMLElement;
  readonly #list: HTMLElement;
  readonly #summary: HTMLElement;
  readonly #sentinel: HTMLElement;
  #loaded = 0;
  #total = 0;
  #loading = false;
  readonly #observer: IntersectionObserver;
  #comparison: { element: HTMLElement; dispose(): void } | undefined;

  constructor(readonly source: ContextSource, readonly onSource: (entryId: string) => void) {
    this.#summary = el("div", { class: "context-summary" });
    this.#list = el("ol", { class: "context-list" });
    this.#sentinel = el("div", { class: "sentinel" });
    this.element = el(
      "section",
      { class: source.as ? "pane older-agent-pane" : "pane context-pane" },
      source.as ? null : el("h3", {}, "Projected context"),
      this.#summary,
      this.#list,
      this.#sentinel,
    );
    this.#observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) void this.more();
    });
    this.#observer.observe(this.#sentinel);
  }

  /** Load the first page. */
  async start(): Promise<void> {
    const page = await this.#fetch(0);
    this.#renderSummary(page);
    this.#append(page);
  }

  /** Load the next page, if any. */
  async more(): Promise<void> {
    if (this.#loading || this.#loaded >= this.#total) return;
    this.#append(await this.#fetch(this.#loaded));
  }

  async #fetch(start: number): Promise<ContextPageView> {
    this.#loading = true;
    try {
      const { client, sessionId, leafId, as } = this.source;
      return await client.call("context", sessionId, leafId, start, CONTEXT_PAGE, as);
    } finally {
      this.#loading = false;
    }
  }

  #renderSummary(page: ContextPageView): void {
    const facts: Array<[string, string]> = [
      ["model", page.model ?? "—"],
      ["thinking", page.thinkingLevel ?? "—"],
      [
        "context window",
        page.contextWindow ? `${formatCount(page.contextWindow)} tokens` : "—",
      ],
      ["messages", String(page.messageCount)],
      ["entries", String(page.total)],
    ];
    this.#comparison?.dispose();
    this.#comparison = page.retired
      ? retiredNote(
        page.retired,
        () => new ContextPane({ ...this.source, as: "older-agent" }, this.onSource),
      )
      : undefined;
    replaceChildren(
      this.#summary,
      factList(facts, "facts"),
      page.boundary
        ? el(
          "p",
          { class: "boundary-note" },
          "Active compaction boundary ",
          el("code", {}, page.boundary.id),
          page.boundary.firstKeptEntryId
            ? ` keeps the tail from ${page.boundary.firstKeptEntryId}`
            : " keeps no pre-boundary tail",
          ` (${formatCount(page.boundary.summaryChars)} characters of transcript).`,
        )
        : null,
      this.#comparison?.element ?? null,
      page.system
        ? el(
          "details",
          { class: "system" },
          el("summary", {}, "System prompt"),
          el("pre", { class: "text" }, page.system),
        )
        : null,
    );
  }

  #append(page: ContextPageView): void {
    this.#total = page.total;
    if (page.total === 0) {
      replaceChildren(this.#list, el("li", { class: "empty" }, "Nothing in context at this leaf."));
    }
    for (const item of page.items) this.#list.append(this.#renderItem(item));
    this.#loaded = page.start + page.items.length;
  }

  #renderItem(item: ContextItemView): HTMLElement {
    const { client, sessionId, leafId, as } = this.source;
    if (item.messages.length === 0 && item.flags.length === 0) {
      // Settings and bookkeeping entries: one slim line, so messages stand out.
      return el(
        "li",
        { class: "context-item slim", dataset: { source: item.sourceId ?? "" } },
        el("span", { class: "item-index" }, `#${item.index + 1}`),
        item.sourceId !== null
          ? button(item.sourceId, () => this.onSource(item.sourceId!), {
            class: "link-button mono",
            title: "Show the raw entry",
          })
          : null,
        el("span", { class: "muted" }, `${item.sourceType} · no model-visible message`),
      );
    }
    const tone = item.flags.map(flagTone);
    const head = el(
      "div",
      { class: "item-head" },
      el("span", { class: "item-index" }, `#${item.index + 1}`),
      item.sourceId !== null
        ? button(item.sourceId, () => this.onSource(item.sourceId!), {
          class: "link-button mono",
          title: "Show the raw entry",
        })
        : null,
      el("span", { class: "muted" }, item.sourceType),
      ...item.flags.map((flag, i) => el("span", { class: `chip tone-${tone[i]}` }, flag)),
    );
    const body = item.messages.length
      ? item.messages.map((message, m) =>
        renderMessage(
          message,
          (b) => client.call("contextBlock", sessionId, leafId, item.index, m, b, as),
        )
      )
      : [el("p", { class: "muted empty-item" }, emptyNote(item))];
    return el(
      "li",
      {
        class: `context-item ${tone.map((t) => `has-${t}`).join(" ")}`,
        dataset: { source: item.sourceId ?? "" },
      },
      head,
      ...body,
    );
  }

  /** Stop observing (the view is being replaced). */
  dispose(): void {
    this.#observer.disconnect();
    this.#comparison?.dispose();
  }
}

/** The raw entries on the active path (paged), with "show all" for long lines. */
export class RawPane {
  readonly element: HTMLElement;
  readonly #list: HTMLElement;
  readonly #sentinel: HTMLElement;
  readonly #observer: IntersectionObserver;
  #loaded = 0;
  #total = -1;
  #loading?: Promise<void>;

  constructor(readonly source: ContextSource) {
    this.#list = el("ol", { class: "raw-list" });
    this.#sentinel = el("div", { class: "sentinel" });
    this.element = el(
      "section",
      { class: "pane raw-pane" },
      el("h3", {}, "Raw entries on this branch"),
      this.#list,
      this.#sentinel,
    );
    this.#observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) void this.more();
    });
    this.#observer.observe(this.#sentinel);
  }

  /** Load the next page (the first on the first call). */
  more(): Promise<void> {
    if (this.#loading) return this.#loading;
    if (this.#total >= 0 && this.#loaded >= this.#total) return Promise.resolve();
    const { client, sessionId, leafId } = this.source;
    this.#loading = client.call("raw", sessionId, leafId, this.#loaded, RAW_PAGE).then((page) => {
      this.#total = page.total;
      for (const item of page.items) this.#list.append(this.#renderItem(item));
      this.#loaded = page.start + page.items.length;
      if (page.total === 0) {
        this.#list.append(el("li", { class: "empty" }, "No entries on this branch."));
      }
    }).finally(() => this.#loading = undefined);
    return this.#loading;
  }

  /** Scroll to and highlight an entry, loading pages until it is there (bounded). */
  async reveal(entryId: string): Promise<void> {
    for (let i = 0; i < 50; i++) {
      const found = [...this.#list.children].find((li) =>
        (li as HTMLElement).dataset.id === entryId
      ) as
        | HTMLElement
        | undefined;
      if (found) {
        for (const old of this.#list.querySelectorAll(".highlight")) {
          old.classList.remove("highlight");
        }
        found.classList.add("highlight");
        found.scrollIntoView({ block: "center" });
        return;
      }
      if (this.#total >= 0 && this.#loaded >= this.#total) return;
      await this.more();
    }
  }

  #renderItem(item: RawEntryView): HTMLElement {
    const pre = el("pre", { class: "json" }, item.json);
    const { client, sessionId } = this.source;
    return el(
      "li",
      { class: "raw-item", dataset: { id: item.id } },
      el(
        "div",
        { class: "item-head" },
        el("code", {}, item.id),
        el("span", { class: "muted" }, item.type),
      ),
      pre,
      item.fullLength > item.json.length
        ? moreButton(item.fullLength, () => client.call("rawEntry", sessionId, item.id), pre)
        : null,
    );
  }

  /** Stop observing (the view is being replaced). */
  dispose(): void {
    this.#observer.disconnect();
  }
}
