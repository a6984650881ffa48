/**
 * Serve any {@link SessionStore} from a worker and use it from the page as a
 * `SessionStore` again. The browser keeps OPFS SQLite in a dedicated worker (sync access
 * handles exist only there), so the page talks to it through this small typed channel.
 *
 * Wire rules, and why:
 * - Entries and headers travel as JSON text lines (`toJsonLine`), not as cloned objects:
 *   the raw text an entry was imported from lives in a WeakMap that structured cloning
 *   cannot carry, and byte-identical export depends on it.
 * - Errors travel as plain data (`name`, `message`, typed fields) and are re-created as the
 *   library's error classes by `name`, so `instanceof SessionNotFoundError` holds on the page.
 * - Serialisation happens on the caller's side before anything is posted: an entry JSON
 *   cannot encode rejects with `SessionStorageError` and nothing reaches the store.
 *
 * Connection: the page posts `{ type: "mu-sessions/connect", options, port }` to the worker;
 * {@link acceptStoreConnections} opens a store for `options` and serves it on `port`. One
 * worker can serve many connections (one per store instance). This module is the worker
 * side and the wire format; the page side is `worker_client.ts`, kept apart so a
 * page bundle does not carry the server.
 *
 * @module
 */
import {
  EntryNotFoundError,
  InvalidArgumentError,
  SessionError,
  SessionExistsError,
  SessionFormatError,
  SessionNotFoundError,
  SessionStorageError,
} from "../../src/errors.ts";
import { rememberRawJson, toJsonLine } from "../../src/jsonl.ts";
import type { SessionEntry, SessionHeader } from "../../src/schema.ts";
import type { ListOptions, ReplaceOptions, SessionStore } from "../../src/store.ts";

/**
 * What both ends post to: a `Worker`, a `MessagePort`, or a worker's global scope.
 *
 * @example
 * ```ts
 * import type { MessageEndpoint } from "@mu/sessions/stores/worker/serve";
 * const scope = globalThis as unknown as MessageEndpoint; // inside a worker
 * ```
 */
export interface MessageEndpoint {
  postMessage(message: unknown, transfer: Transferable[]): void;
  addEventListener(type: "message", listener: (event: MessageEvent) => void): void;
  removeEventListener(type: "message", listener: (event: MessageEvent) => void): void;
}

/**
 * An error as plain, structured-clone-safe data (see {@link errorToWire}).
 *
 * @example
 * ```ts
 * import type { WireError } from "@mu/sessions/stores/worker/serve";
 * const wire: WireError = { name: "SessionNotFoundError", message: "Session not found: s1", sessionId: "s1" };
 * ```
 */
export interface WireError {
  name: string;
  message: string;
  stack?: string;
  sessionId?: string;
  entryId?: string;
  line?: number;
  byteOffset?: number;
  reason?: string;
  source?: string;
}

/**
 * Message type that opens a served store (see {@link acceptStoreConnections}).
 *
 * @example
 * ```ts
 * import { CONNECT_MESSAGE } from "@mu/sessions/stores/worker/serve";
 * declare const worker: Worker, options: unknown;
 * const { port1, port2 } = new MessageChannel(); // what WorkerSessionStore.connect does
 * worker.postMessage({ type: CONNECT_MESSAGE, options, port: port2 }, [port2]);
 * ```
 */
export const CONNECT_MESSAGE = "mu-sessions/connect";
/**
 * Message type that removes storage (see {@link acceptStoreConnections}).
 *
 * @example
 * ```ts
 * import { REMOVE_MESSAGE } from "@mu/sessions/stores/worker/serve";
 * declare const worker: Worker;
 * const { port2 } = new MessageChannel(); // what removeWorkerStorage does
 * worker.postMessage({ type: REMOVE_MESSAGE, options: { filename: "/x.sqlite3" }, port: port2 }, [port2]);
 * ```
 */
export const REMOVE_MESSAGE = "mu-sessions/remove";

/**
 * Flatten an error for `postMessage` (custom error names do not survive structured cloning).
 *
 * @example
 * ```ts
 * import { errorFromWire, errorToWire } from "@mu/sessions/stores/worker/serve";
 * import { SessionNotFoundError } from "@mu/sessions";
 * errorFromWire(errorToWire(new SessionNotFoundError("s1"))) instanceof SessionNotFoundError; // true
 * ```
 */
export function errorToWire(error: unknown): WireError {
  if (!(error instanceof Error) && !(error instanceof DOMException)) {
    return { name: "Error", message: String(error) };
  }
  const wire: WireError = { name: error.name, message: error.message, stack: error.stack };
  const typed = error as unknown as Record<string, unknown>;
  for (const key of ["sessionId", "entryId", "reason", "source"] as const) {
    if (typeof typed[key] === "string") wire[key] = typed[key] as string;
  }
  for (const key of ["line", "byteOffset"] as const) {
    if (typeof typed[key] === "number") wire[key] = typed[key] as number;
  }
  return wire;
}

