/**
 * `SessionManager.open` over the SQLite store parses entries lazily (src/lazy_index.ts,
 * stores/sqlite/_lazy.ts): resuming a session parses only its context range, every getter
 * answers like a manager over the fully loaded session (fixtures, labels and trees read
 * through SQL), and a manager keeps answering after its store closes or the session is
 * replaced or deleted under it.
 */
import {
  SessionFormatError,
  SessionManager,
  SessionStorageError,
  SessionView,
} from "../../core.ts";
import { SqliteSessionStore } from "../../stores/sqlite/store.ts";
import { assert, assertEquals, assertThrows } from "../conformance/assert.ts";
import { generatedSession, parseableFixtures, type TestSession } from "../unit/context_sessions.ts";
import { answers } from "../unit/lazy_answers.ts";
import { countingJsonReads } from "./context_cases.ts";
import { type SqliteTestRuntime, withDatabase } from "./runtime.ts";

type Test = (name: string, fn: () => Promise<void>) => void;

function expected(session: TestSession) {
  const view = new SessionView({ header: session.header, entries: session.entries });
  return answers(view, session.entries.map((entry) => entry.id));
}

export function lazyCases(t: Test, runtime: SqliteTestRuntime): void {
  t("SessionManager.open parses only the context range to resume", async () => {
    const dir = await runtime.tempDir();
    const { db, reads } = countingJsonReads(runtime.openRaw(`${dir}/sessions.db`));
    const store = await SqliteSessionStore.open(db);
    try {
      const session = generatedSession(4_000, 4_000);
      await store.create(session.header, session.entries);
      const before = reads();
      const manager = await SessionManager.open(store, session.header.id);
      manager.buildSessionContext();
      const parsed = reads() - before;
      const loaded = await store.loadContext(session.header.id);
      assertEquals(parsed, loaded.prefix.length + loaded.entries.length, "a context load's rows");
      assert(parsed < session.entries.length / 2, `${parsed} rows parsed to resume`);
      const ids = session.entries.map((entry) => entry.id);
      assertEquals(answers(manager, ids), expected(session));
      // An append lands on the lazily indexed session like on a loaded one.
      const id = await manager.appendThinkingLevelChange("high");
      assertEquals(manager.getBranch().at(-2)?.id, ids.at(-1));
      assertEquals((await SessionManager.open(store, session.header.id)).getLeafId(), id);
    } finally {
      await store.close();
      await runtime.removeDir(dir);
    }
  });

  t("SessionManager.open answers like a full load on every fixture", async () => {
    await withDatabase(runtime, async ({ store }) => {
      const seen = new Set<string>();
      for (const session of parseableFixtures()) {
        if (seen.has(session.header.id)) continue; // fixtures share a few ids
        seen.add(session.header.id);
        await store.create(session.header, session.entries);
        const manager = await SessionManager.open(store, session.header.id);
        const ids = session.entries.map((entry) => entry.id);
        assertEquals(answers(manager, ids), expected(session), session.name);
      }
    });
  });

  t("a lazily opened manager keeps its session when the store replaces or deletes it", async () => {
    const session = generatedSession(500, 11);
    const ids = session.entries.map((entry) => entry.id);
    const other = generatedSession(300, 12).entries;
    await withDatabase(runtime, async ({ store }) => {
      await store.create(session.header, session.entries);
      const replaced = await SessionManager.open(store, session.header.id);
      const deleted = await SessionManager.open(store, session.header.id);
      await store.replace(session.header, other);
      assertEquals(answers(replaced, ids), expected(session));
      await store.replace(session.header, session.entries);
      await store.delete(session.header.id);
      assertEquals(answers(deleted, ids), expected(session));
    });
  });

  t(
    "after its store closes, a lazy manager keeps what it read; the rest raises the closed error",
    async () => {
      const session = generatedSession(3_000, 14); // a boundary: the context is a part
      await withDatabase(runtime, async ({ path, store }) => {
        await store.create(session.header, session.entries);
        const again = await runtime.openStore(path);
        const manager = await SessionManager.open(again, session.header.id);
        const context = manager.buildSessionContext();
        await again.close(); // copies nothing: closing never reads the whole session
        assertEquals(manager.buildSessionContext(), context);
        assertThrows(() => manager.getEntries(), SessionStorageError);
      });
    },
  );

  t("a row damaged on disk fails when the lazy manager reads it, with its line", async () => {
    const session = generatedSession(300, 13);
    await withDatabase(runtime, async ({ path, store }) => {
      await store.create(session.header, session.entries);
      const raw = runtime.openRaw(path);
      raw.prepare("UPDATE entries SET json = '{broken' WHERE entry_id = ?").run(
        session.entries[5].id,
      );
      raw.close();
      const manager = await SessionManager.open(store, session.header.id);
      const error = assertThrows(() => manager.getEntries(), SessionFormatError);
      assertEquals(error.line, 7);
      assertEquals(manager.getEntry(session.entries[6].id), session.entries[6]);
    });
  });
}
