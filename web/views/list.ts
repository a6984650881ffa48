/**
 * The session list: title (name, fresh summary or first message), cwd, created and
 * modified times, message count; internal workflow sessions behind a toggle; a filter box;
 * and the files that could not be loaded, each with its reason. With nothing imported it
 * offers the bundled demo sessions. Served by `mu serve`, tabs switch between this
 * computer's sessions (read live from the server) and this browser's own store.
 *
 * @module
 */
import { button, el, formatDate, hashLink } from "../dom.ts";
import type { SessionSource } from "../session_key.ts";
import type { ListView, SessionRowView, UnloadableView } from "../types.ts";

/** What the list can ask the app to do. */
export interface ListActions {
  loadDemo(): void;
  openFiles(): void;
  openFolder(): void;
  setIncludeInternal(include: boolean): void;
  /** Every session argument is a row's key (`session_key.ts`). */
  exportSession(key: string): void;
  deleteSession(key: string): void;
  /** Copy a computer session into this browser's store. */
  keepCopy(key: string): void;
  setSource(source: SessionSource): void;
  clearUnloadable(): void;
}

/** The list's inputs. */
export interface ListState {
  list: ListView;
  includeInternal: boolean;
  /** Import failures remembered by the page, newest first. */
  unloadable: UnloadableView[];
  filter: string;
  /** The listed source. */
  source: SessionSource;
  /** Whether the page is served by `mu serve` (the computer source exists). */
  computer: boolean;
  /** The full-text search panel (kept by the page across redraws). */
  search?: HTMLElement;
}

/** Most rows drawn at once (a filter narrows the rest). */
const MAX_ROWS = 500;

/** The route of a session's page. */
export function sessionHash(key: string): string {
  return `#/session/${encodeURIComponent(key)}`;
}

/** The source tabs (only when the page is served by `mu serve`). */
function sourceTabs(state: ListState, actions: ListActions): HTMLElement | null {
  if (!state.computer) return null;
  const tab = (source: SessionSource, label: string, title: string) => {
    const node = button(label, () => actions.setSource(source), {
      class: `tab${state.source === source ? " active" : ""}`,
      title,
      attrs: {
        role: "tab",
        id: `source-${source}`,
        "aria-selected": String(state.source === source),
      },
    });
    return node;
  };
  return el(
    "div",
    { class: "tabs sources", attrs: { role: "tablist", "aria-label": "Session source" } },
    tab("computer", "This computer", "The sessions mu serve reads from this computer's store"),
    tab("browser", "This browser", "Sessions imported into this browser's own storage"),
  );
}

function computerEmptyState(actions: ListActions): HTMLElement {
  return el(
    "section",
    { class: "empty-state card" },
    el("h2", {}, "No sessions on this computer yet"),
    el(
      "p",
      {},
      "mu serve found no sessions in this computer's store. Sessions an agent writes there ",
      "appear here as they are created.",
    ),
    el(
      "div",
      { class: "actions" },
      button("Show this browser's sessions", () => actions.setSource("browser"), {
        class: "primary",
      }),
    ),
  );
}

function matches(row: SessionRowView, filter: string): boolean {
  if (!filter) return true;
  const needle = filter.toLowerCase();
  return row.title.toLowerCase().includes(needle) || row.cwd.toLowerCase().includes(needle) ||
    row.id.toLowerCase().includes(needle);
}

function emptyState(actions: ListActions): HTMLElement {
  return el(
    "section",
    { class: "empty-state card" },
    el("h2", {}, "No sessions here yet"),
    el(
      "p",
      {},
      "Open pi / Atomic session files (.jsonl, any format version) or a whole sessions folder such as ~/.pi/agent/sessions. ",
      "Everything is parsed in this browser and stored locally; nothing is uploaded.",
    ),
    el(
      "div",
      { class: "actions" },
      button("Load the demo sessions", () => actions.loadDemo(), {
        class: "primary",
        attrs: { id: "load-demo" },
      }),
      button("Open .jsonl files…", () => actions.openFiles()),
      button("Open a folder…", () => actions.openFolder()),
    ),
    el("p", { class: "muted" }, "Or drop files or folders anywhere on this page."),
  );
}

function errorText(item: UnloadableView): string {
  const error = item.error;
  const where = error.line ? `line ${error.line}: ` : "";
  return `${error.name}: ${where}${error.reason ?? error.message}`;
}

