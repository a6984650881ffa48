/**
 * The IndexedDB store under Deno, on fake-indexeddb (a fresh factory per test, so tests
 * never see each other's databases). The same store runs on real IndexedDB in Chromium
 * (tests/deno/browser.test.ts).
 */
import "fake-indexeddb/auto";
import { IDBFactory } from "fake-indexeddb";
import { conformance } from "../conformance/mod.ts";
import { indexedDbBehaviour, indexedDbSubject } from "./indexeddb_cases.ts";

conformance(
  (name, fn) => Deno.test(name, fn),
  indexedDbSubject("indexeddb (fake-indexeddb, deno)", () => new IDBFactory()),
);
indexedDbBehaviour((name, fn) => Deno.test(name, fn), () => new IDBFactory());
