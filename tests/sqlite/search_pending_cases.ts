/**
 * The SQLite search over a session whose index was left for the first search (an import):
 * hits are reported as chunks of it are matched, long before it is indexed whole; the final
 * hits and the built index equal those of the one-pass build; an aborted search leaves
 * what it indexed to the next one; two searches at once never index an entry twice.
 */
import { scanSearch, type SearchHit, type SessionEntry, type SessionHeader } from "../../core.ts";
import { SqliteSessionStore } from "../../stores/sqlite/store.ts";
import { PENDING_CHUNK } from "../../stores/sqlite/search/_pending.ts";
import type { SqliteDatabase } from "../../stores/sqlite/_schema.ts";
import { assert, assertEquals } from "../conformance/assert.ts";
import { type SqliteTestRuntime, withDatabase } from "./runtime.ts";
import { indexRows, pending } from "./search_cases.ts";

type Test = (name: string, fn: () => Promise<void>) => void;

/** Entries of the big session: a match every 7th entry, so every chunk has hits. */
const ENTRIES = 3 * PENDING_CHUNK + 10;

function bigSession(count = ENTRIES): { header: SessionHeader; entries: SessionEntry[] } {
  const entries: SessionEntry[] = [];
  for (let i = 0; i < count; i++) {
    entries.push({
      type: "message",
      id: `e${i}`,
      parentId: i ? `e${i - 1}` : null,
      timestamp: new Date(Date.UTC(2026, 3, 1) + i * 1000).toISOString(),
      message: { role: "user", content: i % 7 ? `plain words ${i}` : `a token ${i}`, timestamp: 0 },
    });
  }
  const header: SessionHeader = {
    type: "session",
    version: 4,
    id: "big",
    createdAt: "2026-04-01T00:00:00.000Z",
    cwd: "/p",
  };
  return { header, entries };
}

/** The database with the index writes counted. */
function counting(raw: SqliteDatabase): { db: SqliteDatabase; docsWritten: () => number } {
  let written = 0;
  const db: SqliteDatabase = {
    exec: (sql) => raw.exec(sql),
    close: () => raw.close(),
    prepare: (sql) => {
      const statement = raw.prepare(sql);
      if (!sql.startsWith("INSERT INTO search_docs")) return statement;
      return {
        ...statement,
        get: (...p) => statement.get(...p),
        all: (...p) => statement.all(...p),
        run: (...p) => {
          written++;
          return statement.run(...p);
        },
      };
    },
  };
  return { db, docsWritten: () => written };
}

const OPTIONS = { deferSearchIndexAbove: 10, searchIndexIdleMs: Infinity };

/** The index a one-pass rebuild makes of the same data. */
async function rebuiltRows(store: SqliteSessionStore, raw: SqliteDatabase): Promise<string[]> {
  await store.rebuildSearchIndex();
  return indexRows(raw);
}

/**
 * A store (through `open`, default the runtime's) holding the big session of `count`
 * entries, pending, and the raw database beside it.
 */
async function withPendingSession(
  runtime: SqliteTestRuntime,
  fn: (store: SqliteSessionStore, raw: SqliteDatabase, entries: SessionEntry[]) => Promise<void>,
  { count = ENTRIES, open = (path: string) => runtime.openStore(path, OPTIONS) } = {},
): Promise<void> {
  await withDatabase(runtime, async ({ path }) => {
    const raw = runtime.openRaw(path);
    const store = await open(path);
    try {
      const { header, entries } = bigSession(count);
      await store.create(header, entries);
      assertEquals(pending(raw), ["big"]);
      await fn(store, raw, entries);
    } finally {
      await store.close();
      raw.close();
    }
  });
}

