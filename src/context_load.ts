/**
 * Context-only loads: what a store must return so that the model-visible projection of a
 * session's active branch can be built without reading the rest of the session.
 *
 * The projection (`projection.ts`) reads the whole active path, but everything before the
 * context range (the last verbatim boundary's kept tail, or the boundary itself) only
 * contributes replayed state: the latest model, thinking level and context window, and the
 * system messages when the boundary carries no `systemMessage` checkpoint. A store answers
 * {@link ContextLoadingStore.loadContext} with exactly those entries (`prefix`) plus the path
 * from the context range's start to the leaf (`entries`); {@link projectLoadedContext}
 * projects them. Which entries those are is decided once, here ({@link planContextLoad}), over
 * per-entry flags ({@link contextFlags}) that a store can keep beside each entry.
 *
 * One thing the prefix cannot carry: tool-call pairing state. A tool result inside the kept
 * tail may answer (or duplicate) a call made before the tail. When a kept-tail result's call
 * was not announced inside the tail, {@link projectLoadedContext} answers `undefined` and the
 * caller projects the full path instead ({@link loadSessionProjection} does). Whether the
 * two projections agree is checked by a differential test over every fixture and leaf.
 *
 * @module
 */
import { isIncompleteTurn, toolCallsOf } from "./_context_repair.ts";
import {
  buildSessionProjection,
  projectPath,
  type SessionContext,
  type SessionProjection,
} from "./projection.ts";
import type { CompactionEntry, SessionEntry, SessionHeader } from "./schema.ts";
import type { SessionStore } from "./store.ts";
import { EntryNotFoundError } from "./errors.ts";
import { SessionIndex } from "./tree.ts";

/** Flag: sets the projection's model (a `model_change`, or an assistant message naming one). */
export const CONTEXT_MODEL = 1;
/** Flag: a `thinking_level_change`. */
export const CONTEXT_THINKING = 2;
/** Flag: a `context_window_change`. */
export const CONTEXT_WINDOW = 4;
/** Flag: a system message (replayed prompt state). */
export const CONTEXT_SYSTEM = 8;
/** Flag: a verbatim compaction (a boundary when it is the last one on the path). */
export const CONTEXT_VERBATIM = 16;

/**
 * The facts about one entry a context-only load plans with, as bit flags (0 for entries
 * that only matter inside the context range). The same rules `scanPath` in
 * `_path_scan.ts` applies.
 *
 * @example
 * ```ts
 * import { CONTEXT_THINKING, contextFlags } from "./context_load.ts";
 * contextFlags({ type: "thinking_level_change", id: "t", parentId: null, timestamp: "", thinkingLevel: "high" }) === CONTEXT_THINKING; // true
 * ```
 */
export function contextFlags(entry: SessionEntry): number {
  switch (entry.type) {
    case "model_change":
      return CONTEXT_MODEL;
    case "thinking_level_change":
      return CONTEXT_THINKING;
    case "context_window_change":
      return CONTEXT_WINDOW;
    case "compaction": {
      const details = entry.details as { strategy?: unknown } | null | undefined;
      const verbatim = !!details && typeof details === "object" &&
        details.strategy === "verbatim-lines";
      return verbatim ? CONTEXT_VERBATIM : 0;
    }
    case "message": {
      const message = entry.message as { role?: unknown; provider?: unknown; model?: unknown };
      if (!message || typeof message !== "object") return 0;
      if (message.role === "system") return CONTEXT_SYSTEM;
      const named = message.role === "assistant" && typeof message.provider === "string" &&
        typeof message.model === "string";
      return named ? CONTEXT_MODEL : 0;
    }
    default:
      return 0;
  }
}

/**
 * A context-only load (see {@link ContextLoadingStore.loadContext}).
 *
 * @example
 * ```ts
 * import { type ContextLoadingStore, type LoadedContext } from "@mu/sessions";
 * import { projectLoadedContext } from "./context_load.ts";
 * declare const store: ContextLoadingStore;
 * const loaded: LoadedContext = await store.loadContext("s1");
 * const projection = projectLoadedContext(loaded); // undefined: project the full path instead
 * ```
 */
export interface LoadedContext {
  header: SessionHeader;
  /**
   * Entries of the active path before `entries` that the projection replays, root first:
   * the latest model-setting, thinking-level and context-window entries, and every system
   * message when the boundary has no `systemMessage` checkpoint.
   */
  prefix: SessionEntry[];
  /** The active path from the context range's start (kept tail or boundary) to the leaf. */
  entries: SessionEntry[];
}

/**
 * A store with the optional `loadContext` fast path (SQLite has it).
 *
 * @example
 * ```ts
 * import { type ContextLoadingStore, type SessionStore } from "@mu/sessions";
 * import { canLoadContext } from "./context_load.ts";
 * declare const store: SessionStore;
 * const fast: ContextLoadingStore | undefined = canLoadContext(store) ? store : undefined;
 * ```
 */
