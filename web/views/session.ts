/**
 * One session's page: header facts and export buttons, the tree on the left, and on the
 * right either the projected context beside the raw entries, or usage. Switching the leaf
 * (clicking a tree row) rebuilds the right side for the new branch.
 *
 * @module
 */
import { button, el, replaceChildren } from "../dom.ts";
import { type ImportOrigin, sessionFacts } from "./session_facts.ts";
import type { ViewerClient } from "../rpc.ts";
import type { SessionOverview, TreeStartView } from "../types.ts";
import { ContextPane } from "./context.ts";
import { conversationPane } from "./conversation_pane.ts";
import { RawPane } from "./raw_pane.ts";
import { afterNextFrame } from "../paged_window.ts";
import { FindBar } from "./find.ts";
import { PaneTabs } from "./pane_tabs.ts";
import { TreeView } from "./tree.ts";
import { renderUsage } from "./usage.ts";
import type { ConversationList } from "../conversation/list.ts";
import { hitTerms } from "./search.ts";
import { loadingNotice, TAB_LOADING_TEXT, treeLoadingNotice } from "./loading.ts";
import { rawToggle, showRaw } from "./raw_toggle.ts";
import { type SessionActions, sessionHead } from "./session_head.ts";
import { preferredTab, rememberTab, type SessionTab, tabName } from "./reading_prefs.ts";

export type { SessionTab };
export type { ImportOrigin };
export type { SessionActions };

/** The tab a URL's `tab=` names (else the one the reader last chose, the conversation at first). */
export function sessionTab(name: string | null): SessionTab {
  return tabName(name) ?? preferredTab();
}

/** A mounted session page. */
export class SessionPage {
  readonly element: HTMLElement;
  /** Mounted once the full overview is known (a pending one has no tree size yet). */
  #tree: TreeView | undefined;
  readonly #treeSlot: HTMLElement;
  #facts: HTMLElement;
  #overview: SessionOverview;
  readonly #right: HTMLElement;
  readonly #tabs: Record<SessionTab, HTMLButtonElement>;
  readonly #leafLabel: HTMLElement;
  #panes: Array<{ dispose(): void }> = [];
  #leafId: string | null;
  #tab: SessionTab;
  #renderToken = 0;
  /** The entry to scroll to and highlight once the raw entries are shown (a search hit). */
  #focus: string | undefined;
  #raw: RawPane | undefined;
  /** The raw pane whose first page waits for a hosted export's full load. */
  #rawDeferred: RawPane | undefined;
  #paneTabs: PaneTabs | undefined;
  /** The conversation shown (on the Conversation tab), where a hit is revealed. */
  #conversation: ConversationList | undefined;
  /** The right side as last asked for: a hit is revealed once it is in. */
  #rendered: Promise<void> = Promise.resolve();
  /** Whether the leaf was chosen (URL, tree): a hit shown on another branch is not. */
  #leafChosen = true;
  /** The hit shown, and the button that makes it the leaf. */
  #hit: string | undefined;
  #hitToken = 0;
  readonly #makeLeaf: HTMLButtonElement;
  /** Called once the right side's first page is shown (or could not be). */
  #firstShown = () => {};

