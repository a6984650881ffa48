/**
 * The viewer's worker: owns the session store, parses and imports files (streaming),
 * and answers the page with small views (list rows, tree rows, context pages, usage).
 * All parsing and JSON handling of session data happens here, never on the page's thread.
 *
 * @module
 */
import { exportSessionJsonl, type SessionStore } from "../src/store.ts";
import type { MessageEndpoint } from "../src/rpc.ts";
import { serveViewerApi, toErrorView, type ViewerApi } from "./rpc.ts";
import type {
  ImportConflictChoice,
  ImportProgressView,
  ImportResultView,
  ListView,
  SearchProgressView,
  SessionRowView,
  StorageView,
  UnloadableView,
} from "./types.ts";
import { rowView, ViewerSources } from "./worker/sources.ts";
import type { AskConflict } from "./worker/import_merge.ts";
import {
  demoSources,
  directorySources,
  fileSources,
  type ImportSource,
  importSources,
} from "./worker/importer.ts";
import { exportDoc, exportFileName, exportHtml } from "./export/html.ts";
import { hostedExportUrl, parseSessionKey } from "./session_key.ts";
import { outlineRows } from "./conversation/outline_model.ts";
import type { OpenedSession } from "./worker/opened_session.ts";
import { SessionHandle } from "./worker/session_handle.ts";
import { mergeSearchViews, searchViews } from "./worker/search.ts";
import { openViewerStorage, storageCandidates } from "./worker/storage.ts";

let storage: Promise<{ store: SessionStore; view: StorageView }> | undefined;
/** The opened session (one at a time: a session can be hundreds of MB). */
const opened = new Map<string, Promise<SessionHandle>>();
const OPEN_CACHE = 1;
/** Rows around the tree's first row that `treeStart` answers (a screen and its overscan). */
const TREE_START_ROWS = 200;

function store(): Promise<SessionStore> {
  storage ??= openViewerStorage();
  return storage.then((s) => s.store);
}

const sources = new ViewerSources(store, self.location.origin, (key, entries, total) => {
  send({ kind: "event", type: "load-progress", data: { key, entries, total } });
});

/** The search box's search still running: a newer one aborts it (its progress stays). */
let runningSearch: AbortController | undefined;

/**
 * A search box search (`progressId`): aborts the one before it and posts its partial
 * results as `search-progress` events.
 */
function searchProgress(id: number | undefined) {
  if (id === undefined) return { abort: undefined };
  runningSearch?.abort(new DOMException("A newer search replaced this one", "AbortError"));
  const abort = new AbortController();
  runningSearch = abort;
  return {
    abort,
    signal: abort.signal,
    onProgress: (data: Omit<SearchProgressView, "id">) =>
      send({ kind: "event", type: "search-progress", data: { id, ...data } }),
  };
}

/**
 * The opened session of a key (`session_key.ts`): a browser id or `computer/<id>`. Opening
 * reads only the default leaf's context where the store can (see `session_handle.ts`).
 */
async function handle(sessionId: string): Promise<SessionHandle> {
  let entry = opened.get(sessionId);
  if (!entry) {
    entry = sources.resolve(sessionId).then((s) =>
      SessionHandle.open(s.store, s.sessionId, s.source === "computer" ? sources : undefined)
    );
    opened.set(sessionId, entry);
    entry.catch(() => opened.delete(sessionId));
    while (opened.size > OPEN_CACHE) opened.delete(opened.keys().next().value!);
  } else {
    opened.delete(sessionId); // refresh recency
    opened.set(sessionId, entry);
  }
  return await entry;
}

/** The fully loaded session of a key (the tree, every branch, every entry). */
async function session(sessionId: string): Promise<OpenedSession> {
  return await (await handle(sessionId)).full();
}

async function storeAndId(key: string): Promise<[SessionStore, string]> {
  const { store, sessionId } = await sources.resolve(key);
  return [store, sessionId];
}

