/**
 * SessionView: a loaded session, read-only. The index, the leaf, navigation, and the
 * projection builders - everything that needs no store. `SessionManager` extends it with
 * writes; viewers and edge handlers can use it alone over parsed entries.
 *
 * @module
 */
import { EntryNotFoundError } from "./errors.ts";
import { applyEntryToListing, type ListingState, listingStateOf } from "./_listing.ts";
import {
  buildContextEntries,
  buildSessionContext,
  buildSessionProjection,
  type SessionContext,
  type SessionProjection,
} from "./projection.ts";
import { isWorkflowInternal, type SessionEntry, type SessionHeader } from "./schema.ts";
import { SessionIndex, type SessionTreeNode } from "./tree.ts";
import { type EntryIndex, LazyIndex } from "./lazy_index.ts";
import { type UsageTotals, usageTotals } from "./usage.ts";

/**
 * Name state: never named, cleared, or named.
 *
 * @example
 * ```ts
 * import { SessionManager, type SessionNameState } from "@mu/sessions";
 * const manager = SessionManager.inMemory("/project");
 * await manager.appendSessionInfo("Refactor");
 * const state: SessionNameState = manager.getSessionNameState(); // { hasName: true, name: "Refactor" }
 * ```
 */
export type SessionNameState = { hasName: false } | { hasName: true; name?: string };

/**
 * What a view is built from: a parsed session, and its file when there is one.
 *
 * @example
 * ```ts
 * import { parseSessionJsonlSync, type SessionSource, SessionView } from "@mu/sessions";
 * declare const text: string; // a session file's contents
 * const source: SessionSource = { ...parseSessionJsonlSync(text), path: "/sessions/s1.jsonl" };
 * new SessionView(source).getSessionFile(); // "/sessions/s1.jsonl"
 * ```
 */
export interface SessionSource {
  header: SessionHeader;
  entries: SessionEntry[];
  /** JSONL file location, when there is one. */
  path?: string;
}

/**
 * A source whose entries are indexed lazily (`SessionManager.open` over a store with the
 * lazy capability): `entries` is unused then, the index and listing fold come built.
 */
export interface LazySource extends SessionSource {
  lazy: { index: LazyIndex; listing: ListingState };
}

function indexOf(source: SessionSource): { index: EntryIndex; listing: ListingState } {
  const lazy = (source as Partial<LazySource>).lazy;
  if (lazy) return lazy;
  return {
    index: SessionIndex.build(source.entries, { source: source.path ?? source.header.id }),
    listing: listingStateOf(source.entries),
  };
}

/**
 * A loaded session: getters and builders are synchronous over a one-pass index. The leaf
 * starts at the last entry in file order (where the session was left).
 *
 * @example
 * ```ts
 * import { parseSessionJsonlSync, SessionView } from "@mu/sessions";
 * const parsed = parseSessionJsonlSync(
 *   '{"type":"session","version":4,"id":"s","createdAt":"2026-01-01T00:00:00.000Z","cwd":"/p"}\n',
 * );
 * const view = new SessionView(parsed);
 * view.buildSessionContext().messages; // []
 * ```
 */
export class SessionView {
  protected header: SessionHeader;
  protected index: EntryIndex;
  protected listing: ListingState;
  protected leafId: string | null;
  protected path: string | undefined;
  protected cwd: string;

  constructor(source: SessionSource, cwd?: string) {
    this.header = source.header;
    ({ index: this.index, listing: this.listing } = indexOf(source));
    this.leafId = lastId(this.index);
    this.path = source.path;
    this.cwd = cwd ?? source.header.cwd ?? "";
  }

  /** Replace the loaded session (new, branched or switched-to session). */
  protected load(source: SessionSource, cwd?: string): void {
    this.header = source.header;
    ({ index: this.index, listing: this.listing } = indexOf(source));
    this.leafId = lastId(this.index);
    this.path = source.path;
    this.cwd = cwd ?? source.header.cwd ?? this.cwd;
  }

  /** Publish an entry that was committed: index it and move the leaf to it. */
  protected publish(entry: SessionEntry): void {
    this.index.add(entry);
    applyEntryToListing(this.listing, entry);
    this.leafId = entry.id;
  }

  protected requireEntry(id: string): SessionEntry {
    const entry = this.index.get(id);
    if (!entry) throw new EntryNotFoundError(id);
    return entry;
  }

