/**
 * A {@link SessionStore} that keeps sessions in memory as stored records (`_records.ts`): the
 * same JSON text per header and entry as the IndexedDB and SQLite stores, so callers can
 * never alias the store's data, an imported entry is exported byte for byte, and damaged or
 * unstorable data fails with the same typed errors as the persistent stores.
 *
 * @module
 */
import { SessionExistsError, SessionNotFoundError } from "./errors.ts";
import { toJsonLine } from "./jsonl.ts";
import {
  decodeSession,
  encodeEntries,
  encodeSession,
  foldEntries,
  listRecords,
  recordsToJsonl,
  type SessionRecords,
} from "./_records.ts";
import type { SessionEntry, SessionHeader } from "./schema.ts";
import {
  assertNoCycleAcrossAppends,
  assertStoreOpen,
  assertValidHeader,
  assertWritableEntries,
  guardStoreClass,
  newEntries,
} from "./guarded_store.ts";
import {
  assertValidSessionId,
  asStorageError,
  type CreatedSession,
  type ListOptions,
  type LoadedSession,
  type SessionInfo,
  type SessionStore,
  storageOperation,
} from "./store.ts";

/**
 * Options for {@link MemorySessionStore}.
 *
 * @example
 * ```ts
 * import { MemorySessionStore } from "@mu/sessions";
 * import { type SessionRecords } from "./_records.ts";
 * const sessions = new Map<string, SessionRecords>();
 * const store = new MemorySessionStore({ sessions });
 * const again = new MemorySessionStore({ sessions }); // sees what `store` wrote
 * ```
 */
export interface MemoryStoreOptions {
  /**
   * Where the records live (default: a new map). Stores given the same map share their
   * sessions, like two stores over one file. Every write ends in one `set` or `delete` on
   * it: a map that throws there (a fault-injecting test double) fails the write, and the
   * store rejects with `SessionStorageError` having changed nothing.
   */
  sessions?: Map<string, SessionRecords>;
}

/**
 * In-memory session store; what `SessionManager.inMemory()` uses.
 *
 * @example
 * ```ts
 * import { MemorySessionStore, SessionManager } from "@mu/sessions";
 * const manager = await SessionManager.create(new MemorySessionStore(), "/project");
 * await manager.appendMessage({ role: "user", content: "hi", timestamp: Date.now() });
 * ```
 */
export class MemorySessionStore implements SessionStore {
  readonly kind = "memory";
  readonly #sessions: Map<string, SessionRecords>;

  constructor(options: MemoryStoreOptions = {}) {
    // Guarded on first construction rather than by a call after the class: a top-level call
    // is a side effect every bundle of the core keeps, so code that never makes a memory
    // store (the edge handler) would still carry this class and the guards.
    guardStoreClass(MemorySessionStore);
    this.#sessions = options.sessions ?? new Map();
  }

  async create(
    header: SessionHeader,
    entries: readonly SessionEntry[] = [],
  ): Promise<CreatedSession> {
    await storageOperation("create", () => this.seed(header, entries));
    return { id: header.id };
  }

