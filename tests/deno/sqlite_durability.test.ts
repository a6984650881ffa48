/**
 * The SQLite store's `durability` option (issue 12): `"relaxed"` is `synchronous=NORMAL`,
 * the default leaves SQLite's own FULL, and an explicit `synchronous` wins. Read back from
 * the connection, not timed.
 */
import { DatabaseSync } from "node:sqlite";
import { assertEquals } from "../conformance/assert.ts";
import { SqliteSessionStore, type SqliteStoreOptions } from "../../stores/sqlite/store.ts";

const FULL = 2;
const NORMAL = 1;

for (
  const [options, expected] of [
    [{}, FULL],
    [{ durability: "durable" }, FULL],
    [{ durability: "relaxed" }, NORMAL],
    [{ durability: "relaxed", synchronous: "FULL" }, FULL],
  ] as [SqliteStoreOptions, number][]
) {
  Deno.test(`sqlite durability: ${JSON.stringify(options)} gives synchronous=${expected}`, async () => {
    const dir = await Deno.makeTempDir({ prefix: "mu-sqlite-durability-" });
    const db = new DatabaseSync(`${dir}/sessions.db`);
    try {
      const store = await SqliteSessionStore.open(db, options);
      const row = db.prepare("PRAGMA synchronous").get() as { synchronous: number };
      assertEquals(row.synchronous, expected);
      await store.create({
        type: "session",
        version: 4,
        id: "d",
        createdAt: "2026-01-01T00:00:00.000Z",
        cwd: "/p",
      });
      assertEquals((await store.load("d")).header.id, "d");
      await store.close();
    } finally {
      if (db.isOpen) db.close();
      await Deno.remove(dir, { recursive: true });
    }
  });
}
