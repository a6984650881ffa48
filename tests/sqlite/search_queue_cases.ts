/**
 * The SQLite search index's write queue (schema step 8, `stores/sqlite/_search_queue.ts`):
 * single-entry appends write FTS5 texts a batch at a time instead of one segment per
 * commit, a search writes the rest out first, and a failure to write them never loses an
 * entry or a hit.
 */
import { scanSearch, type SessionEntry, type SessionHeader } from "../../core.ts";
import { SqliteSessionStore } from "../../stores/sqlite/store.ts";
import type { SqliteDatabase } from "../../stores/sqlite/_schema.ts";
import { QUEUE_FLUSH_AT } from "../../stores/sqlite/_search_queue.ts";
import { assert, assertEquals } from "../conformance/assert.ts";
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

/** A connection counting the transactions that wrote FTS5 texts, and failing them on demand. */
function counting(raw: SqliteDatabase) {
  const log = { commits: 0, ftsCommits: 0, wrote: false, fail: false };
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
      if (!/^INSERT INTO search_(fts|words) /.test(sql)) return statement;
      return {
        get: (...p) => statement.get(...p),
        all: (...p) => statement.all(...p),
        run: (...p) => {
          if (log.fail) throw new Error("injected index fault");
          log.wrote = true;
          return statement.run(...p);
        },
      };
    },
  };
  return { db, log };
}

export function searchQueueCases(t: Test, runtime: SqliteTestRuntime): void {
  t("single-entry appends write the FTS texts a batch at a time, same hits", async () => {
    await withDatabase(runtime, async ({ path }) => {
      const { db, log } = counting(runtime.openRaw(path));
      const store = await SqliteSessionStore.open(db);
      try {
        await store.create(header("s"));
        const appends = 3 * QUEUE_FLUSH_AT + 5;
        log.commits = log.ftsCommits = 0;
        for (let e = 0; e < appends; e++) {
          await store.append("s", [say(`e${e}`, e ? `e${e - 1}` : null, `refreshToken ${e}`)]);
        }
        assertEquals(log.commits, appends);
        assertEquals(log.ftsCommits, 3, "one FTS write per full queue, not one per append");
        const hits = await store.search("refreshTok", { limit: 500 });
        assertEquals(log.ftsCommits, 4, "the search wrote the rest of the queue first");
        assertEquals(hits.length, appends);
        assertEquals(hits, await scanSearch(store, "refreshTok", { limit: 500 }));
      } finally {
        await store.close();
      }
    });
  });

  t("a queue that cannot be written keeps every entry and hit", async () => {
    await withDatabase(runtime, async ({ path }) => {
      const raw = runtime.openRaw(path);
      const { db, log } = counting(raw);
      const store = await SqliteSessionStore.open(db);
      const pending = () =>
        raw.prepare("SELECT session_id FROM search_pending").all().map((r) => r.session_id);
      try {
        await store.create(header("a"), [say("e0", null, "token in a")]);
        await store.create(header("b"));
        log.fail = true;
        // The append filling the queue fails to write it: its entry commits, the queued
        // sessions become pending (searched by scanning, indexed again later).
        for (let e = 1; e <= QUEUE_FLUSH_AT; e++) {
          await store.append("b", [say(`e${e}`, e > 1 ? `e${e - 1}` : null, `token ${e}`)]);
        }
        assertEquals((await store.load("b")).entries.length, QUEUE_FLUSH_AT);
        assertEquals(pending().sort(), ["a", "b"]);
        const hits = await store.search("token", { limit: 500 });
        assertEquals(hits.length, QUEUE_FLUSH_AT + 1);
        assertEquals(hits, await scanSearch(store, "token", { limit: 500 }));
        log.fail = false;
        assertEquals(await store.search("token", { limit: 500 }), hits);
        assertEquals(pending(), [], "indexed by the search once writing works");
        // Deleting a session with queued rows leaves no hit behind.
        await store.append("a", [say("e99", "e0", "token again")]);
        await store.delete("a");
        const left = await store.search("token", { limit: 500 });
        assert(left.every((hit) => hit.sessionId === "b"));
        assertEquals(left, await scanSearch(store, "token", { limit: 500 }));
      } finally {
        await store.close(); // closes `raw` too
      }
    });
  });
}
