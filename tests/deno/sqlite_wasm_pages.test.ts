/**
 * The page size of a new sqlite-wasm database (stores/sqlite/_wasm_pages.ts): 64 KiB for a
 * new database (16-fold fewer OPFS VFS calls on a large import), and an existing database
 * keeps its page size and its sessions. sqlite-wasm runs in Deno on an in-memory database
 * (OPFS itself is Chromium's: tests/deno/browser.test.ts).
 */
import { SqliteSessionStore } from "../../stores/sqlite/store.ts";
import { loadSqliteWasm, oo1Database } from "../../stores/sqlite/wasm.ts";
import { NEW_DATABASE_PAGE_SIZE, useNewDatabasePageSize } from "../../stores/sqlite/_wasm_pages.ts";
import { assertEquals } from "../conformance/assert.ts";

const header = {
  type: "session" as const,
  version: 4 as const,
  id: "s1",
  createdAt: "2026-01-01T00:00:00.000Z",
  cwd: "/p",
};

Deno.test("sqlite-wasm: a new database gets 64 KiB pages, an existing one keeps its own", async () => {
  const sqlite3 = await loadSqliteWasm();
  const fresh = new sqlite3.oo1.DB(":memory:");
  useNewDatabasePageSize(fresh);
  const store = await SqliteSessionStore.open(oo1Database(fresh), { journalMode: null });
  await store.create(header);
  assertEquals(fresh.selectValue("PRAGMA page_size"), NEW_DATABASE_PAGE_SIZE);
  await store.close();

  const existing = new sqlite3.oo1.DB(":memory:");
  const old = await SqliteSessionStore.open(oo1Database(existing), { journalMode: null });
  await old.create(header);
  const before = existing.selectValue("PRAGMA page_size"); // sqlite-wasm's default
  assertEquals(before !== NEW_DATABASE_PAGE_SIZE, true);
  useNewDatabasePageSize(existing); // what a later open does
  const reopened = await SqliteSessionStore.open(oo1Database(existing), { journalMode: null });
  assertEquals(existing.selectValue("PRAGMA page_size"), before);
  assertEquals((await reopened.load("s1")).header.id, "s1");
  await reopened.close();
});