  /**
   * Synchronously add a session: lets `SessionManager.inMemory()` stay synchronous.
   * Throws like `create` rejects.
   */
  seed(header: SessionHeader, entries: readonly SessionEntry[] = []): void {
    // Synchronous, so the asynchronous guards in front of `create` cannot cover it.
    assertStoreOpen(this, this.kind);
    assertValidSessionId(header.id);
    assertValidHeader(header);
    assertWritableEntries(entries);
    if (this.#sessions.has(header.id)) throw new SessionExistsError(header.id);
    const records = encodeSession(header, entries);
    this.#commit("create", () => this.#sessions.set(header.id, records));
  }

  async append(sessionId: string, given: readonly SessionEntry[]): Promise<void> {
    const session = this.#get(sessionId);
    const { positions, dangling } = storedIds(session.entries);
    const entries = newEntries(sessionId, given, (id) => {
      const at = positions.get(id);
      return at === undefined ? undefined : session.entries[at];
    });
    if (entries.length === 0) return;
    assertNoCycleAcrossAppends(sessionId, entries, dangling, (id) => {
      const at = positions.get(id);
      if (at === undefined) return undefined;
      const parentId = entryOfLine(session.entries[at])?.parentId;
      return typeof parentId === "string" ? parentId : null;
    });
    const lines = encodeEntries(entries); // all or nothing, before anything changes
    // A shallow copy is enough: the fold replaces `summary`, never edits it in place.
    const listing = { ...session.listing };
    foldEntries(listing, entries);
    // The record shares its entry list with the old one: once the `set` (the commit) has
    // succeeded the lines are added in place, so an append costs O(entries), not O(session).
    const next = { ...session, listing };
    this.#commit("append", () => this.#sessions.set(sessionId, next));
    entries.forEach((entry, i) => positions.set(entry.id, next.entries.length + i));
    for (const { id, parentId } of entries) {
      dangling.delete(id);
      if (parentId !== null && !positions.has(parentId)) dangling.add(parentId);
    }
    next.entries.push(...lines);
  }

  async load(sessionId: string): Promise<LoadedSession> {
    const { header, entries } = this.#get(sessionId);
    return decodeSession(header, entries, { source: `memory:${sessionId}` });
  }

  async replace(header: SessionHeader, entries: readonly SessionEntry[]): Promise<void> {
    this.#get(header.id);
    const records = encodeSession(header, entries);
    this.#commit("replace", () => this.#sessions.set(header.id, records));
  }

  async updateHeader(header: SessionHeader): Promise<void> {
    const session = this.#get(header.id);
    const next = { ...session, header: toJsonLine(header, "header") };
    this.#commit("updateHeader", () => this.#sessions.set(header.id, next));
  }

  async list(options: ListOptions = {}): Promise<SessionInfo[]> {
    const records = [...this.#sessions].map(([id, { header, listing }]) => ({
      id,
      header,
      listing,
    }));
    return listRecords(records, "memory", options);
  }

  async delete(sessionId: string): Promise<void> {
    this.#commit("delete", () => this.#sessions.delete(sessionId));
  }

  async has(sessionId: string): Promise<boolean> {
    return this.#sessions.has(sessionId);
  }

  /** The session as format-4 JSONL, joined from the stored records. */
  async exportJsonl(sessionId: string): Promise<string> {
    const { header, entries } = this.#get(sessionId);
    return recordsToJsonl(header, entries);
  }

  /**
   * A token that changes with every write to the session (each write stores a new record
   * object, which draws a new number), or without an id with every write to the store.
   * Writes by another store over the same map count too. Lets sync skip unchanged sessions.
   */
  async changeToken(sessionId?: string): Promise<string> {
    if (sessionId === undefined) {
      return [...this.#sessions].map(([id, records]) => `${id}@${writeNumber(records)}`).join(",");
    }
    return String(writeNumber(this.#get(sessionId)));
  }

  async close(): Promise<void> {}

  #get(sessionId: string): SessionRecords {
    const session = this.#sessions.get(sessionId);
    if (!session) throw new SessionNotFoundError(sessionId);
    return session;
  }

  /** The one place a write changes the map; any failure there becomes a typed error. */
  #commit(what: string, write: () => unknown): void {
    try {
      write();
    } catch (error) {
      throw asStorageError(what, error);
    }
  }
}

/** The number of the write that stored a record object (drawn on first ask, never reused). */
const writeNumbers = new WeakMap<SessionRecords, number>();
let lastWriteNumber = 0;

function writeNumber(records: SessionRecords): number {
  let number = writeNumbers.get(records);
  if (number === undefined) writeNumbers.set(records, number = ++lastWriteNumber);
  return number;
}

/**
 * Each entry id's line in a session's entry list, built once per list (appends add to the
 * list in place and to this index with it; `replace` makes a new list), so an append
 * checks its ids without reading the session.
 */
const idPositions = new WeakMap<string[], StoredIds>();

/** A session's entry positions by id, and the parent ids its entries name that it lacks. */
interface StoredIds {
  positions: Map<string, number>;
  dangling: Set<string>;
}

function storedIds(lines: string[]): StoredIds {
  let ids = idPositions.get(lines);
  if (ids === undefined) {
    const positions = new Map<string, number>();
    const parents = new Set<string>();
    for (let i = 0; i < lines.length; i++) {
      const entry = entryOfLine(lines[i]);
      if (typeof entry?.id === "string") positions.set(entry.id, i);
      if (typeof entry?.parentId === "string") parents.add(entry.parentId);
    }
    ids = { positions, dangling: new Set([...parents].filter((id) => !positions.has(id))) };
    idPositions.set(lines, ids);
  }
  return ids;
}

/** A stored line's `id` and `parentId`, or `undefined` for a damaged line. */
function entryOfLine(line: string): { id?: unknown; parentId?: unknown } | undefined {
  try {
    return JSON.parse(line) ?? undefined;
  } catch {
    return undefined;
  }
}
