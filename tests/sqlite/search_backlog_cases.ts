/**
 * The SQLite search index's backlog (schema step 10, `stores/sqlite/search/_backlog.ts`):
 * small appends tokenize nothing and record their session's backlog in their own
 * transaction; it is indexed when the writer is idle, before every search, and by appends
 * once a session is far behind. A failure to index it never loses an entry or a hit.
 */
import { scanSearch, type SessionEntry, type SessionHeader } from "../../core.ts";
import { SqliteSessionStore } from "../../stores/sqlite/store.ts";
import type { SqliteDatabase } from "../../stores/sqlite/_schema.ts";
import { BACKLOG_BATCH, BACKLOG_BOUND } from "../../stores/sqlite/search/_backlog.ts";
import { assert, assertEquals } from "../conformance/assert.ts";
import { toSchema9 } from "./context_cases.ts";
import { type SqliteTestRuntime, withDatabase } from "./runtime.ts";

type Test = (name: string, fn: () => Promise<void>) => void;

const header = (id: string): SessionHeader => ({
  type: "session",
  version: 4,
  id,
  createdAt: "2026-04-01T00:00:00.000Z",
  cwd: "/p",
});

const say = (id: string, parentId: string | null, text: string): SessionEntry => ({
  type: "message",
  id,
  parentId,
  timestamp: new Date(Date.UTC(2026, 3, 1) + Number(id.slice(1)) * 1000).toISOString(),
  message: { role: "user", content: text, timestamp: 0 },
});

/** `count` entries of one chain, `e{from}`... */
const chain = (from: number, count: number, text: string): SessionEntry[] =>
  Array.from(
    { length: count },
    (_, i) => say(`e${from + i}`, from + i ? `e${from + i - 1}` : null, `${text} ${from + i}`),
  );

/** A connection counting FTS5 text writes and the commits with any, failing them on demand. */
function counting(raw: SqliteDatabase) {
  const log = { commits: 0, ftsCommits: 0, texts: 0, wrote: false, fail: false };
  const db: SqliteDatabase = {
    exec: (sql) => {
      raw.exec(sql);
      if (sql === "COMMIT") {
        log.commits++;
        if (log.wrote) log.ftsCommits++;
        log.wrote = false;
      }
    },
    close: () => raw.close(),
    prepare: (sql) => {
      const statement = raw.prepare(sql);
      if (!/^INSERT INTO search_fts /.test(sql)) return statement;
      return {
        get: (...p) => statement.get(...p),
        all: (...p) => statement.all(...p),
        run: (...p) => {
          if (log.fail) throw new Error("injected index fault");
          log.wrote = true;
          log.texts++;
          return statement.run(...p);
        },
      };
    },
  };
  return { db, log };
}

/** A store over a {@link counting} connection (its raw side kept for queries), idle as given. */
async function countingStore(runtime: SqliteTestRuntime, path: string, searchIndexIdleMs: number) {
  const raw = runtime.openRaw(path);
  const { db, log } = counting(raw);
  return { raw, log, store: await SqliteSessionStore.open(db, { searchIndexIdleMs }) };
}

const backlog = (raw: SqliteDatabase) =>
  raw.prepare("SELECT session_id, from_seq FROM search_backlog ORDER BY session_id").all()
    .map((row) => [String(row.session_id), Number(row.from_seq)]);

