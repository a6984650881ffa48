/**
 * The IndexedDB store's on-disk layout: the session record, the array keys (session,
 * entry chunk, entry id), how lines are packed into bounded chunks, and the connection
 * (strict durability, giving way to other tabs). Separate from `indexeddb.ts` so the store
 * class reads as the `SessionStore` operations while the layout it relies on (described in
 * that module's comment) lives in one place.
 *
 * @module
 */
import { promisifyRequest, type UseStore } from "idb-keyval";
import type { ListingState } from "../../src/_listing.ts";

export interface SessionRecord {
  header: string;
  listing: ListingState;
  entries: number;
  chunks: number;
  lastChunkChars: number;
  lastChunkLines: number;
  /**
   * Whether every entry id has its `idKey` record (where its line is). Sessions written
   * before ids were indexed get them on their first append.
   */
  idsIndexed?: boolean;
  /**
   * Parent ids stored entries name that the session lacks, and the last entry's id
   * (`_idb_links.ts`); absent in sessions written before they were kept.
   */
  dangling?: string[];
  lastId?: string;
}

/** Where an entry's line is: chunk number and position in the chunk. */
export type LinePlace = [chunk: number, line: number];

/** A chunk is closed once it holds this many lines or characters. */
export const CHUNK_LINES = 256;
export const CHUNK_CHARS = 256 * 1024;

export const sessionKey = (id: string): IDBValidKey => ["s", id];
export const chunkKey = (id: string, n: number): IDBValidKey => ["e", id, n];
export const ALL_SESSIONS = () => IDBKeyRange.bound(["s"], ["s", []]);
export const chunksOf = (id: string) => IDBKeyRange.bound(["e", id], ["e", id, []]);
export const idKey = (id: string, entryId: string): IDBValidKey => ["i", id, entryId];
export const idsOf = (id: string) => IDBKeyRange.bound(["i", id], ["i", id, []]);

/**
 * idb-keyval's `createStore`, plus what a session store needs from the connection: strict
 * durability for writes, closing it, and giving way when another tab deletes or upgrades.
 */
export function openKeyval(factory: IDBFactory, dbName: string, storeName: string) {
  let db: Promise<IDBDatabase> | undefined;
  const connect = () => {
    if (db) return db;
    const request = factory.open(dbName);
    request.onupgradeneeded = () => request.result.createObjectStore(storeName);
    db = promisifyRequest(request).then((opened) => {
      // Another tab deletes or upgrades the database: let it, and reconnect on next use.
      opened.onversionchange = () => {
        opened.close();
        db = undefined;
      };
      opened.onclose = () => db = undefined;
      return opened;
    });
    db.catch(() => db = undefined);
    return db;
  };
  const use: UseStore = (mode, callback) =>
    connect().then((opened) =>
      callback(
        opened.transaction(storeName, mode, {
          durability: mode === "readonly" ? "default" : "strict",
        })
          .objectStore(storeName),
      )
    );
  const close = async () => {
    const pending = db;
    db = undefined;
    if (pending) (await pending.catch(() => undefined))?.close();
  };
  return { use, close };
}

export function packLines(
  record: SessionRecord,
  last: string[] | undefined,
  lines: readonly string[],
  places: LinePlace[] = [],
): Map<number, string[]> {
  const touched = new Map<number, string[]>();
  let n = record.chunks - 1;
  let chunk = last;
  for (const line of lines) {
    if (
      !chunk || record.lastChunkLines >= CHUNK_LINES ||
      (record.lastChunkLines > 0 && record.lastChunkChars + line.length > CHUNK_CHARS)
    ) {
      chunk = [];
      n++;
      record.chunks = n + 1;
      record.lastChunkChars = 0;
      record.lastChunkLines = 0;
    }
    places.push([n, chunk.length]);
    chunk.push(line);
    touched.set(n, chunk);
    record.lastChunkChars += line.length;
    record.lastChunkLines++;
    record.entries++;
  }
  return touched;
}

export function newRecord(header: string, listing: ListingState): SessionRecord {
  return {
    header,
    listing,
    entries: 0,
    chunks: 0,
    lastChunkChars: 0,
    lastChunkLines: 0,
    idsIndexed: true,
  };
}
