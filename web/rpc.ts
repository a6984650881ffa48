/**
 * The page ↔ worker protocol of the viewer: the {@link ViewerApi} the worker answers and
 * the page calls, plus one-way events (import progress). The transport is the library's one
 * worker message layer (`src/rpc.ts`, shared with the store channel), so an error thrown in
 * the worker is rethrown on the page as the same class with its fields
 * (`instanceof SessionFormatError`, `line`, `reason`), whatever the bundler did to names.
 *
 * @module
 */
import { InvalidArgumentError, SessionStorageError } from "../src/errors.ts";
import { errorToWire, type MessageEndpoint, RpcClient, serveRpc } from "../src/rpc.ts";
import type {
  ContextAs,
  ContextPageView,
  EntryPlace,
  ErrorView,
  ImportConflictChoice,
  ImportConflictView,
  ImportProgressView,
  ImportResultView,
  ListView,
  LoadProgressView,
  RawPageView,
  SearchProgressView,
  SearchView,
  SessionOverview,
  StorageView,
  TreeRowView,
  TreeStartView,
  UsageView,
} from "./types.ts";
import type { SessionSource } from "./session_key.ts";
import type { ViewerSearchOptions } from "./worker/search.ts";
import type { ConvItem } from "./conversation/model.ts";
import type { ExportAsset } from "./export/html.ts";
import type { BranchSummaryView } from "./worker/branch_summary.ts";
import type { OutlineRow } from "./conversation/outline_model.ts";

/** A file handed to the worker for import, with its path inside a picked folder. */
export interface ImportFile {
  file: File;
  /** Relative path (`--home-me-proj--/2026_x.jsonl`) or just the file name. */
  path: string;
}

/** Everything the worker can do for the page. */
export interface ViewerApi {
  /**
   * Open the storage: OPFS SQLite, else IndexedDB, else memory. `storage` pins one kind
   * (`sqlite`, `indexeddb`, `memory`), e.g. from the page's `?storage=` parameter.
   */
  init(options?: { storage?: string }): Promise<StorageView>;
  /** Parse and store files, streaming, reporting progress events. */
  importFiles(files: ImportFile[]): Promise<ImportResultView[]>;
  /** Walk a picked folder (pi's `--cwd--` layout included) and import every `.jsonl`. */
  importDirectory(handle: FileSystemDirectoryHandle): Promise<ImportResultView[]>;
  /** Import the demo sessions bundled into the worker. */
  importDemo(): Promise<ImportResultView[]>;
  /** Answer an `import-conflict` event of a running import. */
  answerImportConflict(questionId: number, choice: ImportConflictChoice): Promise<void>;
  /** Copy a computer session (key `computer/<id>`) into this browser's store (never overwriting). */
  keepCopy(key: string): Promise<ImportResultView[]>;
  /** The session list of a source (default: this browser's store). */
  list(options: { includeInternal: boolean; source?: SessionSource }): Promise<ListView>;
  /**
   * Full-text search, hits grouped by session: over one source, or without `source` over
   * every source there is (this browser's store and, under `mu serve`, this computer's).
   */
  search(query: string, options: ViewerSearchOptions): Promise<SearchView>;
  /**
   * Open a session (a context-only first look where the store allows, see `pending`, else
   * the full load and index); later calls page through it. Every `sessionId` of these
   * methods is a key (`session_key.ts`): a browser session's id, or `computer/<id>`.
   */
  openSession(sessionId: string): Promise<SessionOverview>;
  /**
   * The full overview (counts, tree size) once the whole session is loaded: what the page
   * asks after an `openSession` answered `pending` (a context-only first look).
   */
  sessionComplete(sessionId: string): Promise<SessionOverview>;
  /** Drop the opened copy and load the session again (it changed on the server). */
  reopenSession(sessionId: string): Promise<SessionOverview>;
  /**
   * Before the session's full load, where the store gives the tree's ids and parents
   * without it (`worker/tree_shape.ts`): the tree's size and its rows around `focusId` (else
   * the leaf), marked for `leafId`; else `null` (the tree waits for `sessionComplete`).
   */
  treeStart(
    sessionId: string,
    leafId: string | null,
    focusId?: string,
  ): Promise<TreeStartView | null>;
  /** Rows `[start, start+count)` of the flattened tree, marked for `leafId`. */
  treeRows(
    sessionId: string,
    leafId: string | null,
    start: number,
    count: number,
  ): Promise<TreeRowView[]>;
  /** Row index of an entry in the flattened tree (-1 if absent). */
  treeRowIndex(sessionId: string, entryId: string): Promise<number>;
  /**
   * Where to show an entry (a search hit) without cutting the branch: the leaf to show
   * (`leafId` itself when the entry is on its branch, else the newest leaf under the entry)
   * and the index of the entry's conversation item on that branch.
   */
  locateEntry(sessionId: string, leafId: string | null, entryId: string): Promise<EntryPlace>;
  /** A page of `buildSessionProjection(entries, leafId)` (or its older-agent reading). */
  context(
    sessionId: string,
    leafId: string | null,
    start: number,
    count: number,
    as?: ContextAs,
  ): Promise<ContextPageView>;
  /** The whole text of one (truncated) block of the projected context. */
  contextBlock(
    sessionId: string,
    leafId: string | null,
    itemIndex: number,
    messageIndex: number,
    blockIndex: number,
    as?: ContextAs,
  ): Promise<string>;
  /** A page of the raw entries on the path to `leafId`. */
  raw(sessionId: string, leafId: string | null, start: number, count: number): Promise<RawPageView>;
  /**
   * Items `[start, start+count)` of the branch's conversation (`conversation/model.ts`).
   * `partial`: answered before the session was loaded, so `total` only says more follow.
   */
  conversation(
    sessionId: string,
    leafId: string | null,
    start: number,
    count: number,
  ): Promise<{ total: number; items: ConvItem[]; partial?: boolean }>;
  /**
   * The branch's conversation as the single-file HTML export, built here with `asset`
   * (the renderer the page fetched): a long branch's items are never copied to the page,
   * nor serialised on its thread.
   */
  exportHtml(
    sessionId: string,
    leafId: string | null,
    asset: ExportAsset,
    allBranches?: boolean,
  ): Promise<{ blob: Blob; fileName: string }>;
  /** How many items the branch's conversation has (waits for the session's load). */
  conversationTotal(sessionId: string, leafId: string | null): Promise<number>;
  /** One short row per conversation item of the branch to `leafId` (the outline rail). */
  conversationOutline(sessionId: string, leafId: string | null): Promise<OutlineRow[]>;
  /** Date, models, messages by role, tool calls, tokens and cost of the branch to `leafId`. */
  branchSummary(sessionId: string, leafId: string | null): Promise<BranchSummaryView>;
  /** The whole JSON line of one entry. */
  rawEntry(sessionId: string, entryId: string): Promise<string>;
  /** Usage totals (session and branch) and the per-turn bars of the branch. */
  usage(sessionId: string, leafId: string | null): Promise<UsageView>;
  /** The session (leafId null) or the branch to `leafId` as format-4 JSONL. */
  exportJsonl(sessionId: string, leafId: string | null): Promise<{ blob: Blob; fileName: string }>;
  /** Remove a session from storage. */
  deleteSession(sessionId: string): Promise<void>;
}

