/**
 * What the shared SQLite tests need from a runtime (Deno over node:sqlite, Node 20 over
 * better-sqlite3), so the same cases run in both without importing either driver here.
 */
import type { StoreSubject } from "../conformance/harness.ts";
import {
  type SqliteDatabase,
  SqliteSessionStore,
  type SqliteStoreOptions,
} from "../../stores/sqlite/store.ts";
import { faultySqlite } from "../conformance/faults.ts";
import type { AppendWorkerArgs } from "./append_worker_core.ts";

export interface SqliteTestRuntime {
  /** Driver name shown in test names: "node:sqlite", "better-sqlite3". */
  name: string;
  openStore(path: string, options?: SqliteStoreOptions): Promise<SqliteSessionStore>;
  /** A plain connection to the same file, for schema surgery and lock holding. */
  openRaw(path: string): SqliteDatabase;
  tempDir(): Promise<string>;
  removeDir(dir: string): Promise<void>;
  /** Text of `fixtures/sqlite/<name>`. */
  readFixture(name: string): Promise<string>;
  /** Permission bits of a file, or undefined when it does not exist. */
  fileMode(path: string): Promise<number | undefined>;
  /** Run one appender process to completion. */
  spawnAppender(args: AppendWorkerArgs): Promise<{ code: number; output: string }>;
}

/**
 * The conformance subject: a fresh database file in a temp dir per test, its first store
 * over a handle that can fail the next write; reopening goes through the file opener.
 */
export function sqliteSubject(runtime: SqliteTestRuntime): StoreSubject {
  return {
    name: `sqlite (${runtime.name})`,
    open: async () => {
      const dir = await runtime.tempDir();
      const path = `${dir}/sessions.db`;
      const { db, fault } = faultySqlite(runtime.openRaw(path));
      return {
        store: await SqliteSessionStore.open(db),
        reopen: () => runtime.openStore(path),
        cleanup: () => runtime.removeDir(dir),
        failNextWrite: () => fault.arm(),
        damage: async (id) => {
          const raw = runtime.openRaw(path);
          try {
            raw.prepare("UPDATE sessions SET header = ? WHERE id = ?").run('{"type":', id);
          } finally {
            raw.close();
          }
        },
      };
    },
  };
}

/** Open a fresh database in a temp dir, run `fn`, close and remove everything. */
export async function withDatabase(
  runtime: SqliteTestRuntime,
  fn: (ctx: { dir: string; path: string; store: SqliteSessionStore }) => Promise<void>,
): Promise<void> {
  const dir = await runtime.tempDir();
  const path = `${dir}/sessions.db`;
  const store = await runtime.openStore(path);
  try {
    await fn({ dir, path, store });
  } finally {
    await store.close();
    await runtime.removeDir(dir);
  }
}
