/**
 * The viewer page: starts the worker, routes between the session list (`#/`) and a
 * session (`#/session/<id>?leaf=<entry>&tab=context|usage`), runs imports with a progress
 * bar, and remembers unloadable files (in localStorage) so they stay listed with their
 * reason. Session content is only ever rendered as text (see `dom.ts`).
 *
 * @module
 */
import { el, replaceChildren } from "./dom.ts";
import { createViewerClient } from "./rpc.ts";
import type { ImportResultView, ListView, SessionOverview } from "./types.ts";
import { showStorage } from "./views/storage_badge.ts";
import { importSummary } from "./import_summary.ts";
import { askImportConflict } from "./views/conflict.ts";
import { Importer, ProgressBar } from "./views/importer.ts";
import { type ListActions, renderList, sessionHash } from "./views/list.ts";
import type { LookedIn } from "./views/computer_empty.ts";
import { TextFilter } from "./views/text_filter.ts";
import { SessionPage, type SessionTab } from "./views/session.ts";
import { parseHash, type Route, sessionUrl } from "./hash_route.ts";
import { describeError, toaster } from "./toast.ts";
import { SearchPanel } from "./views/search.ts";
import { LiveUpdates } from "./live.ts";
import { sessionRefresher } from "./session_refresh.ts";
import {
  loadListSort,
  loadOrigins,
  loadUnloadable,
  saveListSort,
  saveUnloadable,
  storeOrigins,
} from "./local_memory.ts";
import { saveExport } from "./export/save.ts";
import { hostedKey, parseSessionKey, sessionKey, type SessionSource } from "./session_key.ts";

const app = document.getElementById("app")!;
const toastArea = document.getElementById("toasts")!;
const storageBadge = document.getElementById("storage")!;
const worker = new Worker(new URL("./worker.js", import.meta.url), {
  type: "module",
  name: "mu-viewer",
});
const client = createViewerClient(worker);
const progress = new ProgressBar();
/** Conflict questions are answered one at a time, in the order the worker asks them. */
let conflictQueue: Promise<void> = Promise.resolve();
client.onEvent((event) => {
  if (event.type === "import-progress") progress.update(event.data);
  else if (event.type === "import-conflict") {
    const question = event.data;
    conflictQueue = conflictQueue.then(async () => {
      const choice = await askImportConflict(question);
      await client.call("answerImportConflict", question.questionId, choice);
    }).catch((error) => toast(`Import question failed: ${describeError(error)}`, "error"));
  }
});

const state = {
  includeInternal: false,
  filter: "",
  list: undefined as ListView | undefined,
  page: undefined as SessionPage | undefined,
  busy: false,
  /** Which store the list shows; "computer" only when served by `mu serve`. */
  source: "browser" as SessionSource,
  computer: false,
  /** Where `mu serve` looked for sessions (its `/api/info`), for the empty "This computer". */
  lookedIn: [] as LookedIn[],
  sort: loadListSort(),
};

/** Server-sent changes: re-open the shown computer session, refresh its list. */
const live = new LiveUpdates({
  session: (sessionId) => refreshSession(sessionKey("computer", sessionId)),
  sessions: () => {
    if (!state.page && state.source === "computer" && !parseHash().sessionId) void showList();
  },
});

const search = new SearchPanel(
  client,
  () => ({ includeInternal: state.includeInternal }),
);

let unloadable = loadUnloadable();
/** Where each imported session came from (file path, format version); a Map, so any id is safe. */
const origins = loadOrigins();
const saveOrigins = () => storeOrigins(origins);

function rememberOrigins(results: ImportResultView[], at: number): void {
  for (const r of results) {
    if (r.status === "failed" || r.status === "skipped" || !r.sessionId) continue;
    origins.delete(r.sessionId); // re-insert: newest last
    origins.set(r.sessionId, { path: r.path, sourceVersion: r.sourceVersion ?? 4, importedAt: at });
  }
  saveOrigins();
}

/** Show a short message; errors stay until dismissed. */
const toast = toaster(toastArea);

