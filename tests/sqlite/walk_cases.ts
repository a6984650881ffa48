/**
 * The SQLite store's path pointers (schema 9, stores/sqlite/_walk.ts): a context-only load
 * reads neither the session's tree nor rows off the context range; sessions written by
 * appends (every fixture entry by entry, reused ids, parents written after their child)
 * answer like the full projection on every leaf; a schema-8 database migrates and answers
 * the same.
 */
import {
  EntryConflictError,
  type SessionEntry,
  SessionManager,
  type SessionTreeNode,
  SessionView,
} from "../../core.ts";
import { type SqliteDatabase, SqliteSessionStore } from "../../stores/sqlite/store.ts";
import { assert, assertEquals, assertRejects } from "../conformance/assert.ts";
import { compareLeaves } from "../unit/context_compare.ts";
import {
  generatedSession,
  handMadeSessions,
  parseableFixtures,
  type TestSession,
} from "../unit/context_sessions.ts";
import { migrateAndCompare, toSchema8 } from "./context_cases.ts";
import { ID_LOOKUP_SQL } from "../../stores/sqlite/_walk.ts";
import { type SqliteTestRuntime, withDatabase } from "./runtime.ts";

type Test = (name: string, fn: () => Promise<void>) => void;

/** A connection that counts the entry rows every `SELECT ... FROM entries` hands out. */
function countingEntryRows(db: SqliteDatabase): {
  db: SqliteDatabase;
  rows: () => number;
  sql: string[];
} {
  let rows = 0;
  const sql: string[] = [];
  return {
    rows: () => rows,
    sql,
    db: {
      exec: (text) => db.exec(text),
      close: () => db.close(),
      prepare(text) {
        const statement = db.prepare(text);
        if (!/^SELECT\b[\s\S]*\bFROM entries\b/.test(text)) return statement;
        return {
          run: (...params) => statement.run(...params),
          get: (...params) => {
            sql.push(text);
            const row = statement.get(...params);
            if (row) rows++;
            return row;
          },
          all: (...params) => {
            sql.push(text);
            const all = statement.all(...params);
            rows += all.length;
            return all;
          },
        };
      },
    },
  };
}

/** Append `session`'s entries in chunks of 1, 2, 3, ... (cycling up to `most`). */
async function appendInChunks(store: SqliteSessionStore, session: TestSession, most: number) {
  await store.create(session.header, []);
  for (let at = 0, size = 1; at < session.entries.length; at += size, size = size % most + 1) {
    await store.append(session.header.id, session.entries.slice(at, at + size));
  }
}

/** A tree as (id, child count, label) rows, depth first, without recursion (deep paths). */
function flatTree(roots: SessionTreeNode[]): unknown[] {
  const rows: unknown[] = [];
  const stack = [...roots].reverse();
  for (let node = stack.pop(); node; node = stack.pop()) {
    rows.push([node.entry, node.children.length, node.label]);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
  }
  return rows;
}

let clock = 0;
const note = (id: string, parentId: string | null): SessionEntry => ({
  type: "thinking_level_change",
  id,
  parentId,
  timestamp: new Date(Date.UTC(2026, 4, 1) + ++clock * 1000).toISOString(),
  thinkingLevel: clock % 2 ? "low" : "high",
});

