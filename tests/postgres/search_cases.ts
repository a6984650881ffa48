/**
 * PostgreSQL search beyond the conformance suite, shared by the Deno and Node runners: a
 * search is a query (no session is loaded), the trigram index exists, entries' search rows
 * go with deletion and replace, texts PostgreSQL cannot store do not fail a write, and a
 * schema from before search is backfilled.
 */
import { scanSearch, type SessionEntry, type SessionHeader } from "../../core.ts";
import { openPostgresStore, type PostgresSessionStore } from "../../stores/postgres/store.ts";
import { assert, assertEquals } from "../conformance/assert.ts";
import type { Register } from "../conformance/harness.ts";
import { adminSql, sharedCluster, withFreshStore } from "./subject.ts";

let clock = 0;
const head = (id: string, cwd = "/pg/search"): SessionHeader => ({
  type: "session",
  version: 4,
  id,
  createdAt: "2026-04-01T00:00:00.000Z",
  cwd,
});
const user = (id: string, parentId: string | null, content: string): SessionEntry => ({
  type: "message",
  id,
  parentId,
  timestamp: new Date(Date.UTC(2026, 3, 1) + 1000 * clock++).toISOString(),
  message: { role: "user", content, timestamp: 0 },
});

/** Twenty sessions, a few of them about capybaras, on two cwds. */
async function seed(store: PostgresSessionStore): Promise<void> {
  for (let i = 0; i < 20; i++) {
    const topic = i % 5 === 0 ? "the Capybara refreshToken" : `plain note ${i}`;
    await store.create(head(`s${i}`, i % 2 ? "/pg/a" : "/pg/b"), [
      user(`a${i}`, null, `first ${topic}`),
      user(`b${i}`, `a${i}`, `second "fix the bug" ${i}`),
    ]);
  }
}

const QUERIES: [string, { cwd?: string; sessionId?: string; limit?: number }][] = [
  ["capybara", {}],
  ["refreshTok", { cwd: "/pg/b" }],
  ['"fix the" -capybara', { limit: 5 }],
  ["no*", { sessionId: "s3" }],
  ["e", {}],
];

const rowsOf = (schema: string, id: string) =>
  adminSql((sql) =>
    sql.unsafe(`SELECT count(*)::int AS n FROM "${schema}".search_text WHERE session_id = $1`, [
      id,
    ])
  ).then((rows) => Number(rows[0].n));