  // ------------------------------------------------------------ navigation

  /** Move the leaf to an earlier entry (not persisted). */
  branch(entryId: string): void {
    this.requireEntry(entryId);
    this.leafId = entryId;
  }

  /** Move the leaf before the first entry; the next append starts a new root. */
  resetLeaf(): void {
    this.leafId = null;
  }

  /** Current position in the tree (`null` before the first entry or after `resetLeaf`). */
  getLeafId(): string | null {
    return this.leafId;
  }

  /** The entry at the leaf. */
  getLeafEntry(): SessionEntry | undefined {
    return this.leafId === null ? undefined : this.index.get(this.leafId);
  }

  /** An entry by id. */
  getEntry(id: string): SessionEntry | undefined {
    return this.index.get(id);
  }

  /** Entries from the root to `fromId` (default: the leaf), root first. */
  getBranch(fromId?: string): SessionEntry[] {
    return this.index.getPath(fromId ?? this.leafId);
  }

  /** The whole tree: roots in file order, children by timestamp. */
  getTree(): SessionTreeNode[] {
    return this.index.getTree();
  }

  /** Direct children of an entry, in file order. */
  getChildren(parentId: string): SessionEntry[] {
    return this.index.getChildren(parentId);
  }

  /** The current label of an entry (labels are session-wide, not branch-relative). */
  getLabel(id: string): string | undefined {
    return this.index.getLabel(id);
  }

  /** All entries in commit order (a copy). */
  getEntries(): SessionEntry[] {
    return [...this.index.entries];
  }

  /** The session header (a copy). */
  getHeader(): SessionHeader {
    return { ...this.header };
  }

  /** Ids of entries whose parent is missing (kept reachable as roots). */
  getDanglingEntryIds(): string[] {
    return [...this.index.danglingParents];
  }

  // ------------------------------------------------------------ context and info

  /** Model-visible messages with their source entries, model, thinking level, system state. */
  buildSessionProjection(): SessionProjection {
    if (this.index instanceof LazyIndex) return this.index.projection(this.leafId);
    return buildSessionProjection(this.index.entries, this.leafId, this.index);
  }

  /** Messages, thinking level and model for the next provider request. */
  buildSessionContext(): SessionContext {
    if (this.index instanceof LazyIndex) {
      const { messages, thinkingLevel, model } = this.index.projection(this.leafId);
      return { messages, thinkingLevel, model };
    }
    return buildSessionContext(this.index.entries, this.leafId, this.index);
  }

  /** Active branch entries after the latest verbatim compaction boundary. */
  buildContextEntries(): SessionEntry[] {
    if (this.index instanceof LazyIndex) return this.index.contextEntries(this.leafId);
    return buildContextEntries(this.index.entries, this.leafId, this.index);
  }

  /** Display name from the latest `session_info` (`undefined` when never named or cleared). */
  getSessionName(): string | undefined {
    return this.listing.name;
  }

  /** `{ hasName: false }` never named, `{ hasName: true }` cleared, `{ hasName: true, name }` named. */
  getSessionNameState(): SessionNameState {
    if (!this.listing.hasName) return { hasName: false };
    return this.listing.name === undefined
      ? { hasName: true }
      : { hasName: true, name: this.listing.name };
  }

  /** The session summary while fresh (its message is still the newest conversation message). */
  getSessionSummary(): string | undefined {
    const summary = this.listing.summary;
    return summary && summary.throughId === this.listing.lastConversationId
      ? summary.text
      : undefined;
  }

  /** Tokens and cost over every entry that records model work. */
  getUsageTotals(): UsageTotals {
    return usageTotals(this.index.entries);
  }

  /** Working directory of the session. */
  getCwd(): string {
    return this.cwd;
  }

  /** Exact session id (not necessarily a UUID). */
  getSessionId(): string {
    return this.header.id;
  }

  /** JSONL file location, when the store has one (for display; not always a path). */
  getSessionFile(): string | undefined {
    return this.path;
  }

  /** Whether the session is a classified workflow session. */
  isInternal(): boolean {
    return isWorkflowInternal(this.header);
  }
}

/** The id of the last entry in commit order (a lazy index answers without parsing it). */
function lastId(index: EntryIndex): string | null {
  return (index instanceof LazyIndex ? index.lastId : index.lastEntry?.id) ?? null;
}