export interface ContextLoadingStore extends SessionStore {
  /**
   * What the projection of the branch ending at `leafId` needs (default leaf: the last
   * entry; `null`: nothing), without reading the rest of the session. An unknown leaf
   * rejects with `EntryNotFoundError`.
   */
  loadContext(sessionId: string, leafId?: string | null): Promise<LoadedContext>;
}

/**
 * Feature test for {@link ContextLoadingStore}.
 *
 * @example
 * ```ts
 * import { type SessionStore } from "@mu/sessions";
 * import { canLoadContext } from "./context_load.ts";
 * declare const store: SessionStore;
 * if (canLoadContext(store)) await store.loadContext("s1");
 * ```
 */
export function canLoadContext(store: SessionStore): store is ContextLoadingStore {
  return typeof (store as Partial<ContextLoadingStore>).loadContext === "function";
}

/** Where a context-only load starts, and which earlier path positions it also needs. */
export interface ContextPlan {
  /** Path position where `entries` start. */
  start: number;
  /** Path positions before `start` to return as the prefix, ascending. */
  prefix: number[];
}

/**
 * Plan a context-only load over a path of `length` entries. `flagsAt(i)` gives
 * {@link contextFlags} of position `i`, `idAt(i)` its id, and `boundaryAt(i)` the decoded
 * boundary (called once, for the last verbatim compaction). Mirrors `scanPath`'s choice of
 * boundary and kept tail.
 *
 * @example
 * ```ts
 * import { planContextLoad } from "./context_load.ts";
 * planContextLoad(3, () => 0, (i) => `e${i}`, () => { throw new Error("no boundary"); }); // { start: 0, prefix: [] }
 * ```
 */
export function planContextLoad(
  length: number,
  flagsAt: (i: number) => number,
  idAt: (i: number) => string,
  boundaryAt: (i: number) => Pick<CompactionEntry, "firstKeptEntryId" | "systemMessage">,
): ContextPlan {
  let boundary = -1;
  for (let i = length - 1; i >= 0; i--) {
    if (flagsAt(i) & CONTEXT_VERBATIM) {
      boundary = i;
      break;
    }
  }
  if (boundary < 0) return { start: 0, prefix: [] };
  const { firstKeptEntryId, systemMessage } = boundaryAt(boundary);
  let at = -1; // the last position with that id, as scanPath's position map keeps it
  if (typeof firstKeptEntryId === "string") {
    for (let i = length - 1; i >= 0; i--) {
      if (idAt(i) === firstKeptEntryId) {
        at = i;
        break;
      }
    }
  }
  const start = at >= 0 && at < boundary ? at : boundary;
  let wanted = CONTEXT_MODEL | CONTEXT_THINKING | CONTEXT_WINDOW;
  const system = !systemMessage;
  const prefix: number[] = [];
  for (let i = start - 1; i >= 0 && (wanted !== 0 || system); i--) {
    const flags = flagsAt(i);
    const latest = flags & wanted;
    if (latest || (system && flags & CONTEXT_SYSTEM)) prefix.push(i);
    wanted &= ~latest;
  }
  return { start, prefix: prefix.reverse() };
}

/**
 * The reference split of a resolved active path into a {@link LoadedContext}'s `prefix` and
 * `entries` (stores that hold the whole path answer with this).
 *
 * @example
 * ```ts
 * import { splitContextPath } from "./context_load.ts";
 * splitContextPath([]); // { prefix: [], entries: [] }
 * ```
 */
export function splitContextPath(
  path: readonly SessionEntry[],
): { prefix: SessionEntry[]; entries: SessionEntry[] } {
  const plan = planContextLoad(
    path.length,
    (i) => contextFlags(path[i]),
    (i) => path[i].id,
    (i) => path[i] as CompactionEntry,
  );
  return { prefix: plan.prefix.map((i) => path[i]), entries: path.slice(plan.start) };
}

/**
 * The context-only load of an already loaded session (the fallback of stores whose fast
 * path was unsure): the same leaf rules as `buildSessionProjection`, including its errors
 * (an unknown leaf, a parent cycle anywhere in the session).
 *
 * @example
 * ```ts
 * import { contextOfLoaded } from "./context_load.ts";
 * const header = { type: "session" as const, version: 4 as const, id: "s", createdAt: "2026-01-01T00:00:00.000Z", cwd: "/p" };
 * contextOfLoaded({ header, entries: [] }, undefined).entries; // []
 * ```
 */
