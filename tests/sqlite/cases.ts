/**
 * SQLite-specific behaviour beyond the conformance suite, shared by the Deno and Node
 * runners: round trips, schema migration, failures that keep committed data, file mode,
 * the root-to-leaf path of loadContext, and listing without parsing entries.
 */
import {
  EntryConflictError,
  EntryNotFoundError,
  parseSessionJsonlSync,
  serializeSessionJsonl,
  type SessionEntry,
  SessionFormatError,
  type SessionHeader,
  SessionStorageError,
} from "../../core.ts";
import { contextOfLoaded, type LoadedContext } from "../../src/context_load.ts";
import { SQLITE_MIGRATIONS, SQLITE_SCHEMA_VERSION } from "../../stores/sqlite/_schema.ts";
import { agentDir, defaultSqlitePath } from "../../stores/default/agent_dir.ts";
import { assert, assertEquals, assertRejects } from "../conformance/assert.ts";
import type { Register } from "../conformance/harness.ts";
import { type SqliteTestRuntime, withDatabase } from "./runtime.ts";
import { concurrencyCase } from "./concurrency.ts";
import { searchCases } from "./search_cases.ts";
import { searchOrderCases } from "./search_order_cases.ts";
import { searchPendingCases } from "./search_pending_cases.ts";
import { searchBacklogCases } from "./search_backlog_cases.ts";
import { contextCases, dropSearchTables } from "./context_cases.ts";
import { lazyCases } from "./lazy_cases.ts";
import { walkCases } from "./walk_cases.ts";

const OLDER_FIXTURES = ["v1.jsonl", "v2.jsonl", "v3.jsonl", "early-v4.jsonl"];

function message(id: string, parentId: string | null, text: string): SessionEntry {
  return {
    type: "message",
    id,
    parentId,
    timestamp: "2026-04-01T00:00:00.000Z",
    message: { role: "user", content: text, timestamp: Date.UTC(2026, 3, 1) },
  };
}

function header(id: string): SessionHeader {
  return { type: "session", version: 4, id, createdAt: "2026-04-01T00:00:00.000Z", cwd: "/p" };
}

/** Root-to-leaf path computed in memory (later duplicate ids win, as in the tree index). */
function pathTo(entries: readonly SessionEntry[], leafId: string): string[] {
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  const path: string[] = [];
  for (let at = byId.get(leafId); at; at = at.parentId ? byId.get(at.parentId) : undefined) {
    path.unshift(at.id);
  }
  return path;
}

