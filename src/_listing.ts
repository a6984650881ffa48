/**
 * The fields a session picker shows, kept as a small state that is updated one entry at a
 * time. Every store computes listings with the same code: JSONL stores fold the entries of
 * a file, the SQLite store keeps the state in its `sessions` row and folds each append.
 *
 * @module
 */
import {
  isWorkflowInternal,
  type SessionEntry,
  type SessionHeader,
  type WorkflowMarker,
} from "./schema.ts";

/**
 * One row of a session listing.
 *
 * @example
 * ```ts
 * import { MemorySessionStore, type SessionInfo, SessionManager } from "@mu/sessions";
 * const rows: SessionInfo[] = await SessionManager.list("/project", new MemorySessionStore());
 * for (const row of rows) console.log(row.id, row.name ?? row.firstMessage, row.modified);
 * ```
 */
export interface SessionInfo {
  /** Exact session id: use it to open the session. */
  id: string;
  /** JSONL file location when the store has one, otherwise the id. Not always a path. */
  path: string;
  cwd: string;
  /** Display name; `undefined` when never named or cleared (see `hasName`). */
  name?: string;
  /** True when any `session_info` entry exists, even one that cleared the name. */
  hasName: boolean;
  /** The session summary, only while it is fresh (see the format spec). */
  summary?: string;
  parentSessionId?: string;
  /** Present (true) only for classified workflow sessions. */
  internal?: true;
  workflow?: WorkflowMarker;
  created: Date;
  modified: Date;
  /** Number of `message` entries of any role, all branches. */
  messageCount: number;
  /** Text of the first user message, or `"(no messages)"`. */
  firstMessage: string;
}

/** The JSON-serialisable fold state behind a {@link SessionInfo}. */
export interface ListingState {
  name?: string;
  hasName: boolean;
  summary?: { text: string; throughId: string };
  lastConversationId?: string;
  firstMessage?: string;
  messageCount: number;
  /** Newest user/assistant message time, epoch ms (0 when none). */
  lastMessageMs: number;
}

/** The state of a session with no entries. */
export function emptyListingState(): ListingState {
  return { hasName: false, messageCount: 0, lastMessageMs: 0 };
}

/** Text of a user/assistant message: string content, or its text blocks joined by a space. */
export function messageText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  let text = "";
  for (const block of content) {
    if (block && block.type === "text" && typeof block.text === "string" && block.text) {
      text = text ? `${text} ${block.text}` : block.text;
    }
  }
  return text;
}

/**
 * Fold one entry (in file order) into the listing state. Mutates and returns `state`.
 *
 * @example
 * ```ts
 * import { applyEntryToListing, emptyListingState } from "./_listing.ts";
 * const state = applyEntryToListing(emptyListingState(), {
 *   type: "session_info", id: "a", parentId: null, timestamp: "2026-01-01T00:00:00.000Z", name: "Demo",
 * });
 * state.name; // "Demo"
 * ```
 */
export function applyEntryToListing(state: ListingState, entry: SessionEntry): ListingState {
  switch (entry.type) {
    case "message": {
      state.messageCount++;
      const message = entry.message;
      if (message.role !== "user" && message.role !== "assistant") break;
      state.lastConversationId = entry.id;
      const ms = typeof message.timestamp === "number"
        ? message.timestamp
        : Date.parse(entry.timestamp);
      if (Number.isFinite(ms) && ms > state.lastMessageMs) state.lastMessageMs = ms;
      if (message.role === "user" && state.firstMessage === undefined) {
        const text = messageText(message.content);
        if (text) state.firstMessage = text;
      }
      break;
    }
    case "session_info": {
      state.hasName = true;
      const name = typeof entry.name === "string" ? entry.name.trim() : "";
      if (name) state.name = name;
      else delete state.name;
      break;
    }
    case "session_summary":
      state.summary = { text: entry.summary, throughId: entry.summarizedThroughId };
      break;
    case "branch_summary":
      delete state.summary; // the branch it described was abandoned
      break;
  }
  return state;
}

/**
 * Entry types whose effect on the listing fold depends on the entries before them.
 *
 * @example
 * ```ts
 * import { ORDER_DEPENDENT_TYPES } from "./_listing.ts";
 * ORDER_DEPENDENT_TYPES.has("session_info"); // true
 * ```
 */
export const ORDER_DEPENDENT_TYPES: ReadonlySet<string> = new Set([
  "session_info",
  "session_summary",
  "branch_summary",
]);

/**
 * Fold into `state` a later run of entries that was folded on its own (`part`, from
 * {@link emptyListingState}), given at least that run's entries of an
 * {@link ORDER_DEPENDENT_TYPES} type, in order (`kept`; others are skipped): the same state
 * as folding the run's entries one by one after `state`'s. Mutates and returns `state`.
 *
 * @example
 * ```ts
 * import { appendListing, emptyListingState } from "./_listing.ts";
 * const state = { ...emptyListingState(), messageCount: 2 };
 * appendListing(state, { ...emptyListingState(), messageCount: 3 }, []).messageCount; // 5
 * ```
 */
export function appendListing(
  state: ListingState,
  part: ListingState,
  kept: Iterable<SessionEntry>,
): ListingState {
  state.messageCount += part.messageCount;
  if (part.lastMessageMs > state.lastMessageMs) state.lastMessageMs = part.lastMessageMs;
  state.firstMessage ??= part.firstMessage;
  if (part.lastConversationId !== undefined) state.lastConversationId = part.lastConversationId;
  // Only these fields depend on the order; those entries touch nothing above.
  for (const entry of kept) {
    if (ORDER_DEPENDENT_TYPES.has(entry.type)) applyEntryToListing(state, entry);
  }
  return state;
}

/** Fold every entry of a session. */
export function listingStateOf(entries: Iterable<SessionEntry>): ListingState {
  const state = emptyListingState();
  for (const entry of entries) applyEntryToListing(state, entry);
  return state;
}

/**
 * Build the listing row from a header and its fold state.
 *
 * @param path JSONL location when there is one; defaults to the id.
 * @param fallbackModifiedMs used when no message time or creation time is known (file mtime).
 */
export function listingToInfo(
  header: SessionHeader,
  state: ListingState,
  path?: string,
  fallbackModifiedMs = 0,
): SessionInfo {
  const createdMs = Date.parse(header.createdAt);
  const modifiedMs = state.lastMessageMs > 0
    ? state.lastMessageMs
    : Number.isFinite(createdMs)
    ? createdMs
    : fallbackModifiedMs;
  const info: SessionInfo = {
    id: header.id,
    path: path ?? header.id,
    cwd: typeof header.cwd === "string" ? header.cwd : "",
    hasName: state.hasName,
    created: new Date(Number.isFinite(createdMs) ? createdMs : fallbackModifiedMs),
    modified: new Date(modifiedMs),
    messageCount: state.messageCount,
    firstMessage: state.firstMessage ?? "(no messages)",
  };
  if (state.name !== undefined) info.name = state.name;
  if (state.summary && state.summary.throughId === state.lastConversationId) {
    info.summary = state.summary.text;
  }
  if (typeof header.parentSessionId === "string") info.parentSessionId = header.parentSessionId;
  if (isWorkflowInternal(header)) {
    info.internal = true;
    info.workflow = header.workflow as WorkflowMarker;
  }
  return info;
}

/** Listing order: newest `modified` first, then newest `created`, then id (deterministic). */
export function compareSessionInfo(a: SessionInfo, b: SessionInfo): number {
  return b.modified.getTime() - a.modified.getTime() ||
    b.created.getTime() - a.created.getTime() ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
