/**
 * IndexedDB-specific checks beyond the conformance suite: chunk layout, large entries,
 * listing without reading entries, and two connections on one database. Runtime-agnostic
 * (no Deno or node: APIs): Deno and Node run it on fake-indexeddb, Chromium on the real
 * thing.
 *
 * @example
 * ```ts
 * import { indexedDbBehaviour } from "./indexeddb_cases.ts";
 * indexedDbBehaviour((name, fn) => Deno.test(name, fn), () => indexedDB);
 * ```
 *
 * @module
 */
import { promisifyRequest } from "idb-keyval";
import { type SessionEntry, SessionFormatError, SessionNotFoundError } from "../../core.ts";
import {
  deleteIndexedDbSessionStore,
  IndexedDbSessionStore,
} from "../../stores/browser/indexeddb.ts";
import { assertEquals, assertRejects } from "../conformance/assert.ts";
import type { Register, StoreSubject } from "../conformance/mod.ts";
import { damageIdbSession, failNextIdbPut } from "../conformance/faults.ts";
import { assistantEntry, freshId, header, userEntry } from "../conformance/store_suite.ts";

let counter = 0;

/**
 * The conformance subject: a fresh database per test on the factory `factory()` gives
 * (also made the global one, as idb-keyval's helpers use it), with faults and damage.
 *
 * @example
 * ```ts
 * import { IDBFactory } from "fake-indexeddb";
 * import { conformance } from "../conformance/mod.ts";
 * conformance((name, fn) => Deno.test(name, fn), indexedDbSubject("indexeddb", () => new IDBFactory()));
 * ```
 */
export function indexedDbSubject(name: string, factory: () => IDBFactory): StoreSubject {
  return {
    name,
    open: async () => {
      const idb = factory();
      globalThis.indexedDB = idb;
      const options = { dbName: `conformance-${counter++}`, indexedDB: idb };
      return {
        store: await IndexedDbSessionStore.open(options),
        reopen: () => IndexedDbSessionStore.open(options),
        failNextWrite: failNextIdbPut,
        damage: (id) => damageIdbSession(idb, options.dbName, id),
      };
    },
  };
}

async function withDb(
  factory: () => IDBFactory,
  fn: (
    open: () => Promise<IndexedDbSessionStore>,
    raw: () => Promise<IDBDatabase>,
    idb: IDBFactory,
  ) => Promise<void>,
): Promise<void> {
  const idb = factory();
  const dbName = `idb-cases-${Date.now().toString(36)}-${counter++}`;
  const opened: IndexedDbSessionStore[] = [];
  const open = async () => {
    const store = await IndexedDbSessionStore.open({ dbName, indexedDB: idb });
    opened.push(store);
    return store;
  };
  let rawDb: IDBDatabase | undefined;
  const raw = async () => rawDb ??= await promisifyRequest(idb.open(dbName));
  try {
    await fn(open, raw, idb);
  } finally {
    rawDb?.close();
    for (const store of opened) await store.close();
    await deleteIndexedDbSessionStore(dbName, idb);
  }
}

async function chunkKeys(db: IDBDatabase, sessionId: string): Promise<IDBValidKey[]> {
  const os = db.transaction("sessions", "readonly").objectStore("sessions");
  return await promisifyRequest(
    os.getAllKeys(IDBKeyRange.bound(["e", sessionId], ["e", sessionId, []])),
  );
}

function chain(count: number, prefix: string): SessionEntry[] {
  const entries: SessionEntry[] = [];
  let parent: string | null = null;
  for (let i = 0; i < count; i++) {
    const entry: SessionEntry = i % 2
      ? assistantEntry(`${prefix}${i}`, parent)
      : userEntry(`${prefix}${i}`, parent);
    entries.push(entry);
    parent = entry.id;
  }
  return entries;
}

/**
 * Register the IndexedDB-specific tests; `factory` gives the IDBFactory to use.
 *
 * @example
 * ```ts
 * import { IDBFactory } from "fake-indexeddb";
 * import { indexedDbBehaviour } from "./indexeddb_cases.ts";
 * indexedDbBehaviour((name, fn) => Deno.test(name, fn), () => new IDBFactory());
 * ```
 */
