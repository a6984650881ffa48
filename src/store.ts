/**
 * The one storage seam. Every driver (memory, SQLite, JSONL files, OPFS, IndexedDB, File
 * System Access) implements {@link SessionStore}; the manager, viewer and edge handler
 * touch storage only through it.
 *
 * Contract every driver keeps (checked by `tests/conformance/`):
 * - `create` rejects with `SessionExistsError` when the id exists, and writes the header
 *   and initial entries all-or-nothing.
 * - `append` resolves only once the entries are committed (durable for persistent stores),
 *   writes all of them or none, and on failure rejects with `SessionStorageError` (or a
 *   `SessionNotFoundError` for an unknown id) having committed nothing.
 * - `load` returns format-4 data (older formats upgraded in memory), entries in commit
 *   order, or rejects with `SessionNotFoundError` / `SessionFormatError`.
 * - `list` never parses whole sessions when it can avoid it; unloadable sessions are left
 *   out and reported through `onSkipped`.
 * - Stores never mutate entry objects passed in or handed out.
 * - A value JSON cannot store as an object is refused with `SessionStorageError` before
 *   anything is written. The record stores (memory, IndexedDB, SQLite) get this, decoding,
 *   export and the listing fold from one module, `_records.ts`.
 *
 * @module
 */
import { InvalidArgumentError } from "./errors.ts";
import type { SessionInfo } from "./_listing.ts";
import { serializeSessionJsonl } from "./jsonl.ts";
import type { SessionEntry, SessionHeader } from "./schema.ts";
import type { SearchHit, SearchOptions } from "./search.ts";
import {
  isDateMs,
  isStorableId,
  MAX_NESTING_DEPTH,
  nestsDeeperThan,
  UNSTORABLE_ID_MESSAGE,
} from "./_wellformed.ts";

export type { SessionInfo } from "./_listing.ts";
export {
  asStorageError,
  cloneJson,
  finishListing,
  storageOperation,
  throwIfAborted,
} from "./_store_helpers.ts";

/**
 * A session as loaded from a store. The entries are the data, not the stored text: for a
 * byte-identical copy use `exportJsonl` / {@link exportSessionJsonl} (persistent stores do
 * not keep every line's text alive beside its object on load; it doubled load memory).
 *
 * @example
 * ```ts
 * import { type LoadedSession, type SessionStore } from "@mu/sessions";
 * declare const store: SessionStore;
 * const loaded: LoadedSession = await store.load("s1");
 * if (loaded.upgraded) await store.replace(loaded.header, loaded.entries); // persist the upgrade
 * ```
 */
export interface LoadedSession {
  header: SessionHeader;
  /** Entries in commit (file) order. */
  entries: SessionEntry[];
  /** The version the stored data had before any in-memory upgrade (1-4). */
  sourceVersion: number;
  /**
   * True when the stored data is an older format that was upgraded in memory. A writer
   * must persist the upgrade (`SessionStore.replace`) before appending.
   */
  upgraded: boolean;
  /** JSONL file location, when the store keeps one file per session. */
  path?: string;
}

/**
 * Why a listing left a session out.
 *
 * @example
 * ```ts
 * import { type SessionStore, type SkippedSession } from "@mu/sessions";
 * declare const store: SessionStore;
 * const skipped: SkippedSession[] = [];
 * await store.list({ onSkipped: (s) => skipped.push(s) });
 * for (const s of skipped) console.warn(`${s.path}: ${s.error.message}`);
 * ```
 */
export interface SkippedSession {
  /** File path or id of the unloadable session. */
  path: string;
  /** The error that made it unloadable (usually a `SessionFormatError`). */
  error: Error;
}

/**
 * Options for {@link SessionStore.list}.
 *
 * @example
 * ```ts
 * import { type ListOptions, MemorySessionStore } from "@mu/sessions";
 * const options: ListOptions = { cwd: "/project", signal: AbortSignal.timeout(5_000) };
 * const rows = await new MemorySessionStore().list(options); // newest first
 * ```
 */
export interface ListOptions {
  /** Only sessions whose header `cwd` equals this. */
  cwd?: string;
  /** Include classified workflow sessions (excluded by default). */
  includeInternal?: boolean;
  /** Abort the listing; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called as sessions are read: `(loaded, total)`, ending with `total/total`. */
  onProgress?: (loaded: number, total: number) => void;
  /** Called once for every session left out because it cannot be loaded. */
  onSkipped?: (skipped: SkippedSession) => void;
  /**
   * Called with a listed session's `changeToken(id)` as the listing read it, by a store
   * that learns it while listing anyway (a JSONL folder stats every file, a server reads
   * the session's row): a caller that wants both (sync) then need not ask for every
   * session's token in a second round. Sessions not reported are asked for as usual.
   */
  onChangeToken?: (sessionId: string, token: string) => void;
}

