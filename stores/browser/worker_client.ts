/**
 * Page side of the worker store channel (`_channel.ts` is the worker side and the
 * wire format): {@link WorkerSessionStore} is a `SessionStore` whose calls run in a worker.
 * Nothing here imports a driver, so a page bundle stays small.
 *
 * @example
 * ```ts
 * import { WorkerSessionStore } from "@mu/sessions/stores/worker";
 * const worker = new Worker("./opfs_worker.js", { type: "module" });
 * const store = await WorkerSessionStore.connect(worker, { vfs: "auto", filename: "/sessions.sqlite3" });
 * console.log(await store.list());
 * ```
 *
 * @module
 */
import type { ContextLoadingStore } from "../../src/context_load.ts";
import { SessionStorageError } from "../../src/errors.ts";
import { toJsonLine } from "../../src/jsonl.ts";
import { encodeEntries } from "../../src/_records.ts";
import {
  errorFromWire,
  type MessageEndpoint,
  type RpcCallOptions,
  RpcClient,
} from "../../src/rpc.ts";
import type { SessionEntry, SessionHeader } from "../../src/schema.ts";
import type { SearchHit } from "../../src/search.ts";
import { assertStoreOpen, guardStoreClass } from "../../src/guarded_store.ts";
import {
  type CreatedSession,
  type ListOptions,
  type LoadedSession,
  type ReplaceOptions,
  type SessionInfo,
  type SessionStore,
  storageOperation,
  throwIfAborted,
} from "../../src/store.ts";
import {
  CONNECT_MESSAGE,
  entriesFromWire,
  type ListEvent,
  REMOVE_MESSAGE,
  sessionFromWire,
  sessionToWire,
  type StoreDescription,
  type WireSession,
} from "./_channel.ts";

/**
 * Options for {@link WorkerSessionStore.connect}.
 *
 * @example
 * ```ts
 * import { WorkerSessionStore } from "@mu/sessions/stores/worker";
 * const worker = new Worker("./opfs_worker.js", { type: "module" });
 * const store = await WorkerSessionStore.connect(worker, {}, { timeoutMs: 5000, terminateOnClose: true });
 * ```
 */
export interface ConnectOptions {
  /** Give up when the worker has not answered in time (default 30 s): a dead worker fails. */
  timeoutMs?: number;
  /** Terminate the worker when this store closes (default false: workers are shared). */
  terminateOnClose?: boolean;
}

/**
 * Workers whose script never started serving (failed to load or threw at the top level):
 * later connections fail at once instead of waiting for their timeout.
 */
const workerState = new WeakMap<object, { served: boolean; failure?: Error }>();

function handshake(
  endpoint: MessageEndpoint,
  type: string,
  options: unknown,
  timeoutMs: number,
): Promise<{ port: MessagePort; description?: StoreDescription }> {
  const worker = endpoint as Partial<Worker>;
  let state = workerState.get(endpoint);
  if (!state) workerState.set(endpoint, state = { served: false });
  if (state.failure) return Promise.reject(state.failure);
  const { port1, port2 } = new MessageChannel();
  return new Promise((resolve, reject) => {
    const finish = () => {
      clearTimeout(timer);
      worker.removeEventListener?.("error", onError);
      port1.onmessage = null; // later messages on the port are the store's calls
    };
    const fail = (error: Error) => {
      finish();
      port1.close();
      reject(error);
    };
    // A worker script that fails to load or throws at the top level only says so here.
    // Once the worker has answered, its error events are someone else's (a shared worker
    // doing other work), so they no longer fail connections.
    const onError = (event: ErrorEvent) => {
      if (state.served) return;
      event.preventDefault(); // handled: it becomes this rejection (Deno would exit otherwise)
      state.failure = new SessionStorageError(
        `The store worker failed: ${event.message || "its script did not load"}`,
      );
      fail(state.failure);
    };
    const timer = setTimeout(
      () => fail(new SessionStorageError(`The store worker did not answer in ${timeoutMs} ms`)),
      timeoutMs,
    );
    worker.addEventListener?.("error", onError);
    port1.onmessage = (event: MessageEvent) => {
      const data = event.data as { ok: boolean; error?: never; description?: StoreDescription };
      state.served = true;
      if (!data.ok) return fail(errorFromWire(data.error!));
      finish();
      resolve({ port: port1, description: data.description });
    };
    endpoint.postMessage({ type, options, port: port2 }, [port2]);
  });
}

