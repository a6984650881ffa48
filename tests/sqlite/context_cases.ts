/**
 * The SQLite store's context-only load (`loadContext`, stores/sqlite/_context.ts): equal to
 * the full projection on every fixture, every leaf and a generated session; planned from the
 * indexed flags, so it parses only the rows it returns; and answering the same from a
 * schema-5 database whose rows have no flags yet (migrated to schema 6).
 */
import { type SqliteDatabase, SqliteSessionStore } from "../../stores/sqlite/store.ts";
import { assert, assertEquals } from "../conformance/assert.ts";
import {
  compareAfterMigration,
  compareEveryFixture,
  compareLeaves,
} from "../unit/context_compare.ts";
import { generatedSession } from "../unit/context_sessions.ts";
import { type SqliteTestRuntime, withDatabase } from "./runtime.ts";

/** Undo schema step 12 (the index of label rows). */
export function toSchema11(raw: SqliteDatabase): void {
  raw.exec("DROP INDEX IF EXISTS entries_labels");
}

/** Undo schema steps 12 and 11 (the index of rows whose parent may be missing). */
export function toSchema10(raw: SqliteDatabase): void {
  toSchema11(raw);
  raw.exec("DROP INDEX IF EXISTS entries_dangling");
}

/** Undo schema steps 11 and 10 (the search backlog): step 8's queue instead, empty. */
export function toSchema9(raw: SqliteDatabase): void {
  toSchema10(raw);
  raw.exec("DROP TABLE IF EXISTS search_backlog");
  raw.exec("CREATE TABLE IF NOT EXISTS search_queue (id INTEGER PRIMARY KEY)");
}

/** Undo schema steps 11 to 9 (the path pointers), to test a database written before them. */
export function toSchema8(raw: SqliteDatabase): void {
  toSchema9(raw);
  raw.exec("DROP INDEX IF EXISTS entries_by_id");
  raw.exec("DROP INDEX IF EXISTS entries_unwalked");
  const columns = raw.prepare("SELECT name FROM pragma_table_info('entries')").all();
  if (columns.some((row) => row.name === "walk")) raw.exec("ALTER TABLE entries DROP COLUMN walk");
}

/** Undo schema step 8 (the search word index), to test a database written before it. */
export function toSchema7(raw: SqliteDatabase): void {
  toSchema8(raw);
  raw.exec("DROP TABLE IF EXISTS search_words");
  raw.exec("DROP TABLE IF EXISTS search_queue");
}

/**
 * Undo schema step 7 (the search rows' time key) when the search tables exist: rows keep
 * step 6's shape, as a database written before it has them.
 */
export function toSchema6(raw: SqliteDatabase): void {
  toSchema7(raw);
  raw.exec("DROP INDEX IF EXISTS search_docs_by_time");
  const columns = raw.prepare("SELECT name FROM pragma_table_info('search_docs')").all();
  if (columns.some((row) => row.name === "tkey")) {
    raw.exec("ALTER TABLE search_docs DROP COLUMN tkey");
  }
}

/** Drop every table of the search index (a database from before search had none). */
export function dropSearchTables(raw: SqliteDatabase): void {
  for (
    const table of ["search_fts", "search_words", "search_backlog", "search_docs", "search_pending"]
  ) {
    raw.exec(`DROP TABLE IF EXISTS ${table}`);
  }
}

/** Undo schema step 6 (the context flags) on a raw connection, to test older databases. */
export function toSchema5(raw: SqliteDatabase): void {
  toSchema6(raw);
  raw.exec("DROP INDEX IF EXISTS entries_walk");
  raw.exec("ALTER TABLE entries DROP COLUMN flags");
  raw.exec("CREATE INDEX entries_walk ON entries (session_id, seq, entry_id, parent_id)");
}

type Test = (name: string, fn: () => Promise<void>) => void;

/** A database connection that counts the entry rows parsed (`SELECT json ...` reads). */
export function countingJsonReads(db: SqliteDatabase): { db: SqliteDatabase; reads: () => number } {
  let reads = 0;
  return {
    reads: () => reads,
    db: {
      exec: (sql) => db.exec(sql),
      close: () => db.close(),
      prepare(sql) {
        const statement = db.prepare(sql);
        if (!/^SELECT json FROM entries/.test(sql)) return statement;
        return {
          run: (...params) => statement.run(...params),
          get: (...params) => (reads++, statement.get(...params)),
          all: (...params) => {
            const rows = statement.all(...params);
            reads += rows.length;
            return rows;
          },
        };
      },
    },
  };
}

export function contextCases(t: Test, runtime: SqliteTestRuntime): void {
  t("loadContext equals the full projection on every fixture and every leaf", async () => {
    await withDatabase(runtime, async ({ store }) => {
      await compareEveryFixture(store);
    });
  });

  t("loadContext parses only the context range and the replayed settings", async () => {
    const dir = await runtime.tempDir();
    const { db, reads } = countingJsonReads(runtime.openRaw(`${dir}/sessions.db`));
    const store = await SqliteSessionStore.open(db);
    try {
      const session = generatedSession(4_000, 4_000);
      await store.create(session.header, session.entries);
      assert((await compareLeaves(store, session, 401)) < 5);
      const before = reads();
      const loaded = await store.loadContext(session.header.id);
      const parsed = reads() - before;
      assertEquals(parsed, loaded.prefix.length + loaded.entries.length);
      assert(parsed < session.entries.length / 2, `${parsed} rows parsed`);
    } finally {
      await store.close();
      await runtime.removeDir(dir);
    }
  });

  t("a schema-5 database (rows without flags) migrates and answers the same", async () => {
    const session = generatedSession(3_000, 3_000);
    await withDatabase(runtime, async ({ path, store }) => {
      await migrateAndCompare(runtime, { path, store }, session, 5, toSchema5, (check) => {
        const flags = check.prepare(
          "SELECT COUNT(*) AS unknown, COUNT(flags) AS known FROM entries",
        ).get()!;
        assertEquals(Number(flags.unknown) - Number(flags.known), session.entries.length);
        assertEquals(Number(flags.known), 1, "new rows get their flags");
      });
    });
  });
}

/**
 * Write `session`, turn the file back into schema `version` (`undo`), reopen it (the store
 * migrates it), compare its projections with the full ones (`compareAfterMigration`), then
 * look at the migrated file through `check`.
 */
export async function migrateAndCompare(
  runtime: SqliteTestRuntime,
  { path, store }: { path: string; store: SqliteSessionStore },
  session: ReturnType<typeof generatedSession>,
  version: number,
  undo: (raw: SqliteDatabase) => void,
  check: (raw: SqliteDatabase) => void,
): Promise<void> {
  await store.create(session.header, session.entries);
  await store.close();
  const raw = runtime.openRaw(path);
  undo(raw);
  raw.exec(`PRAGMA user_version = ${version}`);
  raw.close();
  const migrated = await runtime.openStore(path);
  try {
    await compareAfterMigration(migrated, session);
  } finally {
    await migrated.close();
  }
  const after = runtime.openRaw(path);
  try {
    check(after);
  } finally {
    after.close();
  }
}