/**
 * Options for {@link SessionStore.replace}.
 *
 * @example
 * ```ts
 * import { type ReplaceOptions, type SessionStore } from "@mu/sessions";
 * declare const store: SessionStore;
 * const loaded = await store.load("s1");
 * const options: ReplaceOptions = { ifStillOlderFormat: true }; // lose no race with another upgrader
 * if (loaded.upgraded) await store.replace(loaded.header, loaded.entries, options);
 * ```
 */
export interface ReplaceOptions {
  /** Replace only if the stored session is still in an older format (persisting an upgrade). */
  ifStillOlderFormat?: boolean;
}

/**
 * Where a created session lives.
 *
 * @example
 * ```ts
 * import { type CreatedSession, MemorySessionStore } from "@mu/sessions";
 * const created: CreatedSession = await new MemorySessionStore().create(
 *   { type: "session", version: 4, id: "s1", createdAt: new Date().toISOString(), cwd: "/p" },
 * );
 * created.id; // "s1" (and `path` for file-per-session stores)
 * ```
 */
export interface CreatedSession {
  id: string;
  /** JSONL file location, when the store keeps one file per session. */
  path?: string;
}

/**
 * A session store. Small and async; optional capabilities are feature-tested.
 *
 * @example
 * ```ts
 * import { MemorySessionStore } from "@mu/sessions";
 * const store = new MemorySessionStore();
 * await store.create({ type: "session", version: 4, id: "s1", createdAt: new Date().toISOString(), cwd: "/p" });
 * const rows = await store.list();
 * ```
 */
export interface SessionStore {
  /** Short driver name: "memory", "sqlite", "jsonl", "indexeddb", ... */
  readonly kind: string;
  /** The JSONL directory of a file-per-session store; undefined for other stores. */
  readonly directory?: string;

  /** Create a session with a format-4 header and optional initial entries (atomic). */
  create(header: SessionHeader, entries?: readonly SessionEntry[]): Promise<CreatedSession>;
  /** Append entries to an existing session (atomic per call). */
  append(sessionId: string, entries: readonly SessionEntry[]): Promise<void>;
  /** Load a session by exact id. */
  load(sessionId: string): Promise<LoadedSession>;
  /**
   * Atomically replace a session's header and all its entries (persists upgrades). With
   * `ifStillOlderFormat`, a store that can hold older formats replaces only while the
   * stored data still needs the upgrade, and otherwise rejects with `SessionStorageError`
   * (another writer upgraded it first; load again). Format-4-only stores ignore the option.
   */
  replace(
    header: SessionHeader,
    entries: readonly SessionEntry[],
    options?: ReplaceOptions,
  ): Promise<void>;
  /** Replace only the header (e.g. workflow markers); entries are untouched. */
  updateHeader(header: SessionHeader): Promise<void>;
  /** List sessions, newest first. */
  list(options?: ListOptions): Promise<SessionInfo[]>;
  /** Delete a session; deleting an id that does not exist does nothing. */
  delete(sessionId: string): Promise<void>;
  /** Whether a session with this id exists. */
  has(sessionId: string): Promise<boolean>;
  /** Release resources; later calls reject with `SessionStorageError`. */
  close(): Promise<void>;

  /** Optional: the session as format-4 JSONL, byte-identical for unchanged imported entries. */
  exportJsonl?(sessionId: string): Promise<string>;
  /**
   * Optional: `load` whose entries keep their stored JSON text (`toJsonLine` gives it back
   * byte for byte), for a store whose `exportJsonl` would parse to join them: a copy then
   * parses the session once instead of twice.
   */
  loadExact?(sessionId: string): Promise<LoadedSession>;
  /**
   * Optional: the session as `loadExact` gives it, in parts of about `batchChars`
   * characters of entry JSON (default 4 MiB) in stored order, so a copy holds one batch and
   * not the session: each part has the header and the next entries; there is at least one.
   * A session in an older format comes upgraded in memory as one part (`upgraded`). Each
   * part is checked as `load` checks the session, so a bad line rejects the iteration after
   * the parts before it.
   */
  streamExact?(
    sessionId: string,
    options?: { batchChars?: number },
  ): Promise<AsyncIterable<LoadedSession>>;
  /**
   * Optional: a cheap token that changes whenever the session changes (without an id:
   * whenever anything in the store changes), including writes by other processes. Servers
   * poll it to tell open viewers about appends without reading the session.
   */
  changeToken?(sessionId?: string): Promise<string>;
  /**
   * Optional: `changeToken(id)` of many sessions at once (undefined for an id not stored),
   * in the order asked; a server answers in one query what would be one round trip each.
   */
  changeTokens?(sessionIds: readonly string[]): Promise<(string | undefined)[]>;
  /**
   * Optional: full-text search from an index. Must return what `scanSearch` (the reference,
   * used for stores without it) returns on the same data: build it from `prepareSearch`,
   * `matchFolded` and `TopHits` (`src/search.ts`) and let the index only narrow candidates.
   * Call it through `searchSessions`.
   */
  search?(query: string, options?: SearchOptions): Promise<SearchHit[]>;
}