function forget(sessionIds: Iterable<string | undefined>): void {
  for (const id of sessionIds) if (id !== undefined) opened.delete(id);
}

/** Conflict questions waiting for the page's answer. */
const questions = new Map<number, (choice: ImportConflictChoice) => void>();
let nextQuestion = 1;
const CHOICES: readonly ImportConflictChoice[] = ["keep-both", "replace", "skip"];

/** Ask the page (an `import-conflict` event) and wait for `answerImportConflict`. */
const ask: AskConflict = (conflict) => {
  const questionId = nextQuestion++;
  return new Promise((resolve) => {
    questions.set(questionId, resolve);
    send({ kind: "event", type: "import-conflict", data: { ...conflict, questionId } });
  });
};

/**
 * Import into this browser's store, asking the page about conflicts; the opened copies of
 * the sessions written are dropped, so the next open reads what was stored.
 */
async function importAndForget(files: ImportSource[]): Promise<ImportResultView[]> {
  const results = await importSources(await store(), files, progress, ask);
  forget(results.map((r) => r.sessionId));
  return results;
}

const api: ViewerApi = {
  async init(options) {
    const pinned = options?.storage;
    storage ??= openViewerStorage(
      pinned ? storageCandidates().filter((c) => c.kind.startsWith(pinned)) : undefined,
    );
    const view = (await storage).view;
    return (await sources.computer()) ? { ...view, computer: true } : view;
  },

  async importFiles(files) {
    return await importAndForget(fileSources(files));
  },

  async importDirectory(handle) {
    return await importAndForget(await directorySources(handle));
  },

  async importDemo() {
    return await importAndForget(await demoSources(self.location.href));
  },

  async keepCopy(key) {
    return await importAndForget([await sources.copySource(key)]);
  },

  answerImportConflict(questionId, choice) {
    const resolve = questions.get(questionId);
    questions.delete(questionId);
    if (!resolve) return Promise.reject(new RangeError(`no import question ${questionId}`));
    // Anything unexpected keeps both: the answer that loses nothing.
    resolve(CHOICES.includes(choice) ? choice : "keep-both");
    return Promise.resolve();
  },

  async list({ includeInternal, source = "browser" }) {
    const s = await sources.store(source);
    const skipped: UnloadableView[] = [];
    const all = await s.list({
      includeInternal: true,
      onSkipped: ({ path, error }) =>
        skipped.push({ path, error: toErrorView(error), at: Date.now() }),
    });
    const sessions: SessionRowView[] = [];
    let hiddenInternal = 0;
    for (const info of all) {
      if (info.internal && !includeInternal) hiddenInternal++;
      else sessions.push(rowView(info, source));
    }
    return { sessions, hiddenInternal, skipped } satisfies ListView;
  },

  async search(query, options) {
    const limit = options.limit ?? 100;
    if (options.sessionKey !== undefined) {
      const { store, sessionId, source } = await sources.resolve(options.sessionKey);
      return await searchViews(store, query, { ...options, source, sessionId, limit });
    }
    const which = options.source
      ? [options.source]
      : (await sources.computer())
      ? ["computer", "browser"] as const
      : ["browser"] as const;
    const progress = searchProgress(options.progressId);
    try {
      const views = await Promise.all(
        which.map(async (source) =>
          searchViews(await sources.store(source), query, {
            ...options,
            source,
            limit,
            ...progress,
          })
        ),
      );
      return views.length === 1 ? views[0] : mergeSearchViews(query, views, limit);
    } finally {
      if (runningSearch === progress.abort) runningSearch = undefined;
    }
  },

  async openSession(key) {
    const { source } = await sources.resolve(key);
    return { ...(await handle(key)).overview(), key, source, ...hosted(key) };
  },

  async sessionComplete(key) {
    const { source } = await sources.resolve(key);
    return { ...(await session(key)).overview(), key, source, ...hosted(key) };
  },

  async reopenSession(key) {
    forget([key]);
    return await api.openSession(key);
  },

  async treeStart(sessionId, leafId, focusId) {
    // Only a tree there before the full load (which the page waits for otherwise), with the
    // pages around the row it opens at, so they need no second call (which would wait behind
    // the full load the other panes start meanwhile).
    const page = { leafId, focusId, count: TREE_START_ROWS };
    return await (await handle(sessionId)).treeStart(page);
  },

  async treeRows(sessionId, leafId, start, count) {
    return await (await handle(sessionId)).treeRows(leafId, start, count);
  },

  async locateEntry(sessionId, leafId, entryId) {
    return (await session(sessionId)).locate(leafId, entryId);
  },

  async treeRowIndex(sessionId, entryId) {
    return await (await handle(sessionId)).treeRowIndex(entryId);
  },

  async context(sessionId, leafId, start, count, as) {
    return await (await handle(sessionId)).context(leafId, start, count, as);
  },

  async contextBlock(sessionId, leafId, item, message, block, as) {
    return await (await handle(sessionId)).contextBlock(leafId, item, message, block, as);
  },

  async raw(sessionId, leafId, start, count) {
    return (await session(sessionId)).raw(leafId, start, count);
  },

  async conversation(sessionId, leafId, start, count) {
    return await (await handle(sessionId)).conversation(leafId, start, count);
  },

  async exportHtml(sessionId, leafId, asset, allBranches) {
    const opened = await session(sessionId);
    const doc = exportDoc(
      opened.overview(),
      leafId,
      opened.conversation(leafId),
      opened.summary(leafId),
    );
    if (allBranches) doc.branches = opened.allBranches();
    return {
      blob: new Blob([exportHtml(asset, doc)], { type: "text/html" }),
      fileName: exportFileName(doc.sessionId, doc.leafId),
    };
  },

  async conversationTotal(sessionId, leafId) {
    return (await session(sessionId)).conversation(leafId).length;
  },

  async conversationOutline(sessionId, leafId) {
    return outlineRows((await session(sessionId)).conversation(leafId));
  },

  async branchSummary(sessionId, leafId) {
    return (await session(sessionId)).summary(leafId);
  },

  async rawEntry(sessionId, entryId) {
    return (await session(sessionId)).rawEntry(entryId);
  },

  async usage(sessionId, leafId) {
    return (await session(sessionId)).usage(leafId);
  },

  async exportJsonl(sessionId, leafId) {
    const safeId = parseSessionKey(sessionId).sessionId.replace(/[^A-Za-z0-9._-]/g, "_").slice(
      0,
      80,
    );
    if (leafId === null) {
      // A whole session needs no index: the store exports it (byte-identical).
      const cached = await opened.get(sessionId)?.catch(() => undefined);
      const blob = cached?.loaded
        ? cached.loaded.exportAll()
        : new Blob([await exportSessionJsonl(...await storeAndId(sessionId))], {
          type: "application/jsonl",
        });
      return { blob, fileName: `${safeId}.jsonl` };
    }
    // The session's header and the path to the leaf (as `mu export --leaf` writes it).
    const branch = (await session(sessionId)).exportBranch(leafId);
    const safeLeaf = leafId.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 40);
    return { blob: branch, fileName: `${safeId}-branch-${safeLeaf}.jsonl` };
  },

  async deleteSession(sessionId) {
    forget([sessionId]);
    const [s, id] = await storeAndId(sessionId);
    await s.delete(id); // a computer session: the HTTP store refuses (read-only)
  },
};

/** The overview field naming a hosted export's URL. */
function hosted(key: string): { hostedUrl?: string } {
  const url = hostedExportUrl(key);
  return url === undefined ? {} : { hostedUrl: url };
}

const send = serveViewerApi(self as unknown as MessageEndpoint, api);

function progress(data: ImportProgressView): void {
  send({ kind: "event", type: "import-progress", data });
}
