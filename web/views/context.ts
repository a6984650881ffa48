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
import { button, el, factList, formatCount, replaceChildren, safeImage } from "../dom.ts";
import type { ViewerClient } from "../rpc.ts";
import type {
  BlockView,
  ContextAs,
  ContextItemView,
  ContextPageView,
  MessageView,
} from "../types.ts";
import { RETIRED_EXPLANATION, retiredNote } from "./older_agent.ts";
import { PagedWindow } from "../paged_window.ts";
import { foldedBlock } from "./fold_block.ts";

const CONTEXT_PAGE = 15;
/**
 * Most items each pane holds: scrolling on drops pages at the far end (as the conversation
 * does), so a long read does not grow a DOM that every major GC traces.
 */
export const CONTEXT_WINDOW = 6 * CONTEXT_PAGE;

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

function renderBlock(block: BlockView, loadFull: () => Promise<string>): HTMLElement {
  if (block.kind === "image") {
    if (block.dataUrl) {
      return el(
        "figure",
        { class: "block image" },
        safeImage(block.dataUrl, `${block.mimeType} image`),
      );
    }
    return el("div", { class: "block note" }, `[${block.note ?? "image not displayed"}]`);
  }
  const cls = block.kind === "toolCall" || block.kind === "other" ? "json" : "text";
  const full = block.fullLength ? { length: block.fullLength, load: loadFull } : undefined;
  const text = foldedBlock(cls, block.text, full);
  switch (block.kind) {
    case "thinking":
      return el("details", { class: "block thinking" }, el("summary", {}, "thinking"), ...text);
    case "toolCall":
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
        ...text,
      );
    default:
      return el("div", { class: `block ${block.kind}` }, ...text);
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
  readonly #window: PagedWindow<ContextItemView, ContextPageView>;
  #summarized = false;
  #comparison: { element: HTMLElement; dispose(): void } | undefined;

  constructor(readonly source: ContextSource, readonly onSource: (entryId: string) => void) {
    this.#summary = el("div", { class: "context-summary" });
    this.#list = el("ol", { class: "context-list" });
    const top = el("div", { class: "sentinel" });
    const bottom = el("div", { class: "sentinel" });
    this.element = el(
      "section",
      { class: source.as ? "pane older-agent-pane" : "pane context-pane" },
      source.as ? null : el("h3", {}, "Projected context"),
      this.#summary,
      top,
      this.#list,
      bottom,
    );
    const { client, sessionId, leafId, as } = source;
    this.#window = new PagedWindow({
      list: this.#list,
      top,
      bottom,
      pageSize: CONTEXT_PAGE,
      windowSize: CONTEXT_WINDOW,
      fetch: (start, count) => client.call("context", sessionId, leafId, start, count, as),
      render: (item) => this.#renderItem(item),
      onPage: (page) => {
        if (!this.#summarized) this.#renderSummary(page); // the same on every page
        this.#summarized = true;
        if (page.total === 0) {
          replaceChildren(
            this.#list,
            el("li", { class: "empty" }, "Nothing in context at this leaf."),
          );
        }
      },
      scroller: () => this.element,
    });
  }

  /** Load the first page; `shown` is called once its first rows are in the list. */
  async start(shown?: () => void): Promise<void> {
    await this.#window.load(0, "after", shown);
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
    this.#window.dispose();
    this.#comparison?.dispose();
  }
}