/**
 * Delete the storage a worker's `remove` handler understands (for the SQLite worker: the
 * database file). Close every store using it first.
 *
 * @example
 * ```ts
 * import { removeWorkerStorage } from "@mu/sessions/stores/worker";
 * declare const worker: Worker;
 * await removeWorkerStorage(worker, { filename: "/old.sqlite3" });
 * ```
 */
export async function removeWorkerStorage(
  endpoint: MessageEndpoint,
  options: unknown,
  timeoutMs = 30_000,
): Promise<void> {
  const { port } = await handshake(endpoint, REMOVE_MESSAGE, options, timeoutMs);
  port.close();
}

/** How long `close()` waits for the worker to confirm. */
const CLOSE_TIMEOUT_MS = 10_000;

/**
 * A {@link SessionStore} served from a worker (see `acceptStoreConnections`). Calls are
 * pipelined over a `MessagePort`; errors arrive as the library's typed error classes.
 * `exportJsonl`, `loadContext` and `search` exist only when the served store
 * has them.
 *
 * @example
 * ```ts
 * import { WorkerSessionStore } from "@mu/sessions/stores/worker";
 * const worker = new Worker("./opfs_worker.js", { type: "module" });
 * const store = await WorkerSessionStore.connect(worker, { vfs: "opfs-sahpool", filename: "/s.sqlite3" });
 * await store.close();
 * ```
 */
export class WorkerSessionStore implements SessionStore {
  readonly kind: string;
  /** Present when the served store can export JSONL. */
  readonly exportJsonl?: (sessionId: string) => Promise<string>;
  /**
   * Present when the served store has a context-only load (the SQLite store has): what
   * `projectLoadedContext` needs, without loading the session (`canLoadContext` finds it).
   */
  readonly loadContext?: ContextLoadingStore["loadContext"];
  /** Present when the served store has a search index (the SQLite store has). */
  readonly search?: SessionStore["search"];
  readonly #port: MessagePort;
  readonly #rpc: RpcClient;
  readonly #onClose?: () => void;
  #closed = false;

