/**
 * Serve any {@link SessionStore} from a worker and use it from the page as a
 * `SessionStore` again. The browser keeps OPFS SQLite in a dedicated worker (sync access
 * handles exist only there), so the page talks to it through this small typed channel.
 *
 * Wire rules, and why:
 * - Entries and headers travel as JSON text lines (`toJsonLine`), not as cloned objects:
 *   the raw text an entry was imported from lives in a WeakMap that structured cloning
 *   cannot carry, and byte-identical export depends on it.
 * - Calls, events, aborts and errors use the library's one worker message layer
 *   (`src/rpc.ts`, which the viewer uses too): errors are re-created as the library's error
 *   classes with their fields, so `instanceof SessionNotFoundError` holds on the page.
 * - Serialisation happens on the caller's side before anything is posted: an entry JSON
 *   cannot encode rejects with `SessionStorageError` and nothing reaches the store.
 *
 * Connection: the page posts `{ type: "mu-sessions/connect", options, port }` to the worker;
 * {@link acceptStoreConnections} opens a store for `options` and serves it on `port`. One
 * worker can serve many connections (one per store instance). This module is the worker
 * side and the wire format, public as `@mu/sessions/stores/worker/serve` through
 * `worker_serve.ts` (only the serving functions: the wire format is between this file and
 * the page side, `worker_client.ts`, kept apart so a page bundle does not carry the server).
 *
 * @module
 */
import { canLoadContext } from "../../src/context_load.ts";
import { SessionStorageError } from "../../src/errors.ts";
import { toJsonLine } from "../../src/jsonl.ts";
import { decodeHeader, decodeRecord, encodeEntries } from "../../src/_records.ts";
import {
  errorToWire,
  type MessageEndpoint,
  type RpcCallContext,
  serveRpc,
  type WireError,
} from "../../src/rpc.ts";
import type { SessionEntry, SessionHeader } from "../../src/schema.ts";
import type { SearchOptions } from "../../src/search.ts";
import type { ListOptions, ReplaceOptions, SessionStore } from "../../src/store.ts";

/**
 * Message type that opens a served store (see {@link acceptStoreConnections}).
 *
 * @example
 * ```ts
 * import { CONNECT_MESSAGE } from "./_channel.ts";
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
 * import { REMOVE_MESSAGE } from "./_channel.ts";
 * declare const worker: Worker;
 * const { port2 } = new MessageChannel(); // what removeWorkerStorage does
 * worker.postMessage({ type: REMOVE_MESSAGE, options: { filename: "/x.sqlite3" }, port: port2 }, [port2]);
 * ```
 */
export const REMOVE_MESSAGE = "mu-sessions/remove";

/**
 * A header and entries as they cross: JSON text lines (see the wire rules above).
 *
 * @example
 * ```ts
 * import type { WireSession } from "./_channel.ts";
 * const wire: WireSession = { header: '{"type":"session","version":4,"id":"s","createdAt":"2026-01-01T00:00:00.000Z","cwd":"/p"}', entries: [] };
 * ```
 */
export interface WireSession {
  header: string;
  entries: string[];
}

/**
 * Encode for the wire on the sending side: a value JSON cannot store rejects here, with
 * `SessionStorageError`, before anything is posted.
 *
 * @example
 * ```ts
 * import { sessionToWire } from "./_channel.ts";
 * sessionToWire({ type: "session", version: 4, id: "s", createdAt: "2026-01-01T00:00:00.000Z", cwd: "/p" }, []).entries; // []
 * ```
 */
export function sessionToWire(
  header: SessionHeader,
  entries: readonly SessionEntry[],
): WireSession {
  return { header: toJsonLine(header, "header"), entries: encodeEntries(entries) };
}

/**
 * Decode on the receiving side, keeping each line's text (byte-identical export); a
 * damaged line raises `SessionFormatError`.
 *
 * @example
 * ```ts
 * import { sessionFromWire } from "./_channel.ts";
 * sessionFromWire({ header: '{"type":"session","version":4,"id":"s","createdAt":"2026-01-01T00:00:00.000Z","cwd":"/p"}', entries: [] }).header.id; // "s"
 * ```
 */
export function sessionFromWire(
  wire: WireSession,
): { header: SessionHeader; entries: SessionEntry[] } {
  return { header: decodeHeader(wire.header, WIRE), entries: entriesFromWire(wire.entries) };
}