  constructor(
    readonly client: ViewerClient,
    overview: SessionOverview,
    leafId: string | null,
    tab: SessionTab,
    readonly actions: SessionActions,
    readonly origin?: ImportOrigin,
  ) {
    this.#overview = overview;
    this.#leafId = leafId;
    this.#tab = tab;
    this.#treeSlot = el("div", { class: "tree-slot" });
    this.#leafLabel = el("code", { attrs: { id: "current-leaf" } });
    this.#tabs = {
      context: button("Context", () => this.setTab("context", true), {
        class: "tab",
        attrs: { role: "tab" },
      }),
      conversation: button("Conversation", () => this.setTab("conversation", true), {
        class: "tab",
        attrs: { role: "tab" },
      }),
      usage: button("Usage & cost", () => this.setTab("usage", true), {
        class: "tab",
        attrs: { role: "tab" },
      }),
    };
    this.#right = el("div", { class: "right" });
    this.#makeLeaf = button("Make this the leaf", () => {
      if (this.#hit) this.setLeaf(this.#hit, true);
    }, {
      class: "small",
      title: "Cut the branch at the shown match (the context and usage then end there)",
      attrs: { id: "make-leaf", hidden: true },
    });
    this.#facts = sessionFacts(overview, this.origin);
    this.element = el(
      "div",
      { class: "session-page" },
      sessionHead({
        overview,
        facts: this.#facts,
        actions,
        leafId: () => this.#leafId,
        find: new FindBar(client, overview.key, (h) => void this.showHit(h.entryId, hitTerms(h))),
        makeLeaf: this.#makeLeaf,
      }),
      el(
        "div",
        { class: "session-body" },
        el(
          "aside",
          { class: "tree-pane" },
          el(
            "div",
            { class: "pane-head" },
            el("h3", {}, "Tree"),
            el("span", { class: "muted" }, "leaf "),
            this.#leafLabel,
          ),
          this.#treeSlot,
          el("p", { class: "muted hint" }, "Click an entry to make it the leaf."),
        ),
        el(
          "section",
          { class: "main-pane" },
          el(
            "div",
            { class: "tabs", attrs: { role: "tablist" } },
            this.#tabs.context,
            this.#tabs.conversation,
            this.#tabs.usage,
            rawToggle(() => this.#right),
          ),
          this.#right,
        ),
      ),
    );
    this.#paneTabs = new PaneTabs(
      this.element,
      tab,
      (pane) => {
        if (pane === "context" || pane === "conversation" || pane === "usage") {
          this.setTab(pane, true);
        } else if (this.#tab === "usage") this.setTab("context", true); // tree, raw: beside a branch view
      },
    );
    this.element.querySelector(".session-body")!.before(this.#paneTabs.element);
    // The right side first: its first page goes out before anything else, and the tree
    // (unless the store gives its shape cheaply: the whole session, on a large one through
    // `mu serve` its every page) is asked for once that page is shown, so the two do not
    // share the server meanwhile.
    const firstShown = new Promise<void>((resolve) => this.#firstShown = resolve);
    this.#rendered = this.#renderRight();
    const loadTree = () => {
      const loading = treeLoadingNotice(client, overview.key);
      replaceChildren(this.#treeSlot, loading.element);
      // The shape where the store gives it is asked at once: it is cheap, and the worker
      // answers it before the full load the right side may start.
      void this.#startTree().then(() => firstShown).then(() => this.#complete()).finally(
        loading.stop,
      );
    };
    // A hosted export's tree needs the whole file, perhaps hundreds of MB: fetched when asked.
    if (overview.pending && overview.hostedUrl !== undefined) {
      this.#treeSlot.append(el(
        "p",
        { class: "muted", attrs: { id: "tree-hosted" } },
        "Only this branch's context was read from the hosted export. ",
        button("Load the whole session", loadTree, { attrs: { id: "load-hosted" } }),
      ));
    } else if (overview.pending) loadTree();
    else this.#mountTree(overview.rowCount);
  }

  /** The overview: the full one once the session is loaded (see `pending`). */
  get overview(): SessionOverview {
    return this.#overview;
  }

  /**
   * The tree's first rows before the full overview: where the store gives the tree's shape
   * without loading the session, the tree is shown while the rest of it loads.
   */
  async #startTree(): Promise<void> {
    const key = this.#overview.key;
    try {
      const start = await this.client.call("treeStart", key, this.#leafId, this.#focus);
      if (start && !this.#tree) this.#mountTree(start.rowCount, start);
    } catch {
      // The full overview says why (`#complete`), or mounts the tree after all.
    }
  }

  /** Wait for the full overview (the worker loads the rest of the session), then show it. */
  async #complete(): Promise<void> {
    try {
      const full = await this.client.call("sessionComplete", this.#overview.key);
      this.#overview = full;
      const facts = sessionFacts(full, this.origin);
      this.#facts.replaceWith(facts);
      this.#facts = facts;
      // The tree drawn from the shape stays (the same rows, asked again of the loaded
      // session), unless the session grew meanwhile.
      if (this.#tree?.options.rowCount !== full.rowCount) this.#mountTree(full.rowCount);
      else this.#tree.refresh();
      const raw = this.#rawDeferred;
      this.#rawDeferred = undefined;
      if (raw && raw === this.#raw) void raw.more();
    } catch (error) {
      replaceChildren(
        this.#treeSlot,
        el("p", { class: "error" }, `Could not load the tree: ${(error as Error).message}`),
      );
    }
  }

  /**
   * The tree, once its size is known; revealing the current leaf (or the entry in focus):
   * at the row `start` names when its first rows came with the size.
   */
  #mountTree(rowCount: number, start?: TreeStartView): void {
    this.#tree = new TreeView({
      client: this.client,
      sessionId: this.#overview.key,
      rowCount,
      leafId: this.#leafId,
      start,
      onSelect: (id) => {
        this.setLeaf(id, true);
        this.#paneTabs?.followLeaf(this.#tab === "conversation" ? "conversation" : "context");
      },
    });
    replaceChildren(this.#treeSlot, this.#tree.element);
    if (start) this.#tree.revealRow(start.focusRow);
    else void this.#tree.reveal(this.#focus ?? this.#leafId ?? "");
  }

  /** The current leaf. */
  get leafId(): string | null {
    return this.#leafId;
  }

  /** Switch to another leaf (from a click, or the URL). */
  setLeaf(leafId: string | null, fromUser = false): void {
    const wasChosen = this.#leafChosen;
    this.#leafChosen = true;
    this.#makeLeaf.hidden = true;
    if (leafId === this.#leafId) {
      if (fromUser && !wasChosen) this.actions.navigate(leafId, this.#tab);
      return;
    }
    this.#leafId = leafId;
    this.#tree?.setLeaf(leafId);
    if (fromUser) this.actions.navigate(leafId, this.#tab);
    this.#rendered = this.#renderRight();
  }

  /**
   * Show a search hit: its message in the conversation, scrolled to with `terms` marked,
   * on the current branch when the hit is on it, else on the newest branch through it.
   * The leaf is never cut at the hit, so the context and usage stay what they were; the
   * URL does not name a leaf the reader did not choose. "Make this the leaf" does that.
   */
  async showHit(entryId: string, terms: readonly string[]): Promise<void> {
    const token = ++this.#hitToken;
    const place = await this.client.call("locateEntry", this.overview.key, this.#leafId, entryId);
    if (token !== this.#hitToken) return;
    this.#hit = this.#focus = entryId;
    this.#makeLeaf.hidden = place.leafId === entryId;
    let changed = false;
    if (place.leafId !== this.#leafId) {
      this.#leafId = place.leafId;
      this.#leafChosen = false;
      this.#tree?.setLeaf(place.leafId);
      changed = true;
    }
    if (this.#tab !== "conversation") {
      this.#tab = "conversation";
      this.#paneTabs?.show("conversation");
      changed = true;
    }
    this.#paneTabs?.showOnSmallScreen("conversation"); // the message, not the raw JSON
    if (changed) this.#rendered = this.#renderRight();
    await this.#rendered;
    if (token !== this.#hitToken) return;
    void this.#tree?.reveal(entryId);
    await this.#conversation?.reveal(place.item, terms);
  }

  /** Switch tabs. */
  setTab(tab: SessionTab, fromUser = false): void {
    if (tab === this.#tab) return;
    this.#tab = tab;
    const pane = this.element.dataset.pane;
    if (tab !== "context") this.#paneTabs?.show(tab);
    else if (pane === "usage" || pane === "conversation") this.#paneTabs?.show("context");
    if (fromUser) {
      if (tab !== "usage") rememberTab(tab); // a reading layout; usage is a look, not a habit
      this.actions.navigate(this.#leafChosen ? this.#leafId : undefined, tab);
    }
    this.#rendered = this.#renderRight();
  }

  async #renderRight(): Promise<void> {
    const token = ++this.#renderToken;
    replaceChildren(this.#leafLabel, this.#leafId ?? "(none)"); // an id from the file: as text
    for (const [name, tab] of Object.entries(this.#tabs)) {
      tab.classList.toggle("active", name === this.#tab);
      tab.setAttribute("aria-selected", String(name === this.#tab));
    }
    for (const pane of this.#panes) pane.dispose();
    this.#panes = [];
    this.#raw = undefined;
    this.#conversation = undefined;
    // The old branch or tab never stays on screen while the new one loads.
    const loading = loadingNotice("pane-loading", TAB_LOADING_TEXT[this.#tab]);
    replaceChildren(this.#right, loading.element);
    const source = { client: this.client, sessionId: this.overview.key, leafId: this.#leafId };
    try {
      if (this.#tab === "usage") {
        const usage = await this.client.call("usage", this.overview.key, this.#leafId);
        if (token !== this.#renderToken) return;
        replaceChildren(this.#right, renderUsage(usage));
        return;
      }
      const raw = new RawPane(source);
      const main = this.#tab === "conversation"
        ? await conversationPane(source, this.#overview.pending === true)
        : new ContextPane(source, (id) => void raw.reveal(id));
      if (token !== this.#renderToken) { // another leaf or tab was asked for meanwhile
        main.dispose();
        raw.dispose();
        return;
      }
      this.#panes = [raw, main];
      if (this.#tab === "conversation") this.#conversation = main as ConversationList;
      // The context first: on a large session its first page comes from a context-only
      // load, while the raw entries wait for the whole session (asked for below). The page
      // is shown with the first rows in; the rest of the first page follows a frame at a
      // time, so the open's layout is not the whole page's (a long task on a large session).
      let shown = () => {};
      const first = new Promise<void>((resolve) => shown = resolve);
      const loaded = main.start(shown);
      loaded.catch(() => {}); // awaited below, unless another leaf or tab replaced this one
      await Promise.race([first, loaded]);
      if (token !== this.#renderToken) return;
      replaceChildren(
        this.#right,
        el(
          "div",
          {
            class: `columns${showRaw() ? "" : " no-raw"}`,
            attrs: { id: this.#tab === "conversation" ? "conversation-view" : "context-view" },
            dataset: { leaf: this.#leafId ?? "" },
          },
          main.element,
          raw.element,
        ),
      );
      this.#raw = raw;
      this.#firstShown();
      await loaded;
      if (token !== this.#renderToken) return;
      // The raw pane's first page a task after the main pane's has been laid out: together
      // they were one long task on a large session (style, layout and paint of both). Its column
      // has a fixed width, so nothing moves when it fills.
      await afterNextFrame();
      if (token !== this.#renderToken) return;
      // A hosted export's raw entries need its whole file: hidden, they wait for its load.
      if (this.#overview.pending && this.#overview.hostedUrl !== undefined && !showRaw()) {
        this.#rawDeferred = raw;
        return;
      }
      await raw.more();
      if (this.#focus) await raw.reveal(this.#focus);
    } catch (error) {
      if (token !== this.#renderToken) return;
      replaceChildren(
        this.#right,
        el("p", { class: "error" }, `Could not show this leaf: ${(error as Error).message}`),
      );
    } finally {
      loading.stop();
      if (token === this.#renderToken) this.#firstShown(); // failed: the tree is still wanted
    }
  }
}