  private constructor(
    port: MessagePort,
    description: StoreDescription,
    onClose?: () => void,
    rpc = new RpcClient(port),
  ) {
    this.#port = port;
    this.#rpc = rpc;
    this.kind = description.kind;
    this.#onClose = onClose;
    if (description.capabilities.includes("exportJsonl")) {
      this.exportJsonl = (sessionId) => this.#call<string>("exportJsonl", [sessionId]);
    }
    if (description.capabilities.includes("loadContext")) {
      this.loadContext = async (sessionId, leafId) => {
        const wire = await this.#call<WireSession & { prefix: string[] }>(
          "loadContext",
          [sessionId, leafId],
        );
        return { ...sessionFromWire(wire), prefix: entriesFromWire(wire.prefix) };
      };
    }
    if (description.capabilities.includes("search")) {
      this.search = async (query, options = {}) => {
        throwIfAborted(options.signal); // an own property: the class guards do not cover it
        // The signal crosses as a cancellation message, partial results as events.
        const { signal, onProgress, ...rest } = options;
        type Progress = Parameters<NonNullable<typeof onProgress>>[0];
        return await this.#call<SearchHit[]>("search", [query, rest], {
          signal,
          onEvent: onProgress && ((data) => onProgress(data as Progress)),
        });
      };
    }
  }

  /**
   * Ask a worker running `acceptStoreConnections` to open a store for `options` (passed to
   * its `open` handler as-is) and connect to it.
   */
  static async connect(
    worker: MessageEndpoint,
    options?: unknown,
    connect: ConnectOptions = {},
  ): Promise<WorkerSessionStore> {
    const { port, description } = await handshake(
      worker,
      CONNECT_MESSAGE,
      options,
      connect.timeoutMs ?? 30_000,
    );
    const terminate = connect.terminateOnClose
      ? () => (worker as Partial<Worker>).terminate?.()
      : undefined;
    return new WorkerSessionStore(port, description!, terminate);
  }

  /** Use a store already served on `port` with `serveSessionStore`. */
  static async overPort(port: MessagePort): Promise<WorkerSessionStore> {
    const rpc = new RpcClient(port);
    const description = await rpc.call<StoreDescription>("describe", []);
    return new WorkerSessionStore(port, description, undefined, rpc);
  }

  async create(
    header: SessionHeader,
    entries: readonly SessionEntry[] = [],
  ): Promise<CreatedSession> {
    const args = await this.#encode("create", () => [sessionToWire(header, entries)]);
    return await this.#call<CreatedSession>("create", args);
  }

  async append(sessionId: string, entries: readonly SessionEntry[]): Promise<void> {
    const args = await this.#encode("append", () => [sessionId, encodeEntries(entries)]);
    await this.#call("append", args);
  }

  async load(sessionId: string): Promise<LoadedSession> {
    const wire = await this.#call<LoadedSession & WireSession>("load", [sessionId]);
    return { ...wire, ...sessionFromWire(wire) };
  }

  async replace(
    header: SessionHeader,
    entries: readonly SessionEntry[],
    options: ReplaceOptions = {},
  ): Promise<void> {
    const args = await this.#encode("replace", () => [sessionToWire(header, entries), options]);
    await this.#call("replace", args);
  }

  async updateHeader(header: SessionHeader): Promise<void> {
    const args = await this.#encode("updateHeader", () => [toJsonLine(header, "header")]);
    await this.#call("updateHeader", args);
  }

  async list(options: ListOptions = {}): Promise<SessionInfo[]> {
    const { cwd, includeInternal, signal, onProgress, onSkipped } = options;
    const onEvent = (data: unknown) => {
      const event = data as ListEvent;
      if (event.event === "progress") onProgress?.(event.loaded, event.total);
      else onSkipped?.({ path: event.path, error: errorFromWire(event.error) });
    };
    return await this.#call<SessionInfo[]>("list", [{ cwd, includeInternal }], {
      signal,
      onEvent: onProgress || onSkipped ? onEvent : undefined,
    });
  }

  async delete(sessionId: string): Promise<void> {
    await this.#call("delete", [sessionId]);
  }

  async has(sessionId: string): Promise<boolean> {
    return await this.#call<boolean>("has", [sessionId]);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      // Bounded: a worker that was terminated or crashed never answers.
      await Promise.race([
        this.#rpc.call("close", []),
        new Promise((_, reject) => {
          timer = setTimeout(
            () => reject(new SessionStorageError("The store worker did not confirm closing")),
            CLOSE_TIMEOUT_MS,
          );
        }),
      ]);
    } finally {
      clearTimeout(timer);
      this.#closed = true;
      this.#rpc.close();
      this.#port.close();
      this.#onClose?.();
    }
  }

  /** Encode on this side, so an unstorable value rejects before anything is posted. */
  async #encode(what: string, fn: () => unknown[]): Promise<unknown[]> {
    return await storageOperation(what, fn);
  }

  /**
   * Every call but `close` that reaches the worker. The capabilities set up in the
   * constructor are own properties, which the class guards cannot stand in front of: this
   * is their closed-state guard.
   */
  #call<T>(method: string, args: unknown[], options?: RpcCallOptions): Promise<T> {
    assertStoreOpen(this, this.kind);
    return this.#rpc.call<T>(method, args, options);
  }
}

guardStoreClass(WorkerSessionStore);