/** Run an import, then record failures and refresh. Returns the results. */
async function runImport(run: () => Promise<ImportResultView[]>): Promise<ImportResultView[]> {
  if (state.busy) {
    toast("An import is already running.", "error");
    return [];
  }
  state.busy = true;
  document.body.classList.add("busy");
  try {
    const results = await run();
    rememberOrigins(results, Date.now());
    // Whatever was imported (files, demo, a kept copy) is in this browser's store: list that.
    if (results.some((r) => r.status !== "failed" && r.status !== "skipped")) {
      state.source = "browser";
    }
    const failed = results.filter((r) => r.status === "failed");
    const now = Date.now();
    if (failed.length) {
      const paths = new Set(failed.map((r) => r.path));
      unloadable = [
        ...failed.map((r) => ({ path: r.path, error: r.error!, at: now })),
        ...unloadable.filter((u) => !paths.has(u.path)),
      ];
      saveUnloadable(unloadable);
    }
    const okPaths = new Set(results.filter((r) => r.status !== "failed").map((r) => r.path));
    if (okPaths.size) {
      unloadable = unloadable.filter((u) => !okPaths.has(u.path));
      saveUnloadable(unloadable);
    }
    if (results.length === 0) toast("No .jsonl files found.", "error");
    else {
      const summary = importSummary(results, state.includeInternal);
      toast(summary.text, summary.tone);
    }
    return results;
  } catch (error) {
    toast(`Import failed: ${describeError(error)}`, "error");
    return [];
  } finally {
    state.busy = false;
    document.body.classList.remove("busy");
    progress.hide();
    await route();
  }
}

const importer = new Importer(client, async (run) => void await runImport(run));

async function loadDemo(): Promise<void> {
  const results = await runImport(() => client.call("importDemo"));
  const first = results.find((r) => r.status !== "failed" && r.status !== "skipped");
  if (first?.sessionId && location.hash.length <= 2) location.hash = sessionHash(first.sessionId);
}

const listActions: ListActions = {
  loadDemo: () => void loadDemo(),
  openFiles: () => importer.openFiles(),
  openFolder: () => void importer.openFolder(),
  setIncludeInternal(include) {
    state.includeInternal = include;
    void showList();
  },
  exportSession: (id) => void exportJsonl(id, null),
  keepCopy: (key) => void keepCopy(key),
  setSource(source) {
    state.source = source;
    void showList();
  },
  setSort(sort) {
    state.sort = sort;
    saveListSort(sort);
    redrawList();
  },
  async deleteSession(id) {
    if (!confirm(`Remove session ${id} from this browser? The original file is not touched.`)) {
      return;
    }
    try {
      await client.call("deleteSession", id);
      origins.delete(id);
      saveOrigins();
      await showList();
    } catch (error) {
      toast(`Delete failed: ${describeError(error)}`, "error");
    }
  },
  clearUnloadable() {
    unloadable = [];
    saveUnloadable(unloadable);
    void showList();
  },
};

async function exportJsonl(
  sessionId: string,
  leafId: string | null,
  html: boolean | "all" = false,
): Promise<void> {
  try {
    await saveExport(client, sessionId, leafId, html);
  } catch (error) {
    toast(`Export failed: ${describeError(error)}`, "error");
  }
}

function setCrumb(title?: string): void {
  const crumb = document.getElementById("crumb")!;
  replaceChildren(crumb, title ? el("span", {}, title) : null);
}

async function keepCopy(key: string): Promise<void> {
  await runImport(() => client.call("keepCopy", key));
}

/** Redraws the shown list (sort, filter, message-text matches); set by {@link showList}. */
let redrawList: () => void = () => {};

/** The filter's message-text half: the store's search, for the sessions of the listed source. */
const textFilter = new TextFilter(
  (query) =>
    client.call("search", query, {
      source: state.source,
      includeInternal: state.includeInternal,
      limit: 500,
    }),
  () => redrawList(),
);

async function showList(): Promise<void> {
  state.page = undefined;
  setCrumb();
  const source = state.source;
  document.body.dataset.source = source; // the browser store's badge shows on its own tab only
  live.watch(source === "computer" ? null : undefined);
  const list = await client.call("list", { includeInternal: state.includeInternal, source });
  state.list = list;
  const draw = () => {
    // Redraws (typing, live updates) keep the filter box focused and the caret at the end.
    const focused = document.activeElement === app.querySelector(".filter");
    replaceChildren(
      app,
      renderList(
        {
          list,
          includeInternal: state.includeInternal,
          // Import failures belong to this browser's list.
          unloadable: source === "browser" ? unloadable : [],
          filter: state.filter,
          source,
          computer: state.computer,
          lookedIn: state.lookedIn,
          search: search.element,
          sort: state.sort,
          textMatches: textFilter.matches(state.filter, `${source}|${state.includeInternal}`),
        },
        listActions,
        (text) => {
          state.filter = text;
          draw();
        },
      ),
    );
    if (focused) {
      const input = app.querySelector<HTMLInputElement>(".filter");
      input?.focus();
      input?.setSelectionRange(state.filter.length, state.filter.length);
    }
  };
  // A search answer arriving after the user left the list must not draw it back.
  redrawList = () => {
    if (state.list === list && !state.page && !parseHash().sessionId) draw();
  };
  textFilter.reset();
  draw();
  search.sync();
}

