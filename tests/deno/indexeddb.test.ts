/**
 * The IndexedDB store under Deno, on fake-indexeddb (a fresh factory per test, so tests
 * never see each other's databases). The same store runs on real IndexedDB in Chromium
 * (tests/deno/browser.test.ts).
 */
import "fake-indexeddb/auto";
import { IDBFactory } from "fake-indexeddb";
import { conformance } from "../conformance/mod.ts";
import { IndexedDbSessionStore } from "../../stores/browser/indexeddb.ts";
import { indexedDbBehaviour } from "./indexeddb_cases.ts";

let dbCounter = 0;

conformance((name, fn) => Deno.test(name, fn), {
  name: "indexeddb (fake-indexeddb, deno)",
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

indexedDbBehaviour((name, fn) => Deno.test(name, fn), () => new IDBFactory());
