/**
 * The SQLite search's candidate order (schema step 7, `stores/sqlite/search/_walk.ts`): a
 * common word walks the time index without sorting its candidates and reads few texts, a
 * phrase narrows to the texts containing it, a schema-6 database is indexed again after the
 * upgrade with the same hits as the scan, and a schema-7 one gets its word index on upgrade.
 */
import { scanSearch, type SessionEntry, type SessionHeader } from "../../core.ts";
import { SqliteSessionStore } from "../../stores/sqlite/store.ts";
import type { SqliteDatabase, SqliteValue } from "../../stores/sqlite/_schema.ts";
import { SORT_BELOW } from "../../stores/sqlite/search/_walk.ts";
import { assert, assertEquals } from "../conformance/assert.ts";
import { type SqliteTestRuntime, withDatabase } from "./runtime.ts";
import { toSchema6, toSchema7 } from "./context_cases.ts";

type Test = (name: string, fn: () => Promise<void>) => void;

function header(id: string): SessionHeader {
  return { type: "session", version: 4, id, createdAt: "2026-04-01T00:00:00.000Z", cwd: "/p" };
}

function say(id: string, parentId: string | null, text: string, ms: number): SessionEntry {
  return {
    type: "message",
    id,
    parentId,
    timestamp: new Date(Date.UTC(2026, 3, 1) + ms).toISOString(),
    message: { role: "user", content: text, timestamp: 0 },
  };
}

/** A connection recording the search statements run and the texts they return. */
function recording(raw: SqliteDatabase) {
  const log = { texts: 0, statements: [] as Recorded[] };
  const db: SqliteDatabase = {
    exec: (sql) => raw.exec(sql),
    close: () => raw.close(),
    prepare: (sql) => {
      const statement = raw.prepare(sql);
      if (!sql.includes("search_")) return statement;
      const seen = (params: SqliteValue[], rows: Record<string, unknown>[]) => {
        log.statements.push({ sql, params });
        log.texts += rows.filter((row) => typeof row.text === "string").length;
        return rows;
      };
      return {
        run: (...p) => statement.run(...p),
        get: (...p) => seen(p, [statement.get(...p)].filter((row) => row !== undefined))[0],
        all: (...p) => seen(p, statement.all(...p)),
      };
    },
  };
  return { db, log };
}

type Recorded = { sql: string; params: SqliteValue[] };

/** The query plans (EXPLAIN QUERY PLAN) of the recorded statements, one string each. */
function plans(raw: SqliteDatabase, statements: Recorded[]): string[] {
  return statements.filter(({ sql }) => sql.startsWith("SELECT")).map(({ sql, params }) =>
    raw.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params).map((row) => row.detail).join(" / ")
  );
}

/** Whether any recorded statement sorts in a temporary B-tree. */
function sorts(raw: SqliteDatabase, statements: Recorded[]): boolean {
  return plans(raw, statements).some((plan) => plan.includes("TEMP B-TREE"));
}