export function indexedDbBehaviour(register: Register, factory: () => IDBFactory): void {
  register("indexeddb: appends fill bounded chunks and keep order across them", async () => {
    await withDb(factory, async (open, raw) => {
      const store = await open();
      const id = freshId();
      const entries = chain(700, "c");
      await store.create(header(id), entries.slice(0, 3));
      for (let i = 3; i < 400; i++) await store.append(id, [entries[i]]);
      await store.append(id, entries.slice(400));
      const loaded = await store.load(id);
      assertEquals(loaded.entries.map((e) => e.id), entries.map((e) => e.id));
      const keys = await chunkKeys(await raw(), id);
      // 700 small lines in chunks of at most 256 lines: three chunks, numbered in order.
      assertEquals(keys, [["e", id, 0], ["e", id, 1], ["e", id, 2]]);
      const expected = [JSON.stringify(header(id)), ...entries.map((e) => JSON.stringify(e))];
      const exported = (await store.exportJsonl(id)).split("\n");
      assertEquals(exported.length, expected.length + 1);
      assertEquals(exported.slice(1, -1), expected.slice(1));
    });
  });

  register("indexeddb: a large entry gets its own chunk and round-trips", async () => {
    await withDb(factory, async (open, raw) => {
      const store = await open();
      const id = freshId();
      const small = userEntry("small", null);
      const big = userEntry("x".repeat(700_000), small.id);
      const after = assistantEntry("after", big.id);
      await store.create(header(id), [small]);
      await store.append(id, [big]);
      await store.append(id, [after]);
      const loaded = await store.load(id);
      assertEquals(loaded.entries, [small, big, after]);
      assertEquals((await chunkKeys(await raw(), id)).length, 3);
      const row = (await store.list()).find((r) => r.id === id);
      assertEquals(row?.messageCount, 3);
    });
  });

  register("indexeddb: listing reads session records only, never entry chunks", async () => {
    await withDb(factory, async (open, raw) => {
      const store = await open();
      const id = freshId();
      await store.create(header(id), [userEntry("listed without entries", null)]);
      const db = await raw();
      const tx = db.transaction("sessions", "readwrite");
      tx.objectStore("sessions").put("not a chunk", ["e", id, 0]); // corrupt the entries
      await promisifyRequest(tx);
      const row = (await store.list()).find((r) => r.id === id);
      assertEquals(row?.firstMessage, "listed without entries");
      await assertRejects(() => store.load(id), SessionFormatError);
    });
  });

  register(
    "indexeddb: deleting the database elsewhere is not blocked by an open store",
    async () => {
      await withDb(factory, async (open, _raw, idb) => {
        const store = await open();
        const id = freshId();
        await store.create(header(id), [userEntry("about to go", null)]);
        await deleteIndexedDbSessionStore(store.dbName, idb);
        assertEquals(await store.has(id), false); // reconnected to a new, empty database
        await store.create(header(id), [userEntry("fresh start", null)]);
        assertEquals((await store.load(id)).entries.length, 1);
      });
    },
  );

  register(
    "indexeddb: a record written before it kept dangling parents still refuses a cycle",
    async () => {
      await withDb(factory, async (open, raw) => {
        const store = await open();
        const id = freshId();
        const x = userEntry("below a missing parent", "later", "x");
        await store.create(header(id), [userEntry("root", null, "root"), x]);
        const db = await raw(); // turn the record into one an older library wrote
        const tx = db.transaction("sessions", "readwrite");
        const sessions = tx.objectStore("sessions");
        const record = await promisifyRequest(sessions.get(["s", id]));
        delete record.dangling;
        delete record.lastId;
        sessions.put(record, ["s", id]);
        await promisifyRequest(tx);
        const error = await assertRejects(
          () => store.append(id, [userEntry("closes", "x", "later")]),
          SessionFormatError,
        );
        assertEquals(error.reason.includes("cycle"), true);
        await store.append(id, [userEntry("arrives", "root", "later")]);
        assertEquals((await store.load(id)).entries.map((e) => e.id), ["root", "x", "later"]);
      });
    },
  );

  register("indexeddb: two connections on one database see each other's commits", async () => {
    await withDb(factory, async (open) => {
      const first = await open();
      const second = await open();
      const id = freshId();
      const a = userEntry("from first", null);
      await first.create(header(id), [a]);
      const b = assistantEntry("from second", a.id);
      await second.append(id, [b]);
      assertEquals((await first.load(id)).entries, [a, b]);
      await second.delete(id);
      assertEquals(await first.has(id), false);
      await assertRejects(() => first.append(id, [userEntry("late", b.id)]), SessionNotFoundError);
    });
  });
}
