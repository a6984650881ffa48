/**
 * The IndexedDB store under Node 20, on fake-indexeddb (a fresh factory per test).
 * Bundled and run by tests/node/run.ts.
 */
import "fake-indexeddb/auto";
import { IDBFactory } from "fake-indexeddb";
import { test } from "node:test";
import { IndexedDbSessionStore } from "../../stores/browser/indexeddb.ts";
import { conformance } from "../conformance/mod.ts";
import { indexedDbBehaviour } from "../deno/indexeddb_cases.ts";

let dbCounter = 0;

conformance((name, fn) => test(name, fn), {
  name: "indexeddb (fake-indexeddb, node)",
  open: async () => {
    const factory = new IDBFactory();
    globalThis.indexedDB = factory;
    const options = { dbName: `conformance-${dbCounter++}`, indexedDB: factory };
    return {
      store: await IndexedDbSessionStore.open(options),
      reopen: () => IndexedDbSessionStore.open(options),
    };
  },
});

indexedDbBehaviour((name, fn) => test(name, fn), () => new IDBFactory());
