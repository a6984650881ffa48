/**
 * The SQLite search index beyond the conformance suite, in every SQLite runtime: a failure
 * to index never loses the entry, large writes can leave indexing to the next search,
 * existing databases get an index on upgrade, a rebuilt
 * index equals the incrementally kept one, and FTS hits equal the scan's on varied data
 * without loading sessions.
 */
import { scanSearch, type SessionEntry, type SessionHeader } from "../../core.ts";
import { SqliteSessionStore } from "../../stores/sqlite/store.ts";
import type { SqliteDatabase } from "../../stores/sqlite/_schema.ts";
import { assert, assertEquals } from "../conformance/assert.ts";
import { type SqliteTestRuntime, withDatabase } from "./runtime.ts";
import { dropSearchTables, toSchema5 } from "./context_cases.ts";

type Test = (name: string, fn: () => Promise<void>) => void;

function header(id: string, cwd = "/p"): SessionHeader {
  return { type: "session", version: 4, id, createdAt: "2026-04-01T00:00:00.000Z", cwd };
}

function say(id: string, parentId: string | null, text: string, second = 0): SessionEntry {
  return {
    type: "message",
    id,
    parentId,
    timestamp: new Date(Date.UTC(2026, 3, 1, 0, 0, second)).toISOString(),
    message: { role: "user", content: text, timestamp: 0 },
  };
}

/** Seeded pseudo-random words: Latin, identifiers, CJK, short and long, repeated. */
function words(seed: number): () => string {
  const pool = [
    "token",
    "refreshToken",
    "getUserById",
    "cache",
    "ab",
    "x",
    "東京",
    "天気",
    "晴れ",
    "日本語",
    "İstanbul",
    "fix",
    "the",
    "bug",
    "logger",
    "login",
    "async",
    "await",
    "snake_case_name",
    "ÉCOLE",
  ];
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return pool[state % pool.length];
  };
}

/** Every row of the index as comparable text, independent of row ids. */
export function indexRows(db: SqliteDatabase): string[] {
  return db.prepare(
    `SELECT d.session_id, d.seq, d.entry_id, d.role, d.ts, f.text
     FROM search_docs d JOIN search_fts f ON f.rowid = d.id`,
  ).all().map((row) => JSON.stringify(Object.values(row))).sort();
}

const docRows = (db: SqliteDatabase) =>
  Number(db.prepare("SELECT count(*) AS n FROM search_docs").get()?.n);

const backlogRows = (db: SqliteDatabase) =>
  Number(db.prepare("SELECT count(*) AS n FROM search_backlog").get()?.n);

/** The pending sessions, by id. */
export const pending = (db: SqliteDatabase) =>
  db.prepare("SELECT session_id FROM search_pending ORDER BY session_id").all()
    .map((row) => String(row.session_id));

