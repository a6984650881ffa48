/**
 * A {@link SessionStore} on IndexedDB (through `idb-keyval`): one key-value object store per
 * database. Works in browsers (page or worker) and, with `fake-indexeddb`, in Deno and Node.
 *
 * Layout (array keys sort by session, then chunk number):
 * - `["s", id]` → `{ header, listing, entries, chunks, lastChunkChars, lastChunkLines }`:
 *   the raw header JSON and the listing fold state (`src/_listing.ts`), so `list` reads only
 *   these small records and never an entry.
 * - `["e", id, n]` → `string[]`: raw entry JSON lines, in commit order. An append extends
 *   the last chunk while it is small and otherwise starts a new one, so an append rewrites
 *   at most one bounded chunk (O(entry)), and a load reads a few large records.
 *
 * Raw JSON text is kept, so `exportJsonl` of an imported session is byte-identical. Each
 * write is one IndexedDB transaction with `durability: "strict"` (Chrome defaults to
 * relaxed, which would resolve before the data is on disk), so it commits all or nothing.
 *
 * @module
 */
import { get, promisifyRequest, type UseStore } from "idb-keyval";
import {
  SessionExistsError,
  SessionFormatError,
  SessionNotFoundError,
  SessionStorageError,
} from "../../src/errors.ts";
import { toJsonLine } from "../../src/jsonl.ts";
import {
  decodeListing,
  decodeSession,
  encodeEntries,
  encodeSession,
  entryIdOfLine,
  foldEntries,
  listRecords,
  recordsToJsonl,
} from "../../src/_records.ts";
import type { SessionEntry, SessionHeader } from "../../src/schema.ts";
import { guardStoreClass, newEntries } from "../../src/guarded_store.ts";
import {
  type CreatedSession,
  type ListOptions,
  type LoadedSession,
  type SessionInfo,
  type SessionStore,
  storageOperation,
} from "../../src/store.ts";
import {
  ALL_SESSIONS,
  CHUNK_LINES,
  chunkKey,
  chunksOf,
  idKey,
  idsOf,
  type LinePlace,
  newRecord,
  openKeyval,
  packLines,
  sessionKey,
  type SessionRecord,
} from "./_idb_layout.ts";
import { appendLinks, linksOfNewSession } from "./_idb_links.ts";

/**
 * Options for {@link IndexedDbSessionStore}.
 *
 * @example
 * ```ts
 * import { IDBFactory } from "fake-indexeddb";
 * import { IndexedDbSessionStore } from "@mu/sessions/stores/indexeddb";
 * const store = await IndexedDbSessionStore.open({ dbName: "test", indexedDB: new IDBFactory() });
 * ```
 */
export interface IndexedDbStoreOptions {
  /** Database name (default `"mu-sessions"`). */
  dbName?: string;
  /** Object store name inside it (default `"sessions"`). */
  storeName?: string;
  /** The IndexedDB factory (default `globalThis.indexedDB`; tests pass a fake one). */
  indexedDB?: IDBFactory;
}

/**
 * IndexedDB session store.
 *
 * @example
 * ```ts
 * import { IndexedDbSessionStore } from "@mu/sessions/stores/indexeddb";
 * const store = await IndexedDbSessionStore.open({ dbName: "my-viewer" });
 * await store.create({ type: "session", version: 4, id: "s1", createdAt: new Date().toISOString(), cwd: "/p" });
 * console.log((await store.list()).length); // 1
 * await store.close();
 * ```
 */
export class IndexedDbSessionStore implements SessionStore {
  readonly kind = "indexeddb";
  /** The database name, e.g. to delete it with {@link deleteIndexedDbSessionStore}. */
  readonly dbName: string;
  readonly #use: UseStore;
  readonly #closeDb: () => Promise<void>;
  #closed = false;

  /** Connects lazily; prefer {@link open}, which reports a failing database at once. */
  constructor(options: IndexedDbStoreOptions = {}) {
    const factory = options.indexedDB ?? globalThis.indexedDB;
    if (!factory) throw new SessionStorageError("IndexedDB is not available in this runtime");
    this.dbName = options.dbName ?? "mu-sessions";
    const { use, close } = openKeyval(factory, this.dbName, options.storeName ?? "sessions");
    this.#use = use;
    this.#closeDb = close;
  }

  /** Open (creating if needed) the database; rejects with `SessionStorageError`. */
  static async open(options: IndexedDbStoreOptions = {}): Promise<IndexedDbSessionStore> {
    const store = await storageOperation(
      "open IndexedDB store",
      () => new IndexedDbSessionStore(options),
    );
    await store.#tx("readonly", "open IndexedDB store", async () => {});
    return store;
  }