export function postgresSearchCases(t: Register, runtime: string): void {
  const name = (what: string) => `postgres (${runtime}): search: ${what}`;

  t(name("a search is a query: no session is loaded, hits equal the scan's"), async () => {
    await withFreshStore(async (store, schema) => {
      await seed(store);
      const expected = [];
      for (const [query, options] of QUERIES) {
        expected.push(await scanSearch(store, query, options));
      }
      let loads = 0;
      const refuse = () => {
        loads++;
        throw new Error("search loaded a session");
      };
      Object.assign(store, { load: refuse, loadContext: refuse, exportJsonl: refuse });
      assert(typeof store.search === "function", "the store has its own search");
      for (const [i, [query, options]] of QUERIES.entries()) {
        assertEquals(await store.search(query, options), expected[i], query);
      }
      assertEquals(loads, 0);
      const indexes = await adminSql((sql) =>
        sql.unsafe("SELECT indexname FROM pg_indexes WHERE schemaname = $1", [schema])
      );
      assert(
        indexes.some((row) => row.indexname === "search_text_trgm"),
        "pg_trgm GIN index on search_text",
      );
    });
  });

  t(name("more candidates than one cursor batch (500) are all read"), async () => {
    await withFreshStore(async (store) => {
      const entries = Array.from(
        { length: 1200 },
        (_, i) => user(`c${i}`, i ? `c${i - 1}` : null, `capybara ${i % 7 ? "" : "capybara"}`),
      );
      await store.create(head("big"), entries);
      await store.create(head("small"), [user("d", null, "capybara capybara capybara")]);
      const options = { limit: 3 };
      assertEquals(
        await store.search("capybara", options),
        await scanSearch(store, "capybara", options),
      );
    });
  });

  t(name("a bulk write is indexed by the next search, which finds all of it"), async () => {
    await withFreshStore(async (store, schema) => {
      // More rows than one indexing statement reads, so the backfill spans several.
      const chain = (prefix: string, length: number, from: string | null) =>
        Array.from(
          { length },
          (_, i) =>
            user(`${prefix}${i}`, i ? `${prefix}${i - 1}` : from, `${prefix} capybara ${i}`),
        );
      await store.create(head("bulk"), chain("c", 2_100, null));
      await store.append("bulk", chain("d", 100, "c2099"));
      assertEquals(await rowsOf(schema, "bulk"), 0, "a bulk write leaves the index to search");
      await store.append("bulk", [user("e0", "d99", "axolotl")]);
      const options = { limit: 2_500 };
      const hits = await store.search("capybara", options);
      assertEquals(hits.length, 2_200);
      assertEquals(hits, await scanSearch(store, "capybara", options));
      assertEquals((await store.search("axolotl")).map((hit) => hit.entryId), ["e0"]);
      assertEquals(await rowsOf(schema, "bulk"), 2_201);
      await store.append("bulk", [user("e1", "e0", "capybara late")]);
      assertEquals(await rowsOf(schema, "bulk"), 2_202, "a small append is indexed as written");
      // A bulk append onto an indexed session leaves the rows already indexed as they were.
      const firstRow = () =>
        adminSql((sql) =>
          sql.unsafe(
            `SELECT ctid::text AS at FROM "${schema}".search_text WHERE session_id = $1 AND seq = 0`,
            ["bulk"],
          )
        ).then((rows) => String(rows[0].at));
      const before = await firstRow();
      await store.append("bulk", chain("f", 20, "e1"));
      assertEquals((await store.search("f capybara", options)).length, 20);
      assertEquals(await rowsOf(schema, "bulk"), 2_222);
      assertEquals(await firstRow(), before, "only the bulk append's rows were indexed");
    });
  });

  t(name("deletion and replace take the session's search rows with them"), async () => {
    await withFreshStore(async (store, schema) => {
      await store.create(head("s"), [user("x1", null, "capybara one")]);
      await store.append("s", [user("x2", "x1", "capybara two")]);
      assertEquals(await rowsOf(schema, "s"), 2);
      await store.replace(head("s"), [user("y1", null, "axolotl")]);
      assertEquals(await rowsOf(schema, "s"), 1);
      assertEquals((await store.search("capybara")).length, 0);
      assertEquals((await store.search("axolotl")).map((hit) => hit.entryId), ["y1"]);
      await store.delete("s");
      assertEquals(await rowsOf(schema, "s"), 0);
      assertEquals(await store.search("axolotl"), []);
    });
  });

  t(name("a NUL in a text does not fail the write, and the text is found"), async () => {
    await withFreshStore(async (store) => {
      await store.create(head("s"), [user("n1", null, "nul\0byte capybara")]);
      const hits = await store.search("capybara");
      assertEquals(hits.map((hit) => hit.entryId), ["n1"]);
      assertEquals(hits[0].snippet, "nul\0byte capybara");
      assertEquals(hits, await scanSearch(store, "capybara"));
    });
  });

  t(name("sessions written before search existed are indexed on the next search"), async () => {
    const { url } = await sharedCluster();
    await withFreshStore(async (store, schema) => {
      await seed(store);
      await adminSql(async (sql) => {
        await sql.unsafe(`DROP TABLE "${schema}".search_text, "${schema}".search_pending`);
        await sql.unsafe(`UPDATE "${schema}".schema_version SET version = 1`);
      });
      const migrated = await openPostgresStore({ url, schema, max: 2 });
      try {
        for (const [query, options] of QUERIES) {
          assertEquals(
            await migrated.search(query, options),
            await scanSearch(migrated, query, options),
          );
        }
        assertEquals(await rowsOf(schema, "s0"), 2, "every pending session the search read");
        const pending = await adminSql((sql) =>
          sql.unsafe(`SELECT count(*)::int AS n FROM "${schema}".search_pending`)
        );
        assertEquals(Number(pending[0].n), 0);
      } finally {
        await migrated.close();
      }
    });
  });
}