/** Name of a {@link ViewerApi} method. */
export type ViewerMethod = keyof ViewerApi;

/** A one-way event from the worker. */
export type RpcEvent =
  | { kind: "event"; type: "import-progress"; data: ImportProgressView }
  | { kind: "event"; type: "import-conflict"; data: ImportConflictView }
  | { kind: "event"; type: "load-progress"; data: LoadProgressView }
  | { kind: "event"; type: "search-progress"; data: SearchProgressView };

/**
 * Describe any thrown value as an {@link ErrorView} (what the lists of unloadable files
 * keep): the same fields the message layer carries.
 */
export function toErrorView(error: unknown): ErrorView {
  const { name, message, line, reason } = errorToWire(error);
  const view: ErrorView = { name, message };
  if (line !== undefined && line > 0) view.line = line;
  if (reason !== undefined) view.reason = reason;
  return view;
}

/** The page's side of the channel. */
export interface ViewerClient {
  /** Call a worker method; a worker error rejects as its own class. */
  call<M extends ViewerMethod>(
    method: M,
    ...args: Parameters<ViewerApi[M]>
  ): ReturnType<ViewerApi[M]>;
  /** Subscribe to worker events; returns an unsubscribe function. */
  onEvent(listener: (event: RpcEvent) => void): () => void;
}

/** Wrap a worker as a {@link ViewerClient}. */
export function createViewerClient(worker: Worker): ViewerClient {
  const rpc = new RpcClient(worker);
  worker.addEventListener("error", (event: ErrorEvent) => {
    rpc.failAll(new SessionStorageError(`The viewer worker failed: ${event.message || "unknown"}`));
  });
  return {
    call: (method, ...args) => rpc.call(method, args) as never,
    onEvent: (listener) => rpc.onEvent((event) => listener(event as RpcEvent)),
  };
}

/** The worker's side: answer requests with `api`, and return an event sender. */
export function serveViewerApi(scope: MessageEndpoint, api: ViewerApi): (event: RpcEvent) => void {
  const { emit } = serveRpc(scope, (method, args) => {
    const fn = api[method as ViewerMethod] as (...args: unknown[]) => Promise<unknown>;
    if (typeof fn !== "function") throw new InvalidArgumentError(`Unknown method ${method}`);
    return fn.apply(api, args);
  });
  return emit;
}