  async create(
    header: SessionHeader,
    entries: readonly SessionEntry[] = [],
  ): Promise<CreatedSession> {
    const records = encodeSession(header, entries);
    await this.#tx("readwrite", "create", async (os) => {
      if (await promisifyRequest(os.getKey(sessionKey(header.id))) !== undefined) {
        throw new SessionExistsError(header.id);
      }
      const record = newRecord(records.header, records.listing);
      linksOfNewSession(record, entries);
      this.#putSession(os, header.id, record, undefined, entries, records.entries);
    });
    return { id: header.id };
  }

  async append(sessionId: string, given: readonly SessionEntry[]): Promise<void> {
    const givenLines = encodeEntries(given);
    await this.#tx("readwrite", "append", async (os) => {
      const record = await this.#record(os, sessionId);
      if (given.length === 0) return;
      const stored = await this.#storedLines(os, sessionId, record, given);
      const entries = newEntries(sessionId, given, (id) => stored.get(id));
      if (entries.length === 0) return;
      await appendLinks(os, sessionId, record, entries);
      const fresh = new Set(entries);
      const lines = entries.length === given.length
        ? givenLines
        : givenLines.filter((_, i) => fresh.has(given[i]));
      const last = record.chunks > 0 && record.lastChunkLines < CHUNK_LINES
        ? await promisifyRequest<string[]>(os.get(chunkKey(sessionId, record.chunks - 1)))
        : undefined;
      record.listing = decodeListing(record.listing, { source: `indexeddb:${sessionId}` });
      foldEntries(record.listing, entries);
      this.#putSession(os, sessionId, record, last, entries, lines);
    });
  }

  async load(sessionId: string): Promise<LoadedSession> {
    const { header, lines } = await this.#read("load", sessionId);
    return decodeSession(header, lines, { source: `indexeddb:${sessionId}` });
  }

  /** The session as format-4 JSONL, joined from the stored raw texts (nothing is parsed). */
  async exportJsonl(sessionId: string): Promise<string> {
    const { header, lines } = await this.#read("exportJsonl", sessionId);
    return recordsToJsonl(header, lines);
  }

  async replace(header: SessionHeader, entries: readonly SessionEntry[]): Promise<void> {
    const records = encodeSession(header, entries);
    await this.#tx("readwrite", "replace", async (os) => {
      await this.#record(os, header.id);
      os.delete(chunksOf(header.id));
      os.delete(idsOf(header.id));
      const record = newRecord(records.header, records.listing);
      linksOfNewSession(record, entries);
      this.#putSession(os, header.id, record, undefined, entries, records.entries);
    });
  }

  async updateHeader(header: SessionHeader): Promise<void> {
    const headerLine = toJsonLine(header, "header");
    await this.#tx("readwrite", "updateHeader", async (os) => {
      const record = await this.#record(os, header.id);
      os.put({ ...record, header: headerLine }, sessionKey(header.id));
    });
  }

  async list(options: ListOptions = {}): Promise<SessionInfo[]> {
    const records = await this.#tx("readonly", "list", async (os) => {
      const keys = promisifyRequest<IDBValidKey[]>(os.getAllKeys(ALL_SESSIONS()));
      const values = await promisifyRequest<(SessionRecord | undefined)[]>(
        os.getAll(ALL_SESSIONS()),
      );
      return (await keys).map((key, i) => ({
        id: String((key as IDBValidKey[])[1]),
        header: values[i]?.header,
        listing: values[i]?.listing,
      }));
    });
    return listRecords(records, "indexeddb", options);
  }

  async delete(sessionId: string): Promise<void> {
    await this.#tx("readwrite", "delete", async (os) => {
      os.delete(sessionKey(sessionId));
      os.delete(chunksOf(sessionId));
      os.delete(idsOf(sessionId));
    });
  }

  async has(sessionId: string): Promise<boolean> {
    return await storageOperation(
      "has",
      async () => (await get(sessionKey(sessionId), this.#use)) !== undefined,
    );
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#closeDb();
  }

  /**
   * Write a session record, the chunks `lines` (the entries' texts) touch and where each
   * entry id's line is, in the caller's transaction.
   */
  #putSession(
    os: IDBObjectStore,
    sessionId: string,
    record: SessionRecord,
    last: string[] | undefined,
    entries: readonly SessionEntry[],
    lines: readonly string[],
  ): void {
    const places: LinePlace[] = [];
    for (const [n, chunk] of packLines(record, last, lines, places)) {
      os.put(chunk, chunkKey(sessionId, n));
    }
    entries.forEach((entry, i) => os.put(places[i], idKey(sessionId, entry.id)));
    os.put(record, sessionKey(sessionId));
  }

  /**
   * The stored lines of those of `entries`' ids the session already has: one keyed read
   * per id and one per chunk holding a hit. A session written before ids were indexed is
   * indexed here once (reading its chunks) and marked.
   */
  async #storedLines(
    os: IDBObjectStore,
    sessionId: string,
    record: SessionRecord,
    entries: readonly SessionEntry[],
  ): Promise<Map<string, string>> {
    if (!record.idsIndexed) await this.#indexIds(os, sessionId, record);
    const places = await Promise.all(
      entries.map((entry) =>
        promisifyRequest<LinePlace | undefined>(os.get(idKey(sessionId, entry.id)))
      ),
    );
    const stored = new Map<string, string>();
    const chunks = new Map<number, Promise<string[] | undefined>>();
    for (const [i, place] of places.entries()) {
      if (!place) continue;
      let chunk = chunks.get(place[0]);
      if (!chunk) {
        chunks.set(place[0], chunk = promisifyRequest(os.get(chunkKey(sessionId, place[0]))));
      }
      const line = (await chunk)?.[place[1]];
      if (typeof line === "string") stored.set(entries[i].id, line);
    }
    return stored;
  }

  async #indexIds(os: IDBObjectStore, sessionId: string, record: SessionRecord): Promise<void> {
    const keys = await promisifyRequest<IDBValidKey[]>(os.getAllKeys(chunksOf(sessionId)));
    const chunks = await promisifyRequest<unknown[]>(os.getAll(chunksOf(sessionId)));
    chunks.forEach((chunk, i) => {
      const n = (keys[i] as IDBValidKey[])[2] as number;
      if (!Array.isArray(chunk)) return; // loading reports the damage
      chunk.forEach((line, at) => {
        const id = entryIdOfLine(line);
        if (id !== undefined) os.put([n, at] satisfies LinePlace, idKey(sessionId, id));
      });
    });
    record.idsIndexed = true;
  }

  async #record(os: IDBObjectStore, sessionId: string): Promise<SessionRecord> {
    const record = await promisifyRequest<SessionRecord | undefined>(os.get(sessionKey(sessionId)));
    if (!record) throw new SessionNotFoundError(sessionId);
    return record;
  }

  /** Header and all entry lines of one session, from one snapshot. */
  #read(what: string, sessionId: string): Promise<{ header: string; lines: string[] }> {
    return this.#tx("readonly", what, async (os) => {
      const chunks = promisifyRequest<string[][]>(os.getAll(chunksOf(sessionId)));
      const record = await this.#record(os, sessionId);
      const lines: string[] = [];
      for (const chunk of await chunks) {
        if (!Array.isArray(chunk)) {
          throw new SessionFormatError("stored entry chunk is not a list of lines", {
            line: lines.length + 2,
            source: `indexeddb:${sessionId}`,
          });
        }
        for (const line of chunk) lines.push(line);
      }
      return { header: record.header, lines };
    });
  }

  /**
   * Run `body` in one transaction and resolve once it has committed. A throw aborts it, so
   * nothing `body` wrote is kept.
   */
  #tx<T>(mode: IDBTransactionMode, what: string, body: (os: IDBObjectStore) => Promise<T>) {
    return storageOperation(what, () =>
      this.#use(mode, async (os) => {
        const tx = os.transaction;
        const committed = promisifyRequest(tx).catch((error: unknown) => {
          const detail = (error as Error | null)?.name ?? "aborted";
          throw new SessionStorageError(`${what} failed: transaction ${detail}`, { cause: error });
        });
        let result: T;
        try {
          result = await body(os);
        } catch (error) {
          committed.catch(() => {});
          try {
            tx.abort();
          } catch {
            // Already finished or aborted by the browser; the original error matters.
          }
          throw error;
        }
        await committed;
        return result;
      }));
  }
}

guardStoreClass(IndexedDbSessionStore);

/**
 * Delete a store's whole database (close its stores first; open connections elsewhere are
 * asked to close).
 *
 * @example
 * ```ts
 * import { deleteIndexedDbSessionStore } from "@mu/sessions/stores/indexeddb";
 * await deleteIndexedDbSessionStore("my-viewer");
 * ```
 */
export async function deleteIndexedDbSessionStore(
  dbName = "mu-sessions",
  factory: IDBFactory = globalThis.indexedDB,
): Promise<void> {
  await storageOperation(
    `delete IndexedDB database ${dbName}`,
    () => promisifyRequest(factory.deleteDatabase(dbName)),
  );
}