export function walkCases(t: Test, runtime: SqliteTestRuntime): void {
  t("loadContext reads neither the tree nor rows off the context range", async () => {
    const dir = await runtime.tempDir();
    const counting = countingEntryRows(runtime.openRaw(`${dir}/sessions.db`));
    const store = await SqliteSessionStore.open(counting.db);
    try {
      const session = generatedSession(4_000, 4_000);
      await store.create(session.header, session.entries);
      for (const leaf of [undefined, session.entries.at(-1)!.id, session.entries[3_000].id]) {
        const before = counting.rows();
        counting.sql.length = 0;
        const loaded = await store.loadContext(session.header.id, leaf);
        const read = counting.rows() - before;
        const returned = loaded.prefix.length + loaded.entries.length;
        assert(!counting.sql.some((sql) => /group_concat/.test(sql)), "no tree scan");
        // each returned row is read twice (pointers, then its JSON), plus a few lookups
        assert(read <= 2 * returned + 12, `${read} rows read for ${returned} returned`);
      }
    } finally {
      await store.close();
      await runtime.removeDir(dir);
    }
  });

  t(
    "SessionManager.open + buildSessionContext read no tree, the getters read it once",
    async () => {
      const dir = await runtime.tempDir();
      const counting = countingEntryRows(runtime.openRaw(`${dir}/sessions.db`));
      const store = await SqliteSessionStore.open(counting.db);
      try {
        const session = generatedSession(4_000, 4_002);
        await store.create(session.header, session.entries);
        counting.sql.length = 0;
        const before = counting.rows();
        const manager = await SessionManager.open(store, session.header.id);
        const context = manager.buildSessionContext();
        const read = counting.rows() - before;
        const loaded = await store.loadContext(session.header.id);
        const returned = loaded.prefix.length + loaded.entries.length;
        assert(!counting.sql.some((sql) => /group_concat/.test(sql)), "no tree scan to resume");
        assert(read <= 2 * returned + 16, `${read} rows read for ${returned} in the context`);
        // The getters that need the tree read it then, and answer like a full load.
        const full = new SessionView({ header: session.header, entries: session.entries });
        assertEquals(flatTree(manager.getTree()), flatTree(full.getTree()));
        assertEquals(manager.getEntries(), session.entries);
        assertEquals(manager.buildSessionContext(), context);
        assertEquals(counting.sql.filter((sql) => /group_concat/.test(sql)).length, 1);
      } finally {
        await store.close();
        await runtime.removeDir(dir);
      }
    },
  );

  t(
    "SessionManager.open then appends read no tree: rows read stay flat in the session's size",
    async () => {
      const dir = await runtime.tempDir();
      const counting = countingEntryRows(runtime.openRaw(`${dir}/sessions.db`));
      const store = await SqliteSessionStore.open(counting.db);
      try {
        const session = generatedSession(4_000, 4_000);
        await store.create(session.header, session.entries);
        const manager = await SessionManager.open(store, session.header.id);
        counting.sql.length = 0;
        const before = counting.rows();
        const first = await manager.appendMessage({ role: "user", content: "one", timestamp: 1 });
        for (let i = 0; i < 20; i++) {
          await manager.appendMessage({ role: "user", content: `more ${i}`, timestamp: 2 + i });
        }
        const read = counting.rows() - before;
        assert(!counting.sql.some((sql) => /group_concat/.test(sql)), "a tree scan to append");
        // a handful of lookups per append (the id is new, the parent's pointers), never the tree
        assert(read <= 21 * 4, `${read} rows read by 21 appends onto ${session.entries.length}`);
        // and the appends are where a full load finds them, under the leaf they were given
        const loaded = await store.load(session.header.id);
        assertEquals(loaded.entries.length, session.entries.length + 21);
        assertEquals(loaded.entries[session.entries.length].id, first);
        assertEquals(loaded.entries[session.entries.length].parentId, session.entries.at(-1)!.id);
        assertEquals(manager.getLeafId(), loaded.entries.at(-1)!.id);
        // the questions that read the tree afterwards see the appends after it, as a full load
        const full = new SessionView({ header: session.header, entries: loaded.entries });
        assertEquals(manager.buildSessionContext(), full.buildSessionContext());
        assertEquals(flatTree(manager.getTree()), flatTree(full.getTree()));
        assertEquals(manager.getEntries(), loaded.entries);
      } finally {
        await store.close();
        await runtime.removeDir(dir);
      }
    },
  );

  t("a write finds a parent's row through the id index, not by scanning the session", async () => {
    await withDatabase(runtime, async ({ path, store }) => {
      const session = generatedSession(300, 5);
      await store.create(session.header, session.entries);
      const raw = runtime.openRaw(path);
      try {
        const plan = raw.prepare(`EXPLAIN QUERY PLAN ${ID_LOOKUP_SQL}`).all("x", "y")
          .map((row) => String(row.detail)).join("; ");
        assert(/USING INDEX entries_by_id \(entry_id=\?\)/.test(plan), plan);
      } finally {
        raw.close();
      }
    });
  });

  t("sessions written by appends answer like the full projection on every leaf", async () => {
    await withDatabase(runtime, async ({ store }) => {
      const ids = new Set<string>();
      for (const session of [...parseableFixtures(), ...handMadeSessions()]) {
        if (ids.has(session.header.id)) continue;
        ids.add(session.header.id);
        await appendInChunks(store, session, 3);
        await compareLeaves(store, session);
      }
      const generated = generatedSession(1_500, 77);
      await appendInChunks(store, generated, 7);
      await compareLeaves(store, generated, 13);
    });
  });

  t("a parent written after its child still answers the same; a reused id is refused", async () => {
    await withDatabase(runtime, async ({ store }) => {
      const base = generatedSession(900, 31);
      const id = base.header.id;
      await store.create(base.header, base.entries);
      const appendAndCompare = async (entries: SessionEntry[], step: number) => {
        await store.append(id, entries);
        await compareLeaves(store, { ...base, entries: (await store.load(id)).entries }, step);
      };
      // a child of a parent not written yet, then the parent (the child's path changes)
      await appendAndCompare([note("orphan", "late-parent")], 29);
      await appendAndCompare([note("late-parent", base.entries[100].id)], 29);
      // a reused id is refused (ids are unique per session); nothing is written
      const reused = note(base.entries[400].id, base.entries[100].id);
      await assertRejects(
        () => store.append(id, [reused, note("after-reuse", reused.id)]),
        EntryConflictError,
      );
      await appendAndCompare([note("after-refusal", base.entries[400].id)], 17);
      // a new root after the reuse gets pointers again and answers the same
      await appendAndCompare([note("root-2", null), note("leaf-2", "root-2")], 11);
    });
  });

  t("a schema-8 database (rows without pointers) migrates and answers the same", async () => {
    const session = generatedSession(3_000, 3_001);
    await withDatabase(runtime, async ({ path, store }) => {
      await migrateAndCompare(runtime, { path, store }, session, 8, toSchema8, (check) => {
        const row = check.prepare("SELECT COUNT(*) AS n, COUNT(walk) AS known FROM entries").get()!;
        assertEquals(Number(row.n), session.entries.length + 1);
        assertEquals(Number(row.known), 0, "a row below rows without pointers gets none");
        const index = check.prepare(
          "SELECT 1 AS x FROM sqlite_master WHERE type = 'index' AND name = 'entries_by_id'",
        ).get();
        assert(index, "the id index is built by the migration");
      });
    });
  });
}