export function searchCases(t: Test, runtime: SqliteTestRuntime): void {
  t("a failure to index keeps the entry, which is still found and indexed later", async () => {
    await withDatabase(runtime, async ({ path }) => {
      const raw = runtime.openRaw(path);
      let failIndex = true;
      const db: SqliteDatabase = {
        exec: (sql) => raw.exec(sql),
        close: () => raw.close(),
        prepare: (sql) => {
          const statement = raw.prepare(sql);
          if (!sql.startsWith("INSERT INTO search_fts")) return statement;
          return {
            ...statement,
            get: (...p) => statement.get(...p),
            all: (...p) => statement.all(...p),
            run: (...p) => {
              if (failIndex) throw new Error("injected index fault");
              return statement.run(...p);
            },
          };
        },
      };
      const store = await SqliteSessionStore.open(db);
      try {
        await store.create(header("s"), [say("e1", null, "kept while indexing fails")]);
        await store.append("s", [say("e2", "e1", "appended while indexing fails")]);
        assertEquals((await store.load("s")).entries.map((e) => e.id), ["e1", "e2"]);
        // The writes left a backlog; indexing it fails (the search's first step), which
        // leaves the session pending, searched by scanning.
        assertEquals(backlogRows(raw), 1);
        assertEquals((await store.search("fails")).map((h) => h.entryId).sort(), ["e1", "e2"]);
        assertEquals(pending(raw), ["s"]);
        assertEquals(backlogRows(raw), 0);
        assertEquals(pending(raw), ["s"], "indexing before the search failed again");
        failIndex = false;
        assertEquals((await store.search("fails")).map((h) => h.entryId).sort(), ["e1", "e2"]);
        assertEquals(pending(raw), [], "indexed by the search once indexing works");
        assertEquals(indexRows(raw).length, 2);
      } finally {
        await store.close();
      }
    });
  });

  t(
    "an existing database is indexed after the upgrade; a rebuild equals the kept index",
    async () => {
      await withDatabase(runtime, async ({ path, store }) => {
        const next = words(7);
        for (let s = 0; s < 6; s++) {
          const entries: SessionEntry[] = [];
          for (let e = 0; e < 12; e++) {
            const text = Array.from({ length: 1 + (e % 5) }, next).join(e % 2 ? " " : "");
            entries.push(say(`e${e}`, e ? `e${e - 1}` : null, text, e));
          }
          await store.create(header(`s${s}`), entries.slice(0, 6));
          await store.append(`s${s}`, entries.slice(6));
        }
        const raw = runtime.openRaw(path);
        assert(backlogRows(raw) > 0, "the last appends left a backlog");
        await store.search("token"); // writes them out
        const kept = indexRows(raw);
        assert(kept.length >= 72, `${kept.length} rows`);
        assertEquals(await store.rebuildSearchIndex(), 6);
        assertEquals(indexRows(raw), kept, "rebuilt equals incremental");
        // Back to the schema before search: the upgrade marks every session pending.
        await store.close();
        dropSearchTables(raw);
        toSchema5(raw); // and before the context flags
        raw.exec("PRAGMA user_version = 4");
        const upgraded = await runtime.openStore(path);
        try {
          assertEquals(pending(raw).length, 6);
          const hits = await upgraded.search("token");
          assertEquals(pending(raw), []);
          assertEquals(indexRows(raw), kept, "built on upgrade equals incremental");
          assertEquals(hits, await scanSearch(upgraded, "token"));
        } finally {
          await upgraded.close();
          raw.close();
        }
      });
    },
  );

  t("a write above deferSearchIndexAbove is indexed by the next search, same hits", async () => {
    await withDatabase(runtime, async ({ path }) => {
      const options = { deferSearchIndexAbove: 2, searchIndexIdleMs: Infinity };
      const store = await runtime.openStore(path, options);
      const raw = runtime.openRaw(path);
      try {
        const entries = ["a token", "refreshToken", "no match"].map((text, i) =>
          say(`e${i}`, i ? `e${i - 1}` : null, text, i)
        );
        await store.create(header("big"), entries); // 3 > 2: deferred
        await store.create(header("small"), entries.slice(0, 2)); // left to the backlog
        assertEquals(pending(raw), ["big"]);
        assertEquals([docRows(raw), backlogRows(raw)], [0, 1], "only the small one's backlog");
        await store.append("big", [say("e3", "e2", "token again", 3)]);
        assertEquals([docRows(raw), backlogRows(raw)], [0, 1], "a pending session's appends wait");
        const hits = await store.search("token");
        assertEquals(pending(raw), [], "the search indexed it first");
        assertEquals(indexRows(raw).length, 6);
        assertEquals(hits, await scanSearch(store, "token"));
        assertEquals(hits.filter((h) => h.sessionId === "big").length, 3);
      } finally {
        await store.close();
        raw.close();
      }
    });
  });

  t("a common word reads the texts of the newest candidates only", async () => {
    await withDatabase(runtime, async ({ path }) => {
      const raw = runtime.openRaw(path);
      let textsRead = 0;
      const db: SqliteDatabase = {
        exec: (sql) => raw.exec(sql),
        close: () => raw.close(),
        prepare: (sql) => {
          const statement = raw.prepare(sql);
          if (!sql.includes("search_fts")) return statement;
          const count = (rows: Record<string, unknown>[]) => (
            textsRead += rows.filter((row) => "text" in row).length, rows
          );
          return {
            run: (...p) => statement.run(...p),
            get: (...p) => count([statement.get(...p)].filter((row) => row !== undefined))[0],
            all: (...p) => count(statement.all(...p)),
          };
        },
      };
      const store = await SqliteSessionStore.open(db);
      try {
        for (let s = 0; s < 3; s++) {
          const entries = Array.from(
            { length: 200 },
            (_, e) => say(`e${e}`, e ? `e${e - 1}` : null, `the common gnu ${e}`, (e * 7 + s) % 60),
          );
          await store.create(header(`s${s}`), entries);
        }
        textsRead = 0;
        const hits = await store.search("gnu", { limit: 10 });
        assert(textsRead <= 64, `${textsRead} texts read for 10 hits of 600 candidates`);
        assertEquals(hits, await scanSearch(store, "gnu", { limit: 10 }));
        // "gn" is never a whole word (the word index knows): the walk settles at the word
        // starts it has instead of reading every text.
        textsRead = 0;
        const starts = await store.search("gn", { limit: 10 });
        assert(textsRead <= 64, `${textsRead} texts read for 10 hits at the reachable score`);
        assertEquals(starts, await scanSearch(store, "gn", { limit: 10 }));
      } finally {
        await store.close();
      }
    });
  });

  t("FTS hits equal the scan's on varied data, without loading a session", async () => {
    await withDatabase(runtime, async ({ store }) => {
      const next = words(42);
      for (let s = 0; s < 8; s++) {
        const entries: SessionEntry[] = [];
        for (let e = 0; e < 15; e++) {
          const text = Array.from({ length: 1 + ((s + e) % 7) }, next).join(e % 3 ? " " : "_");
          entries.push(say(`e${e}`, e > 2 ? `e${e - 2}` : null, text, (s * 7 + e) % 11));
        }
        await store.create(header(`s${s}`, s % 2 ? "/a" : "/b"), entries);
      }
      const queries = [
        "token",
        "refreshTok",
        "tok*",
        "user",
        "東京",
        "京",
        "天気 晴れ",
        "x",
        "ab",
        '"fix the"',
        '"the bug"',
        "istanbul",
        "école",
        "cache -token",
        "_case",
        "await async",
        "log* -login",
        // Levels the word index bounds (whole word, word start, inside a word), alone and
        // combined: each settles at the score its rows reach.
        "efreshTok",
        "refresh",
        "本語",
        "日本",
        "oken",
        "ache token",
        "oken 東京",
        '"the bu"',
        '"he bug"',
        "snake_ca",
        "stanbul",
      ];
      let loads = 0;
      const load = store.load.bind(store);
      store.load = (id) => (loads++, load(id));
      for (const query of queries) {
        for (
          const options of [
            { limit: 500 },
            { limit: 5 },
            { limit: 1 },
            { cwd: "/a", roles: ["user" as const] },
          ]
        ) {
          const fts = await store.search(query, options);
          const before = loads;
          assertEquals(fts, await scanSearch(store, query, options), query);
          assert(loads > before, "the scan loads");
          loads = before;
        }
      }
      assertEquals(loads, 0, "FTS never loads a session");
    });
  });
}