/**
 * The longest session id accepted.
 *
 * @example
 * ```ts
 * import { assertValidSessionId, InvalidArgumentError } from "@mu/sessions";
 * import { MAX_SESSION_ID_LENGTH } from "./store.ts";
 * try {
 *   assertValidSessionId("x".repeat(MAX_SESSION_ID_LENGTH + 1));
 * } catch (e) {
 *   e instanceof InvalidArgumentError; // true
 * }
 * ```
 */
export const MAX_SESSION_ID_LENGTH = 256;

/**
 * Reject ids that could escape a folder or break a file name: empty, longer than
 * {@link MAX_SESSION_ID_LENGTH}, containing `/`, `\`, control characters, or equal to
 * `.` / `..`.
 *
 * @example
 * ```ts
 * import { assertValidSessionId } from "@mu/sessions";
 * assertValidSessionId("2f0c-custom.id"); // ok
 * ```
 */
export function assertValidSessionId(id: unknown): asserts id is string {
  if (typeof id !== "string" || id.length === 0) {
    throw new InvalidArgumentError("Session id must be a non-empty string");
  }
  if (id.length > MAX_SESSION_ID_LENGTH) {
    throw new InvalidArgumentError(`Session id is longer than ${MAX_SESSION_ID_LENGTH} characters`);
  }
  if (/[/\\]/.test(id) || !isStorableId(id) || id === "." || id === "..") {
    throw new InvalidArgumentError(
      `Session id ${
        JSON.stringify(id)
      } contains a path separator, a control character or a lone surrogate`,
    );
  }
}

/**
 * Reject, before anything is written, entries some store could not keep exactly: an `id` or
 * `parentId` with a control character or lone surrogate, a message `timestamp` outside
 * the `Date` range, or nesting deeper than `MAX_NESTING_DEPTH` (see `_wellformed.ts`). Every driver calls it at the seam, so all agree.
 *
 * @example
 * ```ts
 * import { assertStorableEntries } from "./store.ts";
 * assertStorableEntries([{ type: "label", id: "a", parentId: null, timestamp: "t", targetId: "b" }]); // ok
 * ```
 */
export function assertStorableEntries(entries: readonly SessionEntry[]): void {
  for (const entry of entries) {
    for (const key of ["id", "parentId"] as const) {
      const value = (entry as { id?: unknown; parentId?: unknown })[key];
      if (typeof value === "string" && !isStorableId(value)) {
        throw new InvalidArgumentError(
          `Entry ${key} ${JSON.stringify(value)} ${UNSTORABLE_ID_MESSAGE}`,
        );
      }
    }
    if (nestsDeeperThan(entry, MAX_NESTING_DEPTH)) {
      throw new InvalidArgumentError(
        `Entry ${
          JSON.stringify(entry.id)
        } nests arrays and objects deeper than ${MAX_NESTING_DEPTH} levels`,
      );
    }
    const time = (entry as { message?: { timestamp?: unknown } }).message?.timestamp;
    if (typeof time === "number" && !isDateMs(time)) {
      throw new InvalidArgumentError(
        `Entry ${
          JSON.stringify(entry.id)
        } has a message timestamp (${time}) outside the Date range`,
      );
    }
  }
}

/**
 * A session as format-4 JSONL from any store: the store's own `exportJsonl` when it has one
 * (byte-identical for unchanged imported entries), else serialised from `load`.
 *
 * @example
 * ```ts
 * import { exportSessionJsonl, MemorySessionStore } from "@mu/sessions";
 * const store = new MemorySessionStore();
 * await store.create({ type: "session", version: 4, id: "s", createdAt: "2026-01-01T00:00:00.000Z", cwd: "/p" });
 * await exportSessionJsonl(store, "s"); // '{"type":"session",...}\n'
 * ```
 */
export async function exportSessionJsonl(store: SessionStore, sessionId: string): Promise<string> {
  if (store.exportJsonl) return await store.exportJsonl(sessionId);
  const { header, entries } = await store.load(sessionId);
  return serializeSessionJsonl(header, entries);
}