/**
 * Re-create the library's typed error (by `name`) from {@link errorToWire} data.
 *
 * @example
 * ```ts
 * import { errorFromWire } from "@mu/sessions/stores/worker/serve";
 * const error = errorFromWire({ name: "SessionExistsError", message: "taken", sessionId: "s1" });
 * error.name; // "SessionExistsError", and instanceof SessionExistsError
 * ```
 */
export function errorFromWire(wire: WireError): Error {
  let error: Error;
  switch (wire.name) {
    case "SessionNotFoundError":
      error = new SessionNotFoundError(wire.sessionId ?? "", wire.message);
      break;
    case "SessionExistsError":
      error = new SessionExistsError(wire.sessionId ?? "", wire.message);
      break;
    case "SessionFormatError":
      error = new SessionFormatError(wire.reason ?? wire.message, {
        line: wire.line,
        byteOffset: wire.byteOffset,
        source: wire.source,
      });
      break;
    case "EntryNotFoundError":
      error = new EntryNotFoundError(wire.entryId ?? "");
      break;
    case "SessionStorageError":
      error = new SessionStorageError(wire.message);
      break;
    case "InvalidArgumentError":
      error = new InvalidArgumentError(wire.message);
      break;
    case "SessionError":
      error = new SessionError(wire.message);
      break;
    case "AbortError":
      return new DOMException(wire.message, "AbortError");
    default:
      error = new Error(wire.message);
      error.name = wire.name;
  }
  // Keep the worker-side frames: that is where the failure happened.
  if (wire.stack) error.stack = `${error.name}: ${error.message}\n    (in worker)\n${wire.stack}`;
  return error;
}

function parseLine<T extends object>(line: string): T {
  const value = JSON.parse(line) as T;
  rememberRawJson(value, line);
  return value;
}

/**
 * A call on a served store: wire arguments (JSON lines for headers and entries).
 *
 * @example
 * ```ts
 * import type { WireRequest } from "@mu/sessions/stores/worker/serve";
 * const request: WireRequest = { id: 1, method: "append", args: ["s1", ['{"type":"custom"}']] };
 * ```
 */
export type WireRequest = { id: number; method: string; args: unknown[]; events?: boolean };
/**
 * The answer to a {@link WireRequest}, or a listing event sent before it.
 *
 * @example
 * ```ts
 * import type { WireReply } from "@mu/sessions/stores/worker/serve";
 * const reply: WireReply = { id: 1, event: "progress", loaded: 3, total: 10 };
 * ```
 */
export type WireReply =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: WireError }
  | { id: number; event: "progress"; loaded: number; total: number }
  | { id: number; event: "skipped"; path: string; error: WireError };

/** The methods a served store answers, given wire arguments. */
function dispatch(
  store: SessionStore,
  request: WireRequest,
  signal: AbortSignal,
  post: (reply: WireReply) => void,
): Promise<unknown> {
  const [a, b, c] = request.args as [unknown, unknown, unknown];
  const lines = (value: unknown) => (value as string[]).map((l) => parseLine<SessionEntry>(l));
  switch (request.method) {
    case "create":
      return store.create(parseLine<SessionHeader>(a as string), lines(b));
    case "append":
      return store.append(a as string, lines(b));
    case "replace":
      return store.replace(parseLine<SessionHeader>(a as string), lines(b), c as ReplaceOptions);
    case "updateHeader":
      return store.updateHeader(parseLine<SessionHeader>(a as string));
    case "load":
      return store.load(a as string).then((loaded) => ({
        ...loaded,
        header: toJsonLine(loaded.header),
        entries: loaded.entries.map((entry) => toJsonLine(entry)),
      }));
    case "list": {
      const options = { ...(a as ListOptions), signal };
      if (request.events) {
        options.onProgress = (loaded, total) =>
          post({ id: request.id, event: "progress", loaded, total });
        options.onSkipped = ({ path, error }) =>
          post({ id: request.id, event: "skipped", path, error: errorToWire(error) });
      }
      return store.list(options);
    }
    case "delete":
      return store.delete(a as string);
    case "has":
      return store.has(a as string);
    case "exportJsonl":
      if (!store.exportJsonl) throw new SessionStorageError("exportJsonl is not supported");
      return store.exportJsonl(a as string);
    case "loadBranch": {
      if (!store.loadBranch) throw new SessionStorageError("loadBranch is not supported");
      return store.loadBranch(a as string, b as string | null | undefined).then((r) => ({
        header: toJsonLine(r.header),
        entries: r.entries.map((entry) => toJsonLine(entry)),
      }));
    }
    default:
      throw new SessionStorageError(`Unknown store method ${request.method}`);
  }
}