/** Resolves once `done()` holds (polled on timer turns); rejects after `limitMs`. */
async function until(done: () => boolean, limitMs = 20_000): Promise<void> {
  const start = Date.now();
  while (!done()) {
    if (Date.now() - start > limitMs) throw new Error("condition not reached");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export function searchBacklogCases(t: Test, runtime: SqliteTestRuntime): void {
  t("small appends tokenize nothing; a search indexes their backlog first, same hits", async () => {
    await withDatabase(runtime, async ({ path }) => {
      const { raw, log, store } = await countingStore(runtime, path, Infinity);
      try {
        await store.create(header("s"));
        const appends = 3 * BACKLOG_BATCH + 5;
        log.commits = log.ftsCommits = 0;
        for (const entry of chain(0, appends, "refreshToken")) await store.append("s", [entry]);
        assertEquals(log.commits, appends);
        assertEquals(log.texts, 0, "no append wrote an FTS text");
        assertEquals(backlog(raw), [["s", 0]], "one backlog row, written by the first append");
        const hits = await store.search("refreshTok", { limit: 500 });
        assertEquals([log.ftsCommits, log.texts], [1, appends], "the search indexed them once");
        assertEquals(backlog(raw), []);
        assertEquals(hits.length, appends);
        assertEquals(hits, await scanSearch(store, "refreshTok", { limit: 500 }));
        // A batch (an import, a create with entries) is indexed in its own write.
        await store.create(header("t"), chain(0, BACKLOG_BATCH, "batch"));
        assertEquals([log.texts, backlog(raw).length], [appends + BACKLOG_BATCH, 0]);
      } finally {
        await store.close(); // closes `raw` too
      }
    });
  });

  t("the backlog is indexed once the writer is idle, a batch a turn", async () => {
    await withDatabase(runtime, async ({ path }) => {
      const { raw, log, store } = await countingStore(runtime, path, 0);
      try {
        await store.create(header("s"));
        const appends = 2 * BACKLOG_BATCH + 3;
        // Appended in one synchronous run of awaits: no timer turn comes between them.
        for (const entry of chain(0, appends, "idle")) await store.append("s", [entry]);
        assertEquals(backlog(raw), [["s", 0]]);
        await until(() => backlog(raw).length === 0);
        assertEquals(log.texts, appends);
        assertEquals(log.ftsCommits, 3, "a batch of entries per timer turn");
        const hits = await store.search("idle", { limit: 500 });
        assertEquals(log.ftsCommits, 3, "nothing left for the search to index");
        assertEquals(hits, await scanSearch(store, "idle", { limit: 500 }));
      } finally {
        await store.close();
      }
    });
  });

  t("appends to a session far behind index its oldest entries", async () => {
    await withDatabase(runtime, async ({ path }) => {
      const { raw, log, store } = await countingStore(runtime, path, Infinity);
      try {
        await store.create(header("s"));
        const entries = chain(0, BACKLOG_BOUND + 1, "far");
        for (const entry of entries.slice(0, BACKLOG_BOUND - 1)) await store.append("s", [entry]);
        assertEquals([log.texts, backlog(raw)], [0, [["s", 0]]]);
        await store.append("s", [entries[BACKLOG_BOUND - 1]]); // now BACKLOG_BOUND behind
        assertEquals([log.texts, backlog(raw)], [BACKLOG_BATCH, [["s", BACKLOG_BATCH]]]);
        await store.append("s", [entries[BACKLOG_BOUND]]); // below the bound again
        assertEquals(log.texts, BACKLOG_BATCH);
        const hits = await store.search("far", { limit: 5000 });
        assertEquals(hits.length, BACKLOG_BOUND + 1);
        assertEquals(hits, await scanSearch(store, "far", { limit: 5000 }));
      } finally {
        await store.close();
      }
    });
  });

  t(
    "closing the store indexes its backlog; one that dies leaves it to the next search",
    async () => {
      await withDatabase(runtime, async ({ path }) => {
        const raw = runtime.openRaw(path);
        try {
          const closed = await runtime.openStore(path, { searchIndexIdleMs: Infinity });
          await closed.create(header("a"));
          for (const entry of chain(0, 5, "closed")) await closed.append("a", [entry]);
          assertEquals(backlog(raw), [["a", 0]]);
          await closed.close();
          assertEquals(backlog(raw), [], "indexed when the store closed");
          // A process that dies never closes its store: only its connection goes.
          const handle = runtime.openRaw(path);
          const dying = await SqliteSessionStore.open(handle, { searchIndexIdleMs: Infinity });
          await dying.create(header("b"));
          for (const entry of chain(0, 5, "survives")) await dying.append("b", [entry]);
          handle.close();
          assertEquals(backlog(raw), [["b", 0]]);
          const next = await runtime.openStore(path);
          try {
            assertEquals((await next.search("survives")).length, 5);
            assertEquals(backlog(raw), []);
            assertEquals((await next.search("closed")).length, 5);
          } finally {
            await next.close();
          }
        } finally {
          raw.close();
        }
      });
    },
  );

  t("a backlog that cannot be indexed keeps every entry and hit", async () => {
    await withDatabase(runtime, async ({ path }) => {
      const { raw, log, store } = await countingStore(runtime, path, 0);
      const pending = () =>
        raw.prepare("SELECT session_id FROM search_pending").all().map((r) => r.session_id);
      try {
        await store.create(header("a"), [say("e0", null, "token in a")]);
        await store.create(header("b"));
        log.fail = true;
        for (const entry of chain(1, 10, "token")) await store.append("b", [entry]);
        // Idle turns fail and leave the backlog as it was.
        await new Promise((resolve) => setTimeout(resolve, 50));
        assertEquals(backlog(raw), [["a", 0], ["b", 0]]);
        assertEquals((await store.load("b")).entries.length, 10);
        // The search cannot index it either: its sessions become pending (scanned).
        const hits = await store.search("token", { limit: 500 });
        assertEquals(backlog(raw), []);
        assertEquals(pending().sort(), ["a", "b"]);
        assertEquals(hits.length, 11);
        assertEquals(hits, await scanSearch(store, "token", { limit: 500 }));
        log.fail = false;
        assertEquals(await store.search("token", { limit: 500 }), hits);
        assertEquals(pending(), [], "indexed by the search once writing works");
        // Deleting a session with a backlog leaves no hit and no backlog behind.
        await store.append("a", [say("e99", "e0", "token again")]);
        await store.delete("a");
        assertEquals(backlog(raw), []);
        const left = await store.search("token", { limit: 500 });
        assert(left.every((hit) => hit.sessionId === "b"));
        assertEquals(left, await scanSearch(store, "token", { limit: 500 }));
      } finally {
        await store.close();
      }
    });
  });

  t("a step-9 database's queued rows are indexed again after the upgrade", async () => {
    await withDatabase(runtime, async ({ path }) => {
      const store = await runtime.openStore(path, { searchIndexIdleMs: Infinity });
      await store.create(header("s"), chain(0, 3, "queued"));
      await store.search("queued"); // indexed
      await store.close();
      const raw = runtime.openRaw(path);
      try {
        // As steps 8-9 left a small append: its index row written, its text only queued.
        toSchema9(raw);
        raw.exec("PRAGMA user_version = 9");
        raw.exec(`INSERT INTO search_docs (session_id, seq, entry_id, role, ts, tkey)
          SELECT session_id, seq, entry_id, role, ts, tkey FROM search_docs WHERE seq = 2`);
        raw.exec("INSERT INTO search_queue (id) VALUES (last_insert_rowid())");
        const upgraded = await runtime.openStore(path);
        try {
          const pending = raw.prepare("SELECT session_id FROM search_pending").all();
          assertEquals(pending.map((row) => row.session_id), ["s"]);
          const hits = await upgraded.search("queued");
          assertEquals(hits.length, 3);
          assertEquals(hits, await scanSearch(upgraded, "queued"));
        } finally {
          await upgraded.close();
        }
      } finally {
        raw.close();
      }
    });
  });
}