function unloadableSection(items: UnloadableView[], actions: ListActions): HTMLElement | null {
  if (!items.length) return null;
  return el(
    "section",
    { class: "card unloadable", attrs: { id: "unloadable" } },
    el(
      "div",
      { class: "section-head" },
      el("h3", {}, `Unloadable files (${items.length})`),
      button("Clear", () => actions.clearUnloadable(), { class: "link-button" }),
    ),
    el("p", { class: "muted" }, "These were not imported. Nothing of them was stored."),
    el(
      "ul",
      { class: "unloadable-list" },
      ...items.map((item) =>
        el(
          "li",
          {},
          el("code", { class: "path" }, item.path),
          el("span", { class: "reason" }, errorText(item)),
        )
      ),
    ),
  );
}

function rowActions(row: SessionRowView, actions: ListActions): HTMLElement {
  const exportButton = button("Export", () => actions.exportSession(row.key), {
    class: "small",
    title: "Download as JSONL",
  });
  if (row.source === "computer") {
    return el(
      "td",
      { class: "row-actions" },
      exportButton,
      button("Keep a copy in this browser", () => actions.keepCopy(row.key), {
        class: "small keep-copy",
        title: "Copy into this browser's storage for offline use (never overwrites)",
      }),
    );
  }
  return el(
    "td",
    { class: "row-actions" },
    exportButton,
    button("Delete", () => actions.deleteSession(row.key), {
      class: "small danger",
      title: "Remove from this browser",
    }),
  );
}

function sessionRow(row: SessionRowView, actions: ListActions): HTMLElement {
  return el(
    "tr",
    { class: row.internal ? "internal" : "", dataset: { id: row.id } },
    el(
      "td",
      { class: "title-cell" },
      hashLink(sessionHash(row.key), { class: "session-link" }, row.title || "(untitled)"),
      el(
        "div",
        { class: "sub" },
        el(
          "span",
          { class: `chip tone-${row.titleSource === "name" ? "name" : "meta"}` },
          row.titleSource,
        ),
        row.internal
          ? el("span", { class: "chip tone-internal" }, `internal · ${row.workflow ?? "workflow"}`)
          : null,
        el("code", { class: "muted id" }, row.id),
      ),
    ),
    el("td", { class: "cwd", title: row.cwd }, row.cwd || "—"),
    el("td", { class: "date" }, formatDate(row.created)),
    el("td", { class: "date" }, formatDate(row.modified)),
    el("td", { class: "num" }, String(row.messageCount)),
    rowActions(row, actions),
  );
}

/** Render the list page. */
export function renderList(
  state: ListState,
  actions: ListActions,
  onFilter: (text: string) => void,
): HTMLElement {
  const { list } = state;
  const unloadable = [...state.unloadable, ...list.skipped];
  const total = list.sessions.length + list.hiddenInternal;
  if (total === 0) {
    return el(
      "div",
      { class: "list-page" },
      sourceTabs(state, actions),
      state.source === "computer" ? computerEmptyState(actions) : emptyState(actions),
      unloadableSection(unloadable, actions),
    );
  }
  const rows = list.sessions.filter((row) => matches(row, state.filter));
  const filter = el("input", {
    class: "filter",
    attrs: {
      type: "search",
      placeholder: "Filter by title, cwd or id",
      "aria-label": "Filter sessions",
      spellcheck: "false",
    },
  });
  filter.value = state.filter;
  filter.addEventListener("input", () => onFilter(filter.value));
  const toggle = el("input", { attrs: { type: "checkbox", id: "show-internal" } });
  toggle.checked = state.includeInternal;
  toggle.addEventListener("change", () => actions.setIncludeInternal(toggle.checked));
  const internalCount = state.includeInternal
    ? list.sessions.filter((s) => s.internal).length
    : list.hiddenInternal;
  return el(
    "div",
    { class: "list-page" },
    sourceTabs(state, actions),
    state.search ?? null,
    el(
      "div",
      { class: "toolbar" },
      filter,
      el(
        "label",
        { class: "toggle", attrs: { for: "show-internal" } },
        toggle,
        ` Show internal sessions (${internalCount})`,
      ),
      el("span", { class: "muted count" }, `${rows.length} of ${list.sessions.length} sessions`),
      state.source === "browser"
        ? button("Add demo sessions", () => actions.loadDemo(), { class: "small" })
        : null,
    ),
    el(
      "table",
      { class: "table sessions", attrs: { id: "session-table" } },
      el(
        "thead",
        {},
        el(
          "tr",
          {},
          ...["Session", "cwd", "Created", "Modified", "Messages", ""].map((h) =>
            el("th", { class: h === "Messages" ? "num" : "" }, h)
          ),
        ),
      ),
      el("tbody", {}, ...rows.slice(0, MAX_ROWS).map((row) => sessionRow(row, actions))),
    ),
    rows.length > MAX_ROWS
      ? el(
        "p",
        { class: "muted" },
        `Showing the newest ${MAX_ROWS}; use the filter to find others.`,
      )
      : null,
    unloadableSection(unloadable, actions),
  );
}