/**
 * What a client needs to mirror a served store: its kind and optional methods.
 *
 * @example
 * ```ts
 * import type { StoreDescription } from "@mu/sessions/stores/worker/serve";
 * const sqlite: StoreDescription = { kind: "sqlite", capabilities: ["exportJsonl", "loadBranch"] };
 * ```
 */
export interface StoreDescription {
  kind: string;
  /** Optional methods the store has: `"exportJsonl"`, `"loadBranch"`. */
  capabilities: string[];
}

function describeStore(store: SessionStore): StoreDescription {
  const capabilities = ["exportJsonl", "loadBranch"].filter((name) =>
    typeof (store as unknown as Record<string, unknown>)[name] === "function"
  );
  return { kind: store.kind, capabilities };
}

/**
 * Serve one store on a `MessagePort` until the client closes it (which closes the store).
 * Usually called for you by {@link acceptStoreConnections}.
 *
 * @example
 * ```ts
 * import { serveSessionStore } from "@mu/sessions/stores/worker/serve";
 * import { WorkerSessionStore } from "@mu/sessions/stores/worker";
 * import { MemorySessionStore } from "@mu/sessions";
 * const { port1, port2 } = new MessageChannel();
 * serveSessionStore(port2, new MemorySessionStore());
 * const store = await WorkerSessionStore.overPort(port1);
 * ```
 */
export function serveSessionStore(port: MessagePort, store: SessionStore): void {
  const running = new Map<number, AbortController>();
  const post = (reply: WireReply) => port.postMessage(reply);
  port.onmessage = async (event: MessageEvent) => {
    const data = event.data as WireRequest | { abort: number };
    if ("abort" in data) {
      running.get(data.abort)?.abort(new DOMException("Listing aborted", "AbortError"));
      return;
    }
    const controller = new AbortController();
    running.set(data.id, controller);
    try {
      const value = data.method === "close"
        ? await store.close()
        : data.method === "describe"
        ? describeStore(store)
        : await dispatch(store, data, controller.signal, post);
      post({ id: data.id, ok: true, value });
    } catch (error) {
      post({ id: data.id, ok: false, error: errorToWire(error) });
    } finally {
      running.delete(data.id);
    }
    if (data.method === "close") port.close();
  };
}

/**
 * What a worker does for each connection (see {@link acceptStoreConnections}).
 *
 * @example
 * ```ts
 * import type { StoreConnectionHandlers } from "@mu/sessions/stores/worker/serve";
 * import { MemorySessionStore } from "@mu/sessions";
 * const handlers: StoreConnectionHandlers<unknown> = { open: async () => new MemorySessionStore() };
 * ```
 */
export interface StoreConnectionHandlers<Options> {
  /** Open a store for one client; the channel closes it when the client does. */
  open(options: Options): Promise<SessionStore>;
  /** Optional: delete the storage `options` names (tests, "forget this data" buttons). */
  remove?(options: Options): Promise<void>;
}

/**
 * Worker side: answer `connect` (and `remove`) requests posted by
 * `WorkerSessionStore.connect` / `removeWorkerStorage` (`worker_client.ts`). Returns
 * a function that stops listening.
 *
 * @example
 * ```ts
 * // my_worker.ts (bundled as a module worker)
 * import { acceptStoreConnections } from "@mu/sessions/stores/worker/serve";
 * import { openSqliteWasmStore } from "@mu/sessions/stores/sqlite/wasm";
 * acceptStoreConnections(self, { open: openSqliteWasmStore });
 * ```
 */
export function acceptStoreConnections<Options>(
  scope: MessageEndpoint,
  handlers: StoreConnectionHandlers<Options>,
): () => void {
  const listener = async (event: MessageEvent) => {
    const data = event.data as { type?: string; options: Options; port: MessagePort };
    if (data?.type !== CONNECT_MESSAGE && data?.type !== REMOVE_MESSAGE) return;
    const { port } = data;
    try {
      if (data.type === REMOVE_MESSAGE) {
        if (!handlers.remove) throw new SessionStorageError("This worker cannot remove storage");
        await handlers.remove(data.options);
        port.postMessage({ ok: true });
        port.close();
        return;
      }
      const store = await handlers.open(data.options);
      serveSessionStore(port, store);
      port.postMessage({ ok: true, description: describeStore(store) });
    } catch (error) {
      port.postMessage({ ok: false, error: errorToWire(error) });
      port.close();
    }
  };
  scope.addEventListener("message", listener);
  (scope as Partial<MessagePort>).start?.(); // a MessagePort only delivers once started
  return () => scope.removeEventListener("message", listener);
}