export function searchOrderCases(t: Test, runtime: SqliteTestRuntime): void {
  t("a common word walks the time index: no sort, the newest texts only", async () => {
    await withDatabase(runtime, async ({ path }) => {
      const raw = runtime.openRaw(path);
      const { db, log } = recording(raw);
      const store = await SqliteSessionStore.open(db);
      try {
        // More candidates than are ever sorted, in sessions whose times interleave.
        const perSession = 700;
        for (let s = 0; s < 4; s++) {
          const entries = Array.from(
            { length: perSession },
            (_, e) =>
              say(`e${e}`, e ? `e${e - 1}` : null, `the common gnu ${e}`, (e * 4 + s) * 1000),
          );
          await store.create(header(`s${s}`), entries);
        }
        assert(4 * perSession > SORT_BELOW);
        for (const options of [{ limit: 10 }, { limit: 10, cwd: "/p" }]) {
          log.texts = 0;
          log.statements = [];
          const hits = await store.search("gnu", options);
          assert(log.texts <= 64, `${log.texts} texts read for 10 hits of 2,800 candidates`);
          assertEquals(sorts(raw, log.statements), false, "candidates are sorted");
          assertEquals(hits, await scanSearch(store, "gnu", options));
          assertEquals(hits[0].entryId, `e${perSession - 1}`);
        }
        // No text has "gn" as a whole word (the word index knows): the walk settles at the
        // word starts it does have (score 2) instead of reading every text.
        log.texts = 0;
        const starts = await store.search("gn", { limit: 10 });
        assert(log.texts <= 64, `${log.texts} texts read for 10 hits at the reachable score`);
        assertEquals(starts, await scanSearch(store, "gn", { limit: 10 }));
        // "nu" only ever occurs inside a word: the walk reads each text once.
        log.texts = 0;
        log.statements = [];
        const some = await store.search("nu", { limit: 10 });
        assertEquals(log.texts, 4 * perSession);
        // A later page seeks to where the last one ended instead of walking from the start.
        const later = log.statements.filter(({ sql }) => sql.includes("d.tkey <= ?"));
        assert(later.length > 0, "the walk took more than one page");
        for (const plan of plans(raw, later)) assert(/SEARCH d .*\(tkey<\?\)/.test(plan), plan);
        assertEquals(some, await scanSearch(store, "nu", { limit: 10 }));
      } finally {
        await store.close();
      }
    });
  });

  t(
    "a walk past its first pages (newest texts, match-set pages, the rest) keeps the scan's hits",
    async () => {
      await withDatabase(runtime, async ({ store }) => {
        // More rows than every page of a walk together: a query never reaching its best score
        // goes through the newest texts, the match-set pages and the unsorted rest, where the
        // oldest rows hold its only whole-word matches.
        const text = (e: number) => e < 2 ? "the ommo gnu" : `the common gnu ${e % 7}`;
        for (let s = 0; s < 13; s++) {
          const entries = Array.from(
            { length: 1000 },
            (_, e) => say(`e${e}`, e ? `e${e - 1}` : null, text(e), (e * 13 + s) * 10),
          );
          await store.create(header(`s${s}`), entries);
        }
        // Four terms walk in one pass, bounded by the best score any text could have (the
        // word index bounds up to three); fewer settle on the word index's levels.
        const queries = [
          "the gnu ommo ommo",
          "ommo",
          "gnu ommo",
          '"gnu 3"',
          "gnu -common",
          "omm",
          // Phrases at each level: whole (oldest rows only), word start, inside a word.
          '"ommo gnu"',
          '"the comm"',
          '"mmon gnu"',
        ];
        for (const query of queries) {
          for (const options of [{ limit: 10 }, { limit: 10, sessionId: "s4" }]) {
            assertEquals(
              await store.search(query, options),
              await scanSearch(store, query, options),
            );
          }
        }
      });
    },
  );

  t("a phrase reads the texts containing it, across any whitespace", async () => {
    await withDatabase(runtime, async ({ path }) => {
      const raw = runtime.openRaw(path);
      const { db, log } = recording(raw);
      const store = await SqliteSessionStore.open(db);
      try {
        const texts = [
          ...Array.from({ length: 300 }, (_, i) => `bug fix the ${i}`), // the words, not the phrase
          "fix  the\n\tbug",
          "Fix The Bug now",
          "prefix the bugs",
        ];
        const entries = texts.map((text, e) => say(`e${e}`, e ? `e${e - 1}` : null, text, e));
        await store.create(header("s"), entries);
        log.texts = 0;
        const hits = await store.search('"fix the bug"');
        assertEquals(hits.map((hit) => hit.entryId).sort(), ["e300", "e301", "e302"]);
        assertEquals(log.texts, 3, "only the texts containing the phrase are read");
        assertEquals(hits, await scanSearch(store, '"fix the bug"'));
      } finally {
        await store.close();
      }
    });
  });

  t("a schema-6 index is built again after the upgrade, with the scan's hits", async () => {
    await withDatabase(runtime, async ({ path, store }) => {
      const odd = ["2026-04-01T00:00:00.000Z", "not a time", "2026-02-30T10:00:00Z", "0"];
      for (let s = 0; s < 3; s++) {
        const entries = Array.from({ length: 8 }, (_, e) => ({
          ...say(`e${e}`, e ? `e${e - 1}` : null, `fix\nthe   bug ${s} token`, e * 1000 + s),
          ...(e < odd.length ? { timestamp: odd[(e + s) % odd.length] } : {}),
        }));
        await store.create(header(`s${s}`), entries);
      }
      await store.close();
      const raw = runtime.openRaw(path);
      // Rows as schema step 6 wrote them: no time key, whitespace as in the text.
      toSchema6(raw);
      raw.exec("UPDATE search_fts SET text = replace(text, ' ', '\n')");
      raw.exec("DELETE FROM search_pending");
      raw.exec("PRAGMA user_version = 6");
      const upgraded = await runtime.openStore(path);
      try {
        const pending = () => raw.prepare("SELECT count(*) AS n FROM search_pending").get()?.n;
        assertEquals(pending(), 3, "every session is pending after the upgrade");
        assertEquals(Number(raw.prepare("SELECT count(*) AS n FROM search_docs").get()?.n), 0);
        for (const query of ['"the bug"', "token", "fix", '"fix the bug 1"']) {
          for (const limit of [50, 3]) {
            const hits = await upgraded.search(query, { limit });
            assertEquals(hits, await scanSearch(upgraded, query, { limit }), query);
          }
        }
        assertEquals(pending(), 0);
        const keys = raw.prepare("SELECT ts, tkey FROM search_docs").all();
        assertEquals(keys.length, 24);
        for (const { ts, tkey } of keys) {
          const ms = Date.parse(String(ts));
          assertEquals(Number(tkey), Number.isNaN(ms) ? 0 : ms, String(ts));
        }
      } finally {
        await upgraded.close();
        raw.close();
      }
    });
  });

  t("a schema-7 database gets the word index on upgrade and searches the same", async () => {
    await withDatabase(runtime, async ({ path, store }) => {
      // "𝐱foo": to the matcher a surrogate is no word character, so "foo" is a whole word
      // there (score 3) and must outrank the newer "xfoox" (1) in the word index as well.
      const texts = [
        "𝐱foo end",
        "call refreshToken()",
        "日本語の テスト",
        "the token",
        "tokens",
        "fix the bug",
        "xfoox",
      ];
      for (let s = 0; s < 3; s++) {
        const entries = texts.map((text, e) =>
          say(`e${e}`, e ? `e${e - 1}` : null, `${text} ${s}`, e * 1000 + s)
        );
        await store.create(header(`s${s}`), entries);
      }
      const queries = ["refreshTok", "token", "本語", '"the bug"', "tok*", "日本", "foo"];
      const before = [];
      for (const query of queries) {
        before.push(await store.search(query, { limit: 4 }));
        assertEquals(before.at(-1), await scanSearch(store, query, { limit: 4 }), query);
      }
      await store.close();
      const raw = runtime.openRaw(path);
      toSchema7(raw);
      raw.exec("PRAGMA user_version = 7");
      const upgraded = await runtime.openStore(path);
      try {
        const words = raw.prepare("SELECT rowid FROM search_words WHERE search_words MATCH ?");
        assertEquals(words.all("refreshtoken").length, 3, "filled from the indexed texts");
        const pending = raw.prepare("SELECT session_id FROM search_pending").all();
        assertEquals(pending.length, 3, "texts outside the BMP: their sessions are indexed again");
        for (const [i, query] of queries.entries()) {
          const hits = await upgraded.search(query, { limit: 4 });
          assertEquals(hits, before[i], query);
          assertEquals(hits, await scanSearch(upgraded, query, { limit: 4 }), query);
        }
      } finally {
        await upgraded.close();
        raw.close();
      }
    });
  });

  t("a letter outside the BMP bounds a word as the matcher reads it", async () => {
    await withDatabase(runtime, async ({ store }) => {
      // To the matcher a surrogate is no word character: "foo" is a whole word in the oldest
      // text (score 3) and outranks every newer "xfoox" (1), more than are ever sorted.
      const count = SORT_BELOW + 100;
      const entries = Array.from(
        { length: count },
        (_, e) => say(`e${e}`, e ? `e${e - 1}` : null, e ? `xfoox ${e}` : "𝐱foo end", e * 1000),
      );
      await store.create(header("s"), entries);
      for (const query of ["foo", "fo*"]) {
        const hits = await store.search(query, { limit: 1 });
        assertEquals(hits, await scanSearch(store, query, { limit: 1 }), query);
      }
      assertEquals((await store.search("foo", { limit: 1 }))[0].entryId, "e0");
    });
  });
}