/**
 * Entries alone (an append), decoded like {@link sessionFromWire}.
 *
 * @example
 * ```ts
 * import { entriesFromWire } from "./_channel.ts";
 * entriesFromWire(['{"type":"custom","id":"a","parentId":null}'])[0].id; // "a"
 * ```
 */
export function entriesFromWire(lines: readonly string[]): SessionEntry[] {
  return lines.map((line, i) => decodeRecord<SessionEntry>(line, i + 2, WIRE));
}

const WIRE = { source: "worker channel" };

/**
 * A served store's listing event (see {@link RpcCallContext.emit}).
 *
 * @example
 * ```ts
 * import type { ListEvent } from "./_channel.ts";
 * const event: ListEvent = { event: "progress", loaded: 3, total: 10 };
 * ```
 */
export type ListEvent =
  | { event: "progress"; loaded: number; total: number }
  | { event: "skipped"; path: string; error: WireError };

/** The methods a served store answers, given wire arguments. */
function dispatch(
  store: SessionStore,
  method: string,
  args: unknown[],
  context: RpcCallContext,
): Promise<unknown> {
  const [a, b] = args as [unknown, unknown];
  switch (method) {
    case "create": {
      const { header, entries } = sessionFromWire(a as WireSession);
      return store.create(header, entries);
    }
    case "append":
      return store.append(a as string, entriesFromWire(b as string[]));
    case "replace": {
      const { header, entries } = sessionFromWire(a as WireSession);
      return store.replace(header, entries, b as ReplaceOptions);
    }
    case "updateHeader":
      return store.updateHeader(decodeHeader(a, WIRE));
    case "load":
      return store.load(a as string).then((loaded) => ({
        ...loaded,
        ...sessionToWire(loaded.header, loaded.entries),
      }));
    case "list": {
      const options: ListOptions = { ...(a as ListOptions), signal: context.signal };
      if (context.events) {
        const emit = (event: ListEvent) => context.emit(event);
        options.onProgress = (loaded, total) => emit({ event: "progress", loaded, total });
        options.onSkipped = ({ path, error }) =>
          emit({ event: "skipped", path, error: errorToWire(error) });
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
    case "loadContext": {
      // The prefix travels as lines beside the path (decoded again on the page's side).
      if (!canLoadContext(store)) throw new SessionStorageError("loadContext is not supported");
      return store.loadContext(a as string, b as string | null | undefined)
        .then((r) => ({ ...sessionToWire(r.header, r.entries), prefix: encodeEntries(r.prefix) }));
    }
    case "search": {
      if (!store.search) throw new SessionStorageError("search is not supported");
      const options: SearchOptions = { ...(b as SearchOptions), signal: context.signal };
      if (context.events) options.onProgress = (progress) => context.emit(progress);
      return store.search(a as string, options);
    }
    case "close":
      return store.close();
    case "describe":
      return Promise.resolve(describeStore(store));
    default:
      throw new SessionStorageError(`Unknown store method ${method}`);
  }
}

/**
 * What a client needs to mirror a served store: its kind and optional methods.
 *
 * @example
 * ```ts
 * import type { StoreDescription } from "./_channel.ts";
 * const sqlite: StoreDescription = { kind: "sqlite", capabilities: ["exportJsonl", "loadContext"] };
 * ```
 */
export interface StoreDescription {
  kind: string;
  /** Optional methods the store has: `"exportJsonl"`, `"loadContext"`, `"search"`. */
  capabilities: string[];
}

function describeStore(store: SessionStore): StoreDescription {
  const capabilities = ["exportJsonl", "loadContext", "search"].filter((name) =>
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
  serveRpc(port, (method, args, context) => {
    if (method === "close") context.afterReply(() => port.close()); // the client is done
    return dispatch(store, method, args, context);
  });
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
 * import { acceptStoreConnections, type MessageEndpoint } from "@mu/sessions/stores/worker/serve";
 * import { openSqliteWasmStore } from "@mu/sessions/stores/sqlite/wasm";
 * // In a module worker `self` is the endpoint; the cast only satisfies the page's DOM typings.
 * acceptStoreConnections(self as unknown as MessageEndpoint, { open: openSqliteWasmStore });
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
