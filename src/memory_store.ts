/**
 * A {@link SessionStore} that keeps sessions in memory as JSON text (no I/O). Entries are
 * stored as text, so callers can never alias the store's data, and an imported entry is
 * exported byte for byte.
 *
 * @module
 */
import { SessionExistsError, SessionNotFoundError } from "./errors.ts";
import { rememberRawJson, serializeSessionJsonl, toJsonLine } from "./jsonl.ts";
import {
  applyEntryToListing,
  emptyListingState,
  type ListingState,
  listingToInfo,
} from "./listing.ts";
import { CURRENT_SESSION_VERSION, type SessionEntry, type SessionHeader } from "./schema.ts";
import {
  assertOpen,
  assertStorableEntries,
  assertValidSessionId,
  type CreatedSession,
  finishListing,
  type ListOptions,
  type LoadedSession,
  type SessionInfo,
  type SessionStore,
  storageOperation,
  throwIfAborted,
} from "./store.ts";

interface StoredSession {
  header: string;
  entries: string[];
  listing: ListingState;
}

function toStored(header: SessionHeader, entries: readonly SessionEntry[]): StoredSession {
  const listing = emptyListingState();
  for (const entry of entries) applyEntryToListing(listing, entry);
  return { header: toJsonLine(header), entries: entries.map(toJsonLine), listing };
}

function parseKept<T extends object>(text: string): T {
  const value = JSON.parse(text) as T;
  rememberRawJson(value, text);
  return value;
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
  readonly #sessions = new Map<string, StoredSession>();
  #closed = false;

  async create(
    header: SessionHeader,
    entries: readonly SessionEntry[] = [],
  ): Promise<CreatedSession> {
    await storageOperation("create", () => this.seed(header, entries));
    return { id: header.id };
  }

  /**
   * Synchronously add a session (no validation of the id's uniqueness beyond the map):
   * lets `SessionManager.inMemory()` stay synchronous.
   */
  seed(header: SessionHeader, entries: readonly SessionEntry[] = []): void {
    assertOpen(this.#closed, this.kind);
    assertValidSessionId(header.id);
    assertStorableEntries(entries);
    if (this.#sessions.has(header.id)) throw new SessionExistsError(header.id);
    this.#sessions.set(header.id, toStored(header, entries));
  }

  async append(sessionId: string, entries: readonly SessionEntry[]): Promise<void> {
    assertOpen(this.#closed, this.kind);
    assertStorableEntries(entries);
    const session = this.#get(sessionId);
    const lines = await storageOperation("append", () => entries.map(toJsonLine)); // all or nothing
    session.entries.push(...lines);
    for (const entry of entries) applyEntryToListing(session.listing, entry);
  }

  async load(sessionId: string): Promise<LoadedSession> {
    assertOpen(this.#closed, this.kind);
    const session = this.#get(sessionId);
    return {
      header: parseKept<SessionHeader>(session.header),
      entries: session.entries.map((line) => parseKept<SessionEntry>(line)),
      sourceVersion: CURRENT_SESSION_VERSION,
      upgraded: false,
    };
  }

  async replace(header: SessionHeader, entries: readonly SessionEntry[]): Promise<void> {
    assertOpen(this.#closed, this.kind);
    assertStorableEntries(entries);
    const session = this.#get(header.id);
    const listing = emptyListingState();
    for (const entry of entries) applyEntryToListing(listing, entry);
    Object.assign(session, {
      header: toJsonLine(header),
      entries: entries.map(toJsonLine),
      listing,
    });
  }

  async updateHeader(header: SessionHeader): Promise<void> {
    assertOpen(this.#closed, this.kind);
    const session = this.#get(header.id);
    session.header = await storageOperation("updateHeader", () => toJsonLine(header));
  }

  async list(options: ListOptions = {}): Promise<SessionInfo[]> {
    assertOpen(this.#closed, this.kind);
    const rows: SessionInfo[] = [];
    const total = this.#sessions.size;
    for (const session of this.#sessions.values()) {
      throwIfAborted(options.signal);
      rows.push(listingToInfo(JSON.parse(session.header), session.listing));
      options.onProgress?.(rows.length, total);
    }
    return finishListing(rows, options);
  }

  async delete(sessionId: string): Promise<void> {
    assertOpen(this.#closed, this.kind);
    this.#sessions.delete(sessionId);
  }

  async has(sessionId: string): Promise<boolean> {
    assertOpen(this.#closed, this.kind);
    return this.#sessions.has(sessionId);
  }

  async exportJsonl(sessionId: string): Promise<string> {
    const { header, entries } = await this.load(sessionId);
    return serializeSessionJsonl(header, entries);
  }

  async close(): Promise<void> {
    this.#closed = true;
  }

  #get(sessionId: string): StoredSession {
    const session = this.#sessions.get(sessionId);
    if (!session) throw new SessionNotFoundError(sessionId);
    return session;
  }
}
