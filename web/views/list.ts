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
import { computerEmptyState, type LookedIn } from "./computer_empty.ts";
import { unloadableList, unreadableNotice } from "./unreadable_notice.ts";
import {
  groupByProject,
  LIST_SORTS,
  type ListSort,
  parentLookup,
  projectName,
  sortRows,
} from "./list_groups.ts";

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
  setSort(sort: ListSort): void;
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
  /** Where `mu serve` reads sessions from (shown when it found none). */
  lookedIn?: readonly LookedIn[];
  /** The full-text search panel (kept by the page across redraws). */
  search?: HTMLElement;
  sort: ListSort;
  /**
   * Keys of the sessions whose message text matches the filter (the store's search), or
   * undefined while that search has not answered.
   */
  textMatches?: ReadonlySet<string>;
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

/** Whether the filter matches the row's title, cwd or id (the message text is searched apart). */
function matchesFacts(row: SessionRowView, filter: string): boolean {
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
    unloadableList(items),
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

/** "fork of <parent>": a link when the parent is listed, its id otherwise. */
function forkNote(
  row: SessionRowView,
  parentOf: (id: string) => SessionRowView | undefined,
): HTMLElement | null {
  if (!row.parentSessionId) return null;
  const parent = parentOf(row.parentSessionId);
  return el(
    "span",
    { class: "fork-of" },
    "fork of ",
    parent
      ? hashLink(sessionHash(parent.key), {
        class: "parent-link",
        title: `Open the session this one came from (${parent.id})`,
      }, parent.title || parent.id)
      : el("code", { title: "That session is not in this list" }, row.parentSessionId),
  );
}

function sessionRow(
  row: SessionRowView,
  actions: ListActions,
  parentOf: (id: string) => SessionRowView | undefined,
  textMatch: boolean,
): HTMLElement {
  return el(
    "tr",
    { class: row.internal ? "internal" : "", dataset: { id: row.id } },
    el(
      "td",
      { class: "title-cell" },
      hashLink(sessionHash(row.key), {
        class: "session-link clamp-2",
        title: row.title.length > 90 ? row.title.slice(0, 2_000) : undefined,
      }, row.title || "(untitled)"),
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
        textMatch ? el("span", { class: "chip tone-meta text-match" }, "message text") : null,
        el("code", { class: "muted id" }, row.id),
      ),
      forkNote(row, parentOf),
    ),
    el("td", { class: "cwd", title: row.cwd }, row.cwd || "—"),
    el("td", { class: "date", dataset: { label: "created" } }, formatDate(row.created)),
    el("td", { class: "date", dataset: { label: "modified" } }, formatDate(row.modified)),
    el("td", { class: "num", dataset: { label: "messages" } }, String(row.messageCount)),
    rowActions(row, actions),
  );
}

/** The heading row of one project's sessions. */
function groupRow(cwd: string, count: number): HTMLElement {
  return el(
    "tr",
    { class: "group-row", dataset: { cwd } },
    el(
      "th",
      { attrs: { colspan: "6" }, title: cwd },
      el("span", { class: "project" }, projectName(cwd)),
      " ",
      el(
        "span",
        { class: "muted group-count" },
        `${count} ${count === 1 ? "session" : "sessions"}`,
      ),
      cwd ? el("code", { class: "muted group-cwd" }, cwd) : null,
    ),
  );
}

/** The sort menu of the toolbar. */
function sortMenu(sort: ListSort, actions: ListActions): HTMLElement {
  const select = el(
    "select",
    { attrs: { id: "list-sort", "aria-label": "Sort sessions" } },
    ...LIST_SORTS.map(([value, label]) => {
      const option = el("option", { attrs: { value } }, label);
      option.selected = value === sort;
      return option;
    }),
  );
  select.addEventListener("change", () => actions.setSort(select.value as ListSort));
  return el("label", { class: "sort" }, "Sort ", select);
}

/** Render the list page. */
export function renderList(
  state: ListState,
  actions: ListActions,
  onFilter: (text: string) => void,
): HTMLElement {
  const { list } = state;
  // This computer's files are read where they are, not imported: a notice, not "Unloadable".
  const computer = state.source === "computer";
  const unloadable = computer ? state.unloadable : [...state.unloadable, ...list.skipped];
  const unreadable = computer ? unreadableNotice(list.skipped) : null;
  const total = list.sessions.length + list.hiddenInternal;
  if (total === 0) {
    return el(
      "div",
      { class: "list-page" },
      sourceTabs(state, actions),
      state.source === "computer"
        ? computerEmptyState(actions, state.lookedIn ?? [])
        : emptyState(actions),
      unreadable,
      unloadableSection(unloadable, actions),
    );
  }
  const textMatches = state.filter ? state.textMatches : undefined;
  const rows = sortRows(
    list.sessions.filter((row) =>
      matchesFacts(row, state.filter) || textMatches?.has(row.key) === true
    ),
    state.sort,
  );
  const filter = el("input", {
    class: "filter",
    attrs: {
      type: "search",
      placeholder: "Filter by title, cwd, id or message text",
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
  const shown = rows.slice(0, MAX_ROWS);
  const parentOf = parentLookup(list.sessions);
  const body: HTMLElement[] = [];
  for (const group of groupByProject(shown)) {
    body.push(groupRow(group.cwd, group.rows.length));
    for (const row of group.rows) {
      const textMatch = textMatches?.has(row.key) === true && !matchesFacts(row, state.filter);
      body.push(sessionRow(row, actions, parentOf, textMatch));
    }
  }
  return el(
    "div",
    { class: "list-page" },
    sourceTabs(state, actions),
    state.search ?? null,
    unreadable,
    el(
      "div",
      { class: "toolbar" },
      filter,
      sortMenu(state.sort, actions),
      el(
        "label",
        { class: "toggle", attrs: { for: "show-internal" } },
        toggle,
        ` Show internal sessions (${internalCount})`,
      ),
      el(
        "span",
        { class: "muted count" },
        `${rows.length} of ${list.sessions.length} sessions`,
        state.filter && !textMatches ? " (searching message text…)" : "",
      ),
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
      el("tbody", {}, ...body),
    ),
    rows.length > MAX_ROWS
      ? el(
        "p",
        { class: "muted" },
        `Showing the first ${MAX_ROWS}; use the filter to find others.`,
      )
      : null,
    unloadableSection(unloadable, actions),
  );
}
