/**
 * The page ↔ worker protocol: a typed request/response channel over `postMessage`,
 * plus one-way events (import progress). The page calls {@link ViewerApi} methods;
 * the worker answers them. Errors cross as {@link ErrorView}s and are rethrown as
 * {@link RemoteError}s that keep the typed error's name, line and reason.
 *
 * @module
 */
import type {
  ContextPageView,
  ErrorView,
  ImportConflictChoice,
  ImportConflictView,
  ImportProgressView,
  ImportResultView,
  ListView,
  RawPageView,
  SessionOverview,
  StorageView,
  TreeRowView,
  UsageView,
} from "./types.ts";

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
  /** The session list. */
  list(options: { includeInternal: boolean }): Promise<ListView>;
  /** Load and index a session; later calls page through it. */
  openSession(sessionId: string): Promise<SessionOverview>;
  /** Rows `[start, start+count)` of the flattened tree, marked for `leafId`. */
  treeRows(
    sessionId: string,
    leafId: string | null,
    start: number,
    count: number,
  ): Promise<TreeRowView[]>;
  /** Row index of an entry in the flattened tree (-1 if absent). */
  treeRowIndex(sessionId: string, entryId: string): Promise<number>;
  /** A page of `buildSessionProjection(entries, leafId)`. */
  context(
    sessionId: string,
    leafId: string | null,
    start: number,
    count: number,
  ): Promise<ContextPageView>;
  /** The whole text of one (truncated) block of the projected context. */
  contextBlock(
    sessionId: string,
    leafId: string | null,
    itemIndex: number,
    messageIndex: number,
    blockIndex: number,
  ): Promise<string>;
  /** A page of the raw entries on the path to `leafId`. */
  raw(sessionId: string, leafId: string | null, start: number, count: number): Promise<RawPageView>;
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

/** A call from the page. */
export interface RpcRequest {
  kind: "request";
  id: number;
  method: ViewerMethod;
  args: unknown[];
}

/** The worker's answer. */
export type RpcResponse =
  | { kind: "response"; id: number; ok: true; value: unknown }
  | { kind: "response"; id: number; ok: false; error: ErrorView };

/** A one-way event from the worker. */
export type RpcEvent =
  | { kind: "event"; type: "import-progress"; data: ImportProgressView }
  | { kind: "event"; type: "import-conflict"; data: ImportConflictView };

/** An error raised in the worker, rethrown in the page. */
export class RemoteError extends Error {
  /** The typed error as it crossed the boundary. */
  readonly view: ErrorView;
  constructor(view: ErrorView) {
    super(view.message);
    this.name = view.name;
    this.view = view;
  }
}

/** Describe any thrown value as an {@link ErrorView}. */
export function toErrorView(error: unknown): ErrorView {
  if (error instanceof Error) {
    const view: ErrorView = { name: error.name, message: error.message };
    const typed = error as Error & { line?: unknown; reason?: unknown };
    if (typeof typed.line === "number" && typed.line > 0) view.line = typed.line;
    if (typeof typed.reason === "string") view.reason = typed.reason;
    return view;
  }
  return { name: "Error", message: String(error) };
}

/** The page's side of the channel. */
export interface ViewerClient {
  /** Call a worker method. */
  call<M extends ViewerMethod>(
    method: M,
    ...args: Parameters<ViewerApi[M]>
  ): ReturnType<ViewerApi[M]>;
  /** Subscribe to worker events; returns an unsubscribe function. */
  onEvent(listener: (event: RpcEvent) => void): () => void;
}

/** Wrap a worker (or any `postMessage` endpoint) as a {@link ViewerClient}. */
export function createViewerClient(worker: Worker): ViewerClient {
  let nextId = 1;
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: unknown): void }>();
  const listeners = new Set<(event: RpcEvent) => void>();
  worker.addEventListener("message", (message: MessageEvent) => {
    const data = message.data as RpcResponse | RpcEvent;
    if (data.kind === "event") {
      for (const listener of listeners) listener(data);
      return;
    }
    const waiter = pending.get(data.id);
    if (!waiter) return;
    pending.delete(data.id);
    if (data.ok) waiter.resolve(data.value);
    else waiter.reject(new RemoteError(data.error));
  });
  worker.addEventListener("error", (event: ErrorEvent) => {
    const error = new RemoteError({
      name: "WorkerError",
      message: event.message || "worker failed",
    });
    for (const waiter of pending.values()) waiter.reject(error);
    pending.clear();
  });
  return {
    call(method, ...args) {
      const id = nextId++;
      const request: RpcRequest = { kind: "request", id, method, args };
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        worker.postMessage(request);
      }) as never;
    },
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** The worker's side: answer requests with `api`, and return an event sender. */
export function serveViewerApi(
  scope: {
    addEventListener(type: "message", listener: (event: MessageEvent) => void): void;
    postMessage(message: unknown): void;
  },
  api: ViewerApi,
): (event: RpcEvent) => void {
  scope.addEventListener("message", async (message: MessageEvent) => {
    const request = message.data as RpcRequest;
    if (!request || request.kind !== "request") return;
    let response: RpcResponse;
    try {
      const fn = api[request.method] as (...args: unknown[]) => Promise<unknown>;
      if (typeof fn !== "function") throw new Error(`unknown method ${String(request.method)}`);
      const value = await fn.apply(api, request.args);
      response = { kind: "response", id: request.id, ok: true, value };
    } catch (error) {
      response = { kind: "response", id: request.id, ok: false, error: toErrorView(error) };
    }
    scope.postMessage(response);
  });
  return (event) => scope.postMessage(event);
}
