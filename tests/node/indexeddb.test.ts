/**
 * The IndexedDB store under Node 20, on fake-indexeddb (a fresh factory per test).
 * Bundled and run by tests/node/run.ts.
 */
import "fake-indexeddb/auto";
import { IDBFactory } from "fake-indexeddb";
import { test } from "node:test";
import { conformance } from "../conformance/mod.ts";
import { indexedDbBehaviour, indexedDbSubject } from "../deno/indexeddb_cases.ts";

conformance(
  (name, fn) => test(name, fn),
  indexedDbSubject("indexeddb (fake-indexeddb, node)", () => new IDBFactory()),
);
indexedDbBehaviour((name, fn) => test(name, fn), () => new IDBFactory());