export function contextOfLoaded(
  loaded: { header: SessionHeader; entries: readonly SessionEntry[]; path?: string },
  leafId: string | null | undefined,
): LoadedContext {
  const index = SessionIndex.build(loaded.entries, { source: loaded.path ?? loaded.header.id });
  if (typeof leafId === "string" && !index.get(leafId)) throw new EntryNotFoundError(leafId);
  const path = index.getPath(leafId === undefined ? index.lastEntry?.id : leafId);
  return { header: loaded.header, ...splitContextPath(path) };
}

/**
 * Whether some tool result in the kept tail (before the boundary) answers a call not
 * announced inside the tail: then pairing state from before the tail could change its
 * verdict, and only the full path decides.
 */
function tailNeedsEarlierCalls(entries: readonly SessionEntry[]): boolean {
  let boundary = -1;
  for (let i = entries.length - 1; i >= 0; i--) {
    if (contextFlags(entries[i]) & CONTEXT_VERBATIM) {
      boundary = i;
      break;
    }
  }
  const announced = new Set<string>();
  for (let i = 0; i < boundary; i++) {
    const entry = entries[i];
    if (entry.type !== "message") continue;
    const message = entry.message;
    if (message.role === "assistant" && !isIncompleteTurn(message)) {
      for (const call of toolCallsOf(message)) announced.add(call.id);
    } else if (message.role === "toolResult" && !announced.has(message.toolCallId)) {
      return true;
    }
  }
  return false;
}

/**
 * The projection of a context-only load: equal to `buildSessionProjection` over the whole
 * session for the same leaf, or `undefined` when the load cannot decide it (a kept-tail
 * tool result whose call came before the tail; project the full path then).
 *
 * @example
 * ```ts
 * import { projectLoadedContext } from "./context_load.ts";
 * const header = { type: "session" as const, version: 4 as const, id: "s", createdAt: "2026-01-01T00:00:00.000Z", cwd: "/p" };
 * projectLoadedContext({ header, prefix: [], entries: [] })?.messages; // []
 * ```
 */
export function projectLoadedContext(loaded: LoadedContext): SessionProjection | undefined {
  if (tailNeedsEarlierCalls(loaded.entries)) return undefined;
  return projectPath([...loaded.prefix, ...loaded.entries]);
}

/**
 * The projection of a stored session's branch ending at `leafId` (default: the last
 * entry), reading as little as the store allows: a context-only load when the store has
 * one and it decides the projection, else the whole session. Always equal to `buildSessionProjection` over the loaded session; what a caller
 * resuming a session needs, without the cost of opening it.
 *
 * @example
 * ```ts
 * import { loadSessionProjection, MemorySessionStore } from "@mu/sessions";
 * const store = new MemorySessionStore();
 * await store.create({ type: "session", version: 4, id: "s", createdAt: "2026-01-01T00:00:00.000Z", cwd: "/p" });
 * (await loadSessionProjection(store, "s")).messages; // []
 * ```
 */
export async function loadSessionProjection(
  store: SessionStore,
  sessionId: string,
  leafId?: string | null,
): Promise<SessionProjection> {
  return (await loadHeaderAndProjection(store, sessionId, leafId)).projection;
}

/**
 * {@link loadSessionProjection} with the session's header beside it (what `mu serve`'s
 * context route answers), read in the same load.
 *
 * @example
 * ```ts
 * import { MemorySessionStore } from "@mu/sessions";
 * import { loadHeaderAndProjection } from "./context_load.ts";
 * const store = new MemorySessionStore();
 * await store.create({ type: "session", version: 4, id: "s", createdAt: "2026-01-01T00:00:00.000Z", cwd: "/p" });
 * (await loadHeaderAndProjection(store, "s")).header.cwd; // "/p"
 * ```
 */
export async function loadHeaderAndProjection(
  store: SessionStore,
  sessionId: string,
  leafId?: string | null,
): Promise<{ header: SessionHeader; projection: SessionProjection }> {
  if (canLoadContext(store)) {
    const loaded = await store.loadContext(sessionId, leafId);
    const projection = projectLoadedContext(loaded);
    if (projection) return { header: loaded.header, projection };
  }
  const { header, entries } = await store.load(sessionId);
  return { header, projection: buildSessionProjection(entries, leafId) };
}

/**
 * {@link loadSessionProjection} reduced to what a provider request is built from.
 *
 * @example
 * ```ts
 * import { loadSessionContext, MemorySessionStore } from "@mu/sessions";
 * const store = new MemorySessionStore();
 * await store.create({ type: "session", version: 4, id: "s", createdAt: "2026-01-01T00:00:00.000Z", cwd: "/p" });
 * (await loadSessionContext(store, "s")).thinkingLevel; // "off"
 * ```
 */
export async function loadSessionContext(
  store: SessionStore,
  sessionId: string,
  leafId?: string | null,
): Promise<SessionContext> {
  const { messages, thinkingLevel, model } = await loadSessionProjection(store, sessionId, leafId);
  return { messages, thinkingLevel, model };
}
