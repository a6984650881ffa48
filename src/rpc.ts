/**
 * The one message layer for worker boundaries: typed request/response calls over any
 * `postMessage` endpoint (a `Worker`, a `MessagePort`, a worker's global scope), with
 * events tied to a call (listing progress) or broadcast (import progress), aborts, and
 * errors that keep their class. The store channel (`stores/browser/_channel.ts`,
 * `worker_client.ts`) and the viewer (`web/rpc.ts`) both use it. Only web-standard APIs
 * (`postMessage`, `MessagePort`, `AbortController`, `DOMException`).
 *
 * Errors cross as plain data ({@link WireError}) naming the library class they are an
 * instance of by a fixed string (so a minified bundle, where class names change, still
 * rebuilds them), with their fields (`line`, `byteOffset`, `reason`, `source`, `sessionId`,
 * `entryId`). The receiving side rebuilds the same class, so `instanceof SessionFormatError`
 * holds on the page; an error that is not the library's arrives as a `SessionStorageError`
 * carrying its message.
 *
 * @module
 */
import {
  EntryConflictError,
  EntryNotFoundError,
  InvalidArgumentError,
  SessionError,
  SessionExistsError,
  SessionFormatError,
  SessionNotFoundError,
  SessionStorageError,
} from "./errors.ts";

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
 * import type { WireError } from "./rpc.ts";
 * const wire: WireError = { name: "SessionNotFoundError", kind: "SessionNotFoundError", message: "Session not found: s1", sessionId: "s1" };
 * ```
 */
export interface WireError {
  /** The error's own name (a subclass keeps it: `TornTailError`). */
  name: string;
  /** The library class it is an instance of, by a fixed name; absent for foreign errors. */
  kind?: string;
  message: string;
  stack?: string;
  sessionId?: string;
  entryId?: string;
  line?: number;
  byteOffset?: number;
  reason?: string;
  source?: string;
  /** A driver error's file (`TornTailError`). */
  path?: string;
}

const TEXT_FIELDS = ["sessionId", "entryId", "reason", "source", "path"] as const;
const NUMBER_FIELDS = ["line", "byteOffset"] as const;

/** The library's error classes by fixed name, most specific first (names survive minifying). */
const ERROR_CLASSES: ReadonlyArray<readonly [string, new (...args: never[]) => Error]> = [
  ["SessionFormatError", SessionFormatError],
  ["SessionNotFoundError", SessionNotFoundError],
  ["SessionExistsError", SessionExistsError],
  ["EntryConflictError", EntryConflictError],
  ["EntryNotFoundError", EntryNotFoundError],
  ["InvalidArgumentError", InvalidArgumentError],
  ["SessionStorageError", SessionStorageError],
  ["SessionError", SessionError],
];

/**
 * Flatten an error for `postMessage` (structured cloning keeps neither custom classes nor
 * their fields).
 *
 * @example
 * ```ts
 * import { SessionNotFoundError } from "@mu/sessions";
 * import { errorFromWire, errorToWire } from "./rpc.ts";
 * errorFromWire(errorToWire(new SessionNotFoundError("s1"))) instanceof SessionNotFoundError; // true
 * ```
 */
export function errorToWire(error: unknown): WireError {
  if (!(error instanceof Error) && !(error instanceof DOMException)) {
    return { name: "Error", message: String(error) };
  }
  const known = ERROR_CLASSES.find(([, type]) => error instanceof type);
  const wire: WireError = { name: error.name, message: error.message, stack: error.stack };
  if (known) {
    wire.kind = known[0];
    // An instance of the class itself is named by the fixed name: in a minified bundle its
    // `name` (taken from the class) may be a one-letter identifier.
    if (error.constructor === known[1]) wire.name = known[0];
  } else if (error instanceof DOMException && error.name === "AbortError") {
    wire.kind = "AbortError";
  }
  const typed = error as unknown as Record<string, unknown>;
  for (const key of TEXT_FIELDS) {
    if (typeof typed[key] === "string") wire[key] = typed[key] as string;
  }
  for (const key of NUMBER_FIELDS) {
    if (typeof typed[key] === "number") wire[key] = typed[key] as number;
  }
  return wire;
}

/**
 * Rebuild the library's error class, with its fields, from {@link errorToWire} data; a
 * foreign error becomes a `SessionStorageError` with its message.
 *
 * @example
 * ```ts
 * import { errorFromWire } from "./rpc.ts";
 * const error = errorFromWire({ name: "SessionExistsError", kind: "SessionExistsError", message: "taken", sessionId: "s1" });
 * error.name; // "SessionExistsError", and instanceof SessionExistsError
 * ```
 */
export function errorFromWire(wire: WireError): Error {
  let error: Error;
  switch (wire.kind ?? wire.name) { // data from before `kind` named the class by `name`
    case "AbortError":
      return new DOMException(wire.message, "AbortError");
    case "SessionFormatError":
      error = new SessionFormatError(wire.reason ?? wire.message, {
        line: wire.line,
        byteOffset: wire.byteOffset,
        source: wire.source,
      });
      break;
    case "SessionNotFoundError":
      error = new SessionNotFoundError(wire.sessionId ?? "", wire.message);
      break;
    case "SessionExistsError":
      error = new SessionExistsError(wire.sessionId ?? "", wire.message);
      break;
    case "EntryConflictError":
      error = new EntryConflictError(wire.sessionId ?? "", wire.entryId ?? "", wire.message);
      break;
    case "EntryNotFoundError":
      error = new EntryNotFoundError(wire.entryId ?? "");
      break;
    case "InvalidArgumentError":
      error = new InvalidArgumentError(wire.message);
      break;
    case "SessionError":
      error = new SessionError(wire.message);
      break;
    case "SessionStorageError":
      error = new SessionStorageError(wire.message);
      break;
    default: {
      const plain = wire.name === "Error" || !wire.name;
      error = new SessionStorageError(plain ? wire.message : `${wire.name}: ${wire.message}`);
      wire = { ...wire, name: error.name };
    }
  }
  error.name = wire.name; // the fixed name, or a subclass's own (TornTailError)
  // A subclass's own fields (TornTailError's path and byteOffset) ride along.
  for (const key of [...TEXT_FIELDS, ...NUMBER_FIELDS]) {
    if (wire[key] !== undefined && !(key in error)) Object.assign(error, { [key]: wire[key] });
  }
  // Keep the other side's frames: that is where the failure happened.
  if (wire.stack) error.stack = `${error.name}: ${error.message}\n    (in worker)\n${wire.stack}`;
  return error;
}

/**
 * The messages of the layer. `event` with an `id` belongs to that call; without one it is
 * a broadcast.
 *
 * @example
 * ```ts
 * import type { RpcMessage } from "./rpc.ts";
 * const call: RpcMessage = { rpc: "call", id: 1, method: "has", args: ["s1"] };
 * ```
 */
export type RpcMessage =
  | { rpc: "call"; id: number; method: string; args: unknown[]; events?: boolean }
  | { rpc: "abort"; id: number }
  | { rpc: "reply"; id: number; ok: true; value: unknown }
  | { rpc: "reply"; id: number; ok: false; error: WireError }
  | { rpc: "event"; id?: number; event: unknown };

/**
 * What a served call gets beside its arguments.
 *
 * @example
 * ```ts
 * import type { RpcCallContext } from "./rpc.ts";
 * const report = (ctx: RpcCallContext) => ctx.events && ctx.emit({ loaded: 1, total: 2 });
 * ```
 */
export interface RpcCallContext {
  /** Aborted when the caller's signal aborts. */
  signal: AbortSignal;
  /** Whether the caller listens to this call's events. */
  events: boolean;
  /** Send an event to this call's listener. */
  emit(event: unknown): void;
  /** Run `fn` once the reply has been posted (closing a port after answering `close`). */
  afterReply(fn: () => void): void;
}

/**
 * Answers calls: the method name, the arguments as posted, and the call's context.
 *
 * @example
 * ```ts
 * import type { RpcHandler } from "./rpc.ts";
 * const echo: RpcHandler = (method, args) => ({ method, args });
 * ```
 */
export type RpcHandler = (method: string, args: unknown[], context: RpcCallContext) => unknown;

/**
 * Serve calls arriving on `endpoint` with `handler`; a thrown error (or rejection) is
 * posted as {@link WireError}. Returns `emit`, which broadcasts an event, and `stop`.
 *
 * @example
 * ```ts
 * import { serveRpc } from "./rpc.ts";
 * const { port2 } = new MessageChannel();
 * const { emit } = serveRpc(port2, (method) => method.toUpperCase());
 * emit({ type: "ready" });
 * ```
 */
export function serveRpc(
  endpoint: MessageEndpoint,
  handler: RpcHandler,
): { emit(event: unknown): void; stop(): void } {
  const running = new Map<number, AbortController>();
  const post = (message: RpcMessage) => endpoint.postMessage(message, []);
  const listener = async (message: MessageEvent) => {
    const data = message.data as RpcMessage | undefined;
    if (data?.rpc === "abort") {
      running.get(data.id)?.abort(new DOMException("Call aborted", "AbortError"));
      return;
    }
    if (data?.rpc !== "call") return;
    const controller = new AbortController();
    running.set(data.id, controller);
    const after: Array<() => void> = [];
    const context: RpcCallContext = {
      signal: controller.signal,
      events: Boolean(data.events),
      emit: (event) => post({ rpc: "event", id: data.id, event }),
      afterReply: (fn) => after.push(fn),
    };
    let reply: RpcMessage;
    try {
      reply = {
        rpc: "reply",
        id: data.id,
        ok: true,
        value: await handler(data.method, data.args, context),
      };
    } catch (error) {
      reply = { rpc: "reply", id: data.id, ok: false, error: errorToWire(error) };
    } finally {
      running.delete(data.id);
    }
    try {
      post(reply);
    } catch (error) { // a value structured cloning cannot copy
      post({ rpc: "reply", id: data.id, ok: false, error: errorToWire(error) });
    }
    for (const fn of after) fn();
  };
  endpoint.addEventListener("message", listener);
  (endpoint as Partial<MessagePort>).start?.(); // a MessagePort delivers only once started
  return {
    emit: (event) => post({ rpc: "event", event }),
    stop: () => endpoint.removeEventListener("message", listener),
  };
}

/**
 * Options of one {@link RpcClient.call}.
 *
 * @example
 * ```ts
 * import type { RpcCallOptions } from "./rpc.ts";
 * const options: RpcCallOptions = { onEvent: (event) => console.log(event) };
 * ```
 */
export interface RpcCallOptions {
  /** Abort the call: it rejects with the signal's reason and the server's signal aborts. */
  signal?: AbortSignal;
  /** This call's events, in order, before it settles. */
  onEvent?: (event: unknown) => void;
}

/** Call ids are unique per realm, so several clients may share one endpoint. */
let nextCallId = 1;

/**
 * The calling side: pipelined calls over `endpoint`, rejected with the rebuilt error class.
 *
 * @example
 * ```ts
 * import { RpcClient, serveRpc } from "./rpc.ts";
 * const { port1, port2 } = new MessageChannel();
 * serveRpc(port2, (method, args) => (args as number[]).reduce((a, b) => a + b, 0));
 * const sum = await new RpcClient(port1).call<number>("sum", [1, 2]); // 3
 * ```
 */
export class RpcClient {
  readonly #endpoint: MessageEndpoint;
  readonly #pending = new Map<number, {
    resolve(value: unknown): void;
    reject(error: unknown): void;
    onEvent?: (event: unknown) => void;
  }>();
  readonly #broadcast = new Set<(event: unknown) => void>();
  readonly #listener = (message: MessageEvent) => this.#receive(message.data as RpcMessage);

  constructor(endpoint: MessageEndpoint) {
    this.#endpoint = endpoint;
    endpoint.addEventListener("message", this.#listener);
    (endpoint as Partial<MessagePort>).start?.();
  }

  /** Call `method` on the other side. */
  call<T>(method: string, args: unknown[], options: RpcCallOptions = {}): Promise<T> {
    const { signal, onEvent } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const id = nextCallId++;
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        this.#pending.delete(id);
        this.#endpoint.postMessage({ rpc: "abort", id } satisfies RpcMessage, []);
        reject(signal!.reason ?? new DOMException("Call aborted", "AbortError"));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      const settle = () => signal?.removeEventListener("abort", onAbort);
      this.#pending.set(id, {
        resolve: (value) => (settle(), resolve(value as T)),
        reject: (error) => (settle(), reject(error)),
        onEvent,
      });
      const call: RpcMessage = { rpc: "call", id, method, args, events: Boolean(onEvent) };
      this.#endpoint.postMessage(call, []);
    });
  }

  /** Listen to broadcast events; returns the function that stops listening. */
  onEvent(listener: (event: unknown) => void): () => void {
    this.#broadcast.add(listener);
    return () => this.#broadcast.delete(listener);
  }

  /** Reject every pending call (the other side died or was closed). */
  failAll(error: Error): void {
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
  }

  /** Stop listening; pending calls are left to {@link failAll}. */
  close(): void {
    this.#endpoint.removeEventListener("message", this.#listener);
  }

  #receive(data: RpcMessage | undefined): void {
    if (data?.rpc === "event") {
      if (data.id === undefined) { for (const listener of this.#broadcast) listener(data.event); }
      else this.#pending.get(data.id)?.onEvent?.(data.event);
      return;
    }
    if (data?.rpc !== "reply") return;
    const pending = this.#pending.get(data.id);
    if (!pending) return; // aborted, or another client's call on a shared endpoint
    this.#pending.delete(data.id);
    if (data.ok) pending.resolve(data.value);
    else pending.reject(errorFromWire(data.error));
  }
}