async function showSession(route: Route): Promise<void> {
  const sessionId = route.sessionId!;
  const { source, sessionId: id } = parseSessionKey(sessionId);
  state.source = source;
  document.body.dataset.source = source;
  // Subscribe before loading, so an append while it loads is not missed.
  live.watch(source === "computer" ? id : undefined);
  const current = state.page;
  if (current && current.overview.key === sessionId) {
    if (route.leafId !== undefined) current.setLeaf(route.leafId);
    current.setTab(route.tab);
    if (route.focus) void current.showHit(route.focus, route.marks);
    return;
  }
  replaceChildren(app, el("p", { class: "muted loading" }, "Opening session…"));
  try {
    const overview = await client.call("openSession", sessionId);
    mountSession(
      overview,
      route.leafId === undefined ? overview.defaultLeafId : route.leafId,
      route.tab,
    );
    if (route.focus) void state.page!.showHit(route.focus, route.marks);
  } catch (error) {
    state.page = undefined;
    replaceChildren(
      app,
      el(
        "section",
        { class: "card error" },
        el("h2", {}, "Cannot open this session"),
        el("p", {}, describeError(error)),
        el("p", {}, el("a", { class: "back" }, "Back to the list")),
      ),
    );
    (app.querySelector("a.back") as HTMLAnchorElement).href = "#/";
  }
}

function mountSession(overview: SessionOverview, leafId: string | null, tab: SessionTab): void {
  const key = overview.key;
  setCrumb(overview.title);
  state.page = new SessionPage(client, overview, leafId, tab, {
    navigate(leaf, tab) {
      history.replaceState(null, "", sessionUrl(key, leaf, tab));
    },
    exportJsonl: (leaf, html) => void exportJsonl(key, leaf, html),
    keepCopy: overview.source === "computer" ? () => void keepCopy(key) : undefined,
  }, origins.get(key));
  replaceChildren(app, state.page.element);
}

/** Changes of the shown session (`session_refresh.ts`). */
const refreshSession = sessionRefresher({
  client,
  page: () => state.page,
  mount: (overview, leafId) => mountSession(overview, leafId, parseHash().tab),
  tab: () => parseHash().tab,
  url: sessionUrl,
  onError: (error) => toast(`Update failed: ${describeError(error)}`, "error"),
});

async function route(): Promise<void> {
  const r = parseHash();
  if (r.sessionId) await showSession(r);
  else await showList();
}

document.getElementById("open-files")!.addEventListener("click", () => importer.openFiles());
document.getElementById("open-folder")!.addEventListener("click", () => void importer.openFolder());
addEventListener("hashchange", () => void route());

async function start(): Promise<void> {
  // `?url=<export>`: open a session exported next to the page where it is (its index makes
  // that cheap); the page's CSP lets it fetch from its own origin only.
  const hostedUrl = new URLSearchParams(location.search).get("url");
  if (hostedUrl && !parseHash().sessionId) {
    const key = hostedKey(new URL(hostedUrl, location.href).href);
    history.replaceState(null, "", sessionUrl(key, undefined, "context"));
  }
  try {
    const pinned = new URLSearchParams(location.search).get("storage") ?? undefined;
    const view = await client.call("init", { storage: pinned });
    showStorage(storageBadge, view);
    state.computer = view.computer === true;
    if (state.computer) {
      const info = await fetch("/api/info").then((r) => r.json()).catch(() => ({}));
      const places = (list: unknown) => Array.isArray(list) ? list as LookedIn[] : [];
      state.lookedIn = [
        ...places(info.sources),
        ...places(info.absent).map((place) => ({ ...place, missing: true })),
      ];
      // Served by mu serve: show this computer's sessions first, unless it has none.
      const { sessions, hiddenInternal } = await client.call("list", {
        includeInternal: false,
        source: "computer",
      });
      if (sessions.length + hiddenInternal > 0) state.source = "computer";
    }
  } catch (error) {
    toast(`Storage unavailable: ${describeError(error)}`, "error");
  }
  await route();
  document.body.dataset.ready = "true";
}

void start();