export function sqliteCases(register: Register, runtime: SqliteTestRuntime): void {
  const t = (name: string, fn: () => Promise<void>) =>
    register(`sqlite (${runtime.name}): ${name}`, fn);

  t("format-4 JSONL -> SQLite -> JSONL is byte-identical, also after reopening", async () => {
    const text = await runtime.readFixture("branchy-v4.jsonl");
    await withDatabase(runtime, async ({ path, store }) => {
      const parsed = parseSessionJsonlSync(text);
      await store.create(parsed.header, parsed.entries);
      assertEquals(await store.exportJsonl(parsed.header.id), text);
      const loaded = await store.load(parsed.header.id);
      assertEquals(loaded.entries, parsed.entries);
      // Byte identity is exportJsonl's job (above); a load gives the same data, not the text.
      const reparsed = parseSessionJsonlSync(serializeSessionJsonl(loaded.header, loaded.entries));
      assertEquals(reparsed.entries, parsed.entries);
      const again = await runtime.openStore(path);
      try {
        assertEquals(await again.exportJsonl(parsed.header.id), text);
        const row = (await again.list()).find((info) => info.id === parsed.header.id)!;
        assertEquals(row.name, 'Branchy "named" session');
        assertEquals(row.summary, "Fixed the cafe test");
        assertEquals(row.messageCount, 6);
        assertEquals(row.parentSessionId, "sq-parent");
        assertEquals(row.modified.getTime(), 1772359380000);
      } finally {
        await again.close();
      }
    });
  });

  t("v1/v2/v3/early-v4 input comes out of SQLite as valid format 4", async () => {
    await withDatabase(runtime, async ({ store }) => {
      for (const name of OLDER_FIXTURES) {
        const parsed = parseSessionJsonlSync(await runtime.readFixture(name));
        assert(parsed.upgraded, `${name} is upgraded on parse`);
        await store.create(parsed.header, parsed.entries);
        const exported = await store.exportJsonl(parsed.header.id);
        const reparsed = parseSessionJsonlSync(exported);
        assertEquals(reparsed.sourceVersion, 4, name);
        assertEquals(reparsed.upgraded, false, name);
        assertEquals(reparsed.header, parsed.header, name);
        assertEquals(reparsed.entries, parsed.entries, name);
        assertEquals(exported, serializeSessionJsonl(parsed.header, parsed.entries), name);
      }
    });
  });

  t("durability options apply on every driver (synchronous = NORMAL)", async () => {
    await withDatabase(runtime, async ({ path }) => {
      const relaxed = await runtime.openStore(path, { synchronous: "NORMAL" });
      try {
        const id = "sync-normal";
        await relaxed.create({
          type: "session",
          version: 4,
          id,
          createdAt: "2026-01-01T00:00:00.000Z",
          cwd: "/p",
        });
        assertEquals((await relaxed.load(id)).header.id, id);
      } finally {
        await relaxed.close();
      }
      await assertRejects(
        () => runtime.openStore(path, { synchronous: "NORMAL; DROP TABLE entries" }),
        SessionStorageError,
      );
    });
  });

  t("a new database has the current schema, WAL and the indexes", async () => {
    await withDatabase(runtime, async ({ path }) => {
      const raw = runtime.openRaw(path);
      try {
        const version = Number(raw.prepare("PRAGMA user_version").get()?.user_version);
        assertEquals(version, SQLITE_SCHEMA_VERSION);
        assertEquals(SQLITE_SCHEMA_VERSION, SQLITE_MIGRATIONS.length);
        assertEquals(raw.prepare("PRAGMA journal_mode").get()?.journal_mode, "wal");
        const names = raw.prepare("SELECT name FROM sqlite_master WHERE type IN ('table','index')")
          .all().map((row) => String(row.name));
        for (const name of ["sessions", "entries", "entries_walk", "sessions_by_cwd"]) {
          assert(names.includes(name), `${name} exists`);
        }
      } finally {
        raw.close();
      }
    });
  });

  t("an older schema is migrated forward on open and keeps its data", async () => {
    await withDatabase(runtime, async ({ path, store }) => {
      await store.create(header("kept"), [message("e1", null, "before migration")]);
      await store.close();
      // Turn the file back into what the first schema version wrote (it made no indexes).
      const raw = runtime.openRaw(path);
      assertEquals(SQLITE_MIGRATIONS[0].some((sql) => sql.includes("INDEX")), false);
      const indexes = raw.prepare(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%'",
      ).all();
      for (const { name } of indexes) raw.exec(`DROP INDEX ${name}`);
      dropSearchTables(raw); // the search index came later too
      raw.exec("ALTER TABLE entries DROP COLUMN flags"); // schema step 6 came later
      raw.exec("ALTER TABLE entries DROP COLUMN walk"); // and step 9
      raw.exec("PRAGMA user_version = 1");
      raw.close();
      const migrated = await runtime.openStore(path);
      try {
        assertEquals((await migrated.load("kept")).entries.map((e) => e.id), ["e1"]);
        assertEquals((await migrated.loadContext("kept", "e1")).entries.length, 1);
      } finally {
        await migrated.close();
      }
      const check = runtime.openRaw(path);
      try {
        const version = Number(check.prepare("PRAGMA user_version").get()?.user_version);
        assertEquals(version, SQLITE_SCHEMA_VERSION);
        const names = check.prepare("SELECT name FROM sqlite_master WHERE type = 'index'").all()
          .map((row) => String(row.name)).filter((name) => !name.startsWith("sqlite_")).sort();
        assertEquals(
          names,
          [
            "entries_by_id",
            "entries_dangling",
            "entries_labels",
            "entries_unwalked",
            "entries_walk",
            "search_docs_by_session",
            "search_docs_by_time",
            "sessions_by_cwd",
          ],
          "every later step applied",
        );
      } finally {
        check.close();
      }
    });
  });

  t("a database from a newer schema is refused and left untouched", async () => {
    await withDatabase(runtime, async ({ path, store }) => {
      await store.close();
      const raw = runtime.openRaw(path);
      raw.exec("PRAGMA user_version = 99");
      raw.close();
      await assertRejects(() => runtime.openStore(path), SessionStorageError, "newer");
      const check = runtime.openRaw(path);
      assertEquals(Number(check.prepare("PRAGMA user_version").get()?.user_version), 99);
      check.close();
    });
  });

  t("a write failing inside the transaction commits nothing; the store stays usable", async () => {
    await withDatabase(runtime, async ({ path, store }) => {
      const first = message("e1", null, "committed");
      await store.create(header("s"), [first]);
      const raw = runtime.openRaw(path);
      raw.exec(`CREATE TRIGGER poison BEFORE INSERT ON entries WHEN NEW.entry_id = 'poison'
        BEGIN SELECT RAISE(ABORT, 'simulated disk failure'); END`);
      raw.close();
      const good = message("e2", "e1", "good");
      await assertRejects(
        () => store.append("s", [good, message("poison", "e2", "bad")]),
        SessionStorageError,
        "simulated disk failure",
      );
      assertEquals((await store.load("s")).entries, [first]);
      assertEquals((await store.list()).find((row) => row.id === "s")?.messageCount, 1);
      await store.append("s", [good]);
      const again = await runtime.openStore(path);
      try {
        assertEquals((await again.load("s")).entries, [first, good]);
        assertEquals((await again.list()).find((row) => row.id === "s")?.messageCount, 2);
      } finally {
        await again.close();
      }
    });
  });

  t("a writer that cannot get the lock in time fails cleanly and can retry", async () => {
    await withDatabase(runtime, async ({ path }) => {
      const store = await runtime.openStore(path, { busyTimeoutMs: 50 });
      const raw = runtime.openRaw(path);
      try {
        await store.create(header("s"), [message("e1", null, "one")]);
        raw.exec("BEGIN IMMEDIATE"); // another connection holds the write lock
        await assertRejects(
          () => store.append("s", [message("e2", "e1", "two")]),
          SessionStorageError,
        );
        assertEquals((await store.load("s")).entries.length, 1, "reads still work");
        raw.exec("ROLLBACK");
        await store.append("s", [message("e2", "e1", "two")]);
        assertEquals((await store.load("s")).entries.map((e) => e.id), ["e1", "e2"]);
      } finally {
        raw.close();
        await store.close();
      }
    });
  });

  t("listing reads only session rows; a corrupt entry fails load with a typed error", async () => {
    await withDatabase(runtime, async ({ path, store }) => {
      await store.create(header("s"), [message("e1", null, "hello")]);
      const raw = runtime.openRaw(path);
      raw.exec("UPDATE entries SET json = '{broken' WHERE entry_id = 'e1'");
      raw.close();
      const row = (await store.list()).find((info) => info.id === "s");
      assertEquals(row?.firstMessage, "hello");
      const error = await assertRejects(() => store.load("s"), SessionFormatError);
      assertEquals(error.line, 2);
    });
  });

  t("loadContext resolves exactly the root-to-leaf path", async () => {
    const text = await runtime.readFixture("branchy-v4.jsonl");
    await withDatabase(runtime, async ({ path, store }) => {
      const { header: h, entries } = parseSessionJsonlSync(text);
      await store.create(h, entries);
      const contextIds = ({ prefix, entries }: LoadedContext) =>
        [...prefix, ...entries].map((entry) => entry.id);
      const ids = async (leaf?: string | null) => contextIds(await store.loadContext(h.id, leaf));
      const reference = async (leaf?: string | null) =>
        contextIds(contextOfLoaded(await store.load(h.id), leaf));
      for (const leaf of [undefined, null, "l0000001", "e5f6a7b8", "m0000001", "c3d4e5f6"]) {
        assertEquals(await ids(leaf), await reference(leaf), String(leaf));
      }
      assertEquals(await ids("c3d4e5f6"), pathTo(entries, "c3d4e5f6"));
      assertEquals((await store.loadContext(h.id, "c3d4e5f6")).header, h);
      await assertRejects(() => store.loadContext(h.id, "nope"), EntryNotFoundError);
      await store.create(header("empty"));
      assertEquals((await store.loadContext("empty")).entries, []);
      await assertRejects(() => store.loadContext("empty", "nope"), EntryNotFoundError);
      // A second entry under a stored id is refused; one already there (written before
      // ids were unique) is resolved to the later row, as in the in-memory tree index.
      const dup = message("a1b2c3d4", "m0000001", "duplicate id");
      await assertRejects(() => store.append(h.id, [dup]), EntryConflictError);
      const raw = runtime.openRaw(path);
      raw.exec(
        `INSERT INTO entries (session_id, seq, entry_id, parent_id, type, flags, walk, json)
         SELECT session_id, MAX(seq) + 1, 'a1b2c3d4', 'm0000001', 'message', 0, NULL,
           '${
          JSON.stringify(dup).replaceAll("'", "''")
        }' FROM entries WHERE session_id = '${h.id}'`,
      );
      raw.close();
      await store.append(h.id, [message("z0000001", "a1b2c3d4", "after dup")]);
      assertEquals(await ids("z0000001"), ["m0000001", "a1b2c3d4", "z0000001"]);
      // Corrupt parent links must not loop forever.
      const rawAgain = runtime.openRaw(path);
      rawAgain.exec("UPDATE entries SET parent_id = 'z0000001' WHERE entry_id = 'm0000001'");
      rawAgain.close();
      await assertRejects(() => store.loadContext(h.id, "z0000001"), SessionFormatError, "cycle");
    });
  });

  t("database files are created private (0600) with their directory", async () => {
    const dir = await runtime.tempDir();
    try {
      const path = `${dir}/agent/nested/sessions.db`;
      const store = await runtime.openStore(path);
      await store.create(header("secret"), [message("e1", null, "api key")]);
      assertEquals(await runtime.fileMode(path), 0o600);
      const wal = await runtime.fileMode(`${path}-wal`);
      assert(wal === undefined || wal === 0o600, `wal mode ${wal?.toString(8)}`);
      await store.close();
    } finally {
      await runtime.removeDir(dir);
    }
  });

  t("the default database path follows PI_CODING_AGENT_DIR or ~/.pi/agent", async () => {
    assertEquals(defaultSqlitePath({}, "/home/u"), "/home/u/.pi/agent/sessions.db");
    assertEquals(defaultSqlitePath({ HOME: "/h" }), "/h/.pi/agent/sessions.db");
    assertEquals(defaultSqlitePath({ PI_CODING_AGENT_DIR: "/etc/a" }, "/h"), "/etc/a/sessions.db");
    assertEquals(agentDir({ PI_CODING_AGENT_DIR: "~/x" }, "/h"), "/h/x");
    assertEquals(agentDir({ PI_CODING_AGENT_DIR: "" }, "/h/"), "/h/.pi/agent");
    assertEquals(defaultSqlitePath({}, "C:\\Users\\u"), "C:\\Users\\u\\.pi\\agent\\sessions.db");
  });

  concurrencyCase(t, runtime);
  searchCases(t, runtime);
  searchOrderCases(t, runtime);
  searchBacklogCases(t, runtime);
  searchPendingCases(t, runtime);
  contextCases(t, runtime);
  lazyCases(t, runtime);
  walkCases(t, runtime);
}
