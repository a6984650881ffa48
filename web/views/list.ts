/**
 * The session list: title (name, fresh summary or first message), cwd, created and
 * modified times, message count; internal workflow sessions behind a toggle; a filter box;
 * and the files that could not be loaded, each with its reason. With nothing imported it
 * offers the bundled demo sessions.
 *
 * @module
 */
import { button, el, formatDate, hashLink } from "../dom.ts";
import type { ListView, SessionRowView, UnloadableView } from "../types.ts";

/** What the list can ask the app to do. */
export interface ListActions {
  loadDemo(): void;
  openFiles(): void;
  openFolder(): void;
  setIncludeInternal(include: boolean): void;
  exportSession(id: string): void;
  deleteSession(id: string): void;
  clearUnloadable(): void;
}

/** The list's inputs. */
export interface ListState {
  list: ListView;
  includeInternal: boolean;
  /** Import failures remembered by the page, newest first. */
  unloadable: UnloadableView[];
  filter: string;
}

/** Most rows drawn at once (a filter narrows the rest). */
const MAX_ROWS = 500;

/** The route of a session's page. */
export function sessionHash(id: string): string {
  return `#/session/${encodeURIComponent(id)}`;
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

function sessionRow(row: SessionRowView, actions: ListActions): HTMLElement {
  return el(
    "tr",
    { class: row.internal ? "internal" : "", dataset: { id: row.id } },
    el(
      "td",
      { class: "title-cell" },
      hashLink(sessionHash(row.id), { class: "session-link" }, row.title || "(untitled)"),
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
    el(
      "td",
      { class: "row-actions" },
      button("Export", () => actions.exportSession(row.id), {
        class: "small",
        title: "Download as JSONL",
      }),
      button("Delete", () => actions.deleteSession(row.id), {
        class: "small danger",
        title: "Remove from this browser",
      }),
    ),
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
      emptyState(actions),
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
      button("Add demo sessions", () => actions.loadDemo(), { class: "small" }),
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
