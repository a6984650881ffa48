/**
 * Storage-fault doubles for the conformance subjects: each wraps the layer a driver writes
 * through (the memory store's map, a SQLite database handle, IndexedDB's object store) so a
 * test can make the next write fail the way real storage does (an untyped I/O error), and
 * check that the store turns it into a typed error and loses nothing. Runtime-agnostic.
 *
 * @example
 * ```ts
 * import { memorySubject } from "./faults.ts";
 * conformance((name, fn) => Deno.test(name, fn), memorySubject("memory"));
 * ```
 *
 * @module
 */
import { MemorySessionStore } from "../../core.ts";
import type { SessionRecords } from "../../src/_records.ts";
import type { SqliteDatabase, SqliteStatement } from "../../stores/sqlite/_schema.ts";
import type { StoreSubject } from "./harness.ts";

/** What every injected fault throws: a plain error, as an I/O layer would. */
export const INJECTED = "injected storage fault";

/** A one-shot switch: `arm()` makes the next `trip()` throw. */
export class Fault {
  #armed = false;
  /** Make the next write fail. */
  arm(): void {
    this.#armed = true;
  }
  /** Throw (once) when armed. */
  trip(): void {
    if (!this.#armed) return;
    this.#armed = false;
    throw new Error(INJECTED);
  }
}

/** A session map whose next `set` or `delete` fails (the memory store's commit point). */
export class FaultyMap<V> extends Map<string, V> {
  readonly fault = new Fault();
  override set(key: string, value: V): this {
    this.fault?.trip(); // undefined while Map's constructor runs
    return super.set(key, value);
  }
  override delete(key: string): boolean {
    this.fault.trip();
    return super.delete(key);
  }
}

/**
 * The memory store as a subject: stores over one shared map (so it reopens), with its
 * faults and damage.
 */
export function memorySubject(name: string): StoreSubject {
  return {
    name,
    open: async () => {
      const sessions = new FaultyMap<SessionRecords>();
      return {
        store: new MemorySessionStore({ sessions }),
        reopen: async () => new MemorySessionStore({ sessions }),
        failNextWrite: () => sessions.fault.arm(),
        damage: async (id) => {
          const records = sessions.get(id)!;
          Map.prototype.set.call(sessions, id, { ...records, header: '{"type":"session",' });
        },
      };
    },
  };
}

/**
 * A SQLite handle whose next data-changing statement fails (inside the store's
 * transaction, which must roll back).
 */
export function faultySqlite(db: SqliteDatabase): { db: SqliteDatabase; fault: Fault } {
  const fault = new Fault();
  const wrap = (statement: SqliteStatement): SqliteStatement => ({
    run: (...params) => {
      fault.trip();
      return statement.run(...params);
    },
    all: (...params) => statement.all(...params),
    get: (...params) => statement.get(...params),
  });
  return {
    fault,
    db: {
      exec: (sql) => db.exec(sql),
      prepare: (sql) => wrap(db.prepare(sql)),
      close: () => db.close(),
    },
  };
}

/**
 * Make the next IndexedDB `put` (in this realm, on any database) throw, as a full disk
 * (`QuotaExceededError`) does; the store's transaction must abort.
 */
export function failNextIdbPut(): void {
  const proto = (globalThis as unknown as { IDBObjectStore: typeof IDBObjectStore })
    .IDBObjectStore.prototype;
  const put = proto.put;
  proto.put = function () {
    proto.put = put;
    throw new DOMException(INJECTED, "QuotaExceededError");
  };
}

/** Overwrite one IndexedDB session record's header with text no reader can parse. */
export async function damageIdbSession(
  factory: IDBFactory,
  dbName: string,
  sessionId: string,
): Promise<void> {
  const request = (r: IDBRequest) =>
    new Promise<unknown>((resolve, reject) => {
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
  const db = await request(factory.open(dbName)) as IDBDatabase;
  try {
    const tx = db.transaction("sessions", "readwrite");
    const os = tx.objectStore("sessions");
    const record = await request(os.get(["s", sessionId])) as Record<string, unknown>;
    os.put({ ...record, header: '{"type":"session",' }, ["s", sessionId]);
    await new Promise((resolve, reject) => {
      tx.oncomplete = resolve;
      tx.onerror = () => reject(tx.error);
    });
  } finally {
    db.close();
  }
}