export function searchPendingCases(t: Test, runtime: SqliteTestRuntime): void {
  t(
    "a pending session's first hits are reported after one chunk, the last equal the scan's",
    async () => {
      await withPendingSession(runtime, async (store, raw) => {
        const reports: { hits: SearchHit[]; entriesDone: number; entries: number }[] = [];
        const hits = await store.search("token", {
          limit: 20,
          onProgress: (progress) => reports.push(progress),
        });
        const firstHits = reports.find((report) => report.hits.length > 0);
        assert(firstHits !== undefined, "hits were reported before the search finished");
        assert(
          firstHits.entriesDone <= PENDING_CHUNK,
          `first hits after ${firstHits.entriesDone} of ${ENTRIES} entries`,
        );
        assertEquals(reports.map((r) => r.entries), reports.map(() => ENTRIES));
        for (let i = 1; i < reports.length; i++) {
          assert(reports[i].entriesDone >= reports[i - 1].entriesDone, "progress only grows");
        }
        assertEquals(pending(raw), [], "indexed whole by the search");
        assertEquals(hits, await scanSearch(store, "token", { limit: 20 }));
        const built = indexRows(raw);
        assertEquals(built, await rebuiltRows(store, raw), "chunked equals one pass");
        const quiet: unknown[] = [];
        await store.search("token", { onProgress: (p) => quiet.push(p) });
        assertEquals(quiet, [], "an indexed store answers at once, without partial results");
      });
    },
  );

  t("an aborted search leaves what it indexed to the next search", async () => {
    let docsWritten = () => 0;
    await withPendingSession(runtime, async (store, raw) => {
      const abort = new AbortController();
      let failure: unknown;
      try {
        await store.search("token", {
          signal: abort.signal,
          onProgress: ({ entriesDone }) => {
            if (entriesDone > 0) abort.abort(new Error("a newer query"));
          },
        });
      } catch (error) {
        failure = error;
      }
      assert(failure instanceof Error, "the aborted search rejects");
      assertEquals(pending(raw), ["big"], "still pending: not indexed whole");
      const before = docsWritten();
      assert(before > 0 && before < ENTRIES, `${before} entries indexed before the abort`);
      const hits = await store.search("token");
      assertEquals(docsWritten() - before, ENTRIES - before, "the rest only, nothing twice");
      assertEquals(pending(raw), []);
      assertEquals(hits, await scanSearch(store, "token"));
      assertEquals(indexRows(raw), await rebuiltRows(store, raw));
    }, {
      open: (path) => {
        const counted = counting(runtime.openRaw(path));
        docsWritten = counted.docsWritten;
        return SqliteSessionStore.open(counted.db, OPTIONS);
      },
    });
  });

  t("an append while a search indexes a pending session is found by the next search", async () => {
    await withPendingSession(runtime, async (store, raw, entries) => {
      const late: SessionEntry = {
        ...entries[0],
        id: "late",
        parentId: entries.at(-1)!.id,
        timestamp: new Date(Date.UTC(2027, 0, 1)).toISOString(),
        message: { role: "user", content: "a latecomer", timestamp: 0 },
      } as SessionEntry;
      let appended: Promise<void> | undefined;
      await store.search("token", {
        onProgress: ({ entriesDone }) => {
          // As the last chunk is reported: the append must not fall between its read
          // and the end of the session's pending state.
          if (entriesDone > 0) appended ??= store.append("big", [late]);
        },
      });
      assert(appended !== undefined, "appended during the search");
      await appended;
      assertEquals((await store.search("latecomer")).map((hit) => hit.entryId), ["late"]);
      assertEquals(indexRows(raw), await rebuiltRows(store, raw));
    }, { count: PENDING_CHUNK - 1 }); // one chunk: its first report is the last chunk's
  });

  t("two searches at once index a pending session once, both with the scan's hits", async () => {
    await withPendingSession(runtime, async (store, raw) => {
      const [a, b] = await Promise.all([store.search("token"), store.search("plain 1")]);
      assertEquals(pending(raw), []);
      assertEquals(a, await scanSearch(store, "token"));
      assertEquals(b, await scanSearch(store, "plain 1"));
      assertEquals(indexRows(raw), await rebuiltRows(store, raw), "no row written twice");
    });
  });
}
