/**
 * The SQLite session store over better-sqlite3 12, for Node 20 (which has no
 * `node:sqlite`). better-sqlite3 is a native Node addon: it does not load in Deno or a
 * browser; use `stores/sqlite_deno.ts` (Deno, Node >= 22.5) or the sqlite-wasm store there.
 *
 * @module
 */
import Database from "better-sqlite3";
import type { SqliteDatabase, SqliteSessionStore, SqliteStoreOptions } from "./sqlite.ts";
import { openLocalSqliteStore } from "./agent_dir.ts";

export { defaultSqlitePath } from "./agent_dir.ts";
export { SqliteSessionStore, type SqliteStoreOptions } from "./sqlite.ts";

/** better-sqlite3's constructor, typed by the part used (the package ships no types). */
type BetterSqlite3 = new (path: string) => SqliteDatabase;

/**
 * Open (creating if needed, mode 0600) the SQLite session database at `path` with
 * better-sqlite3; `":memory:"` opens a private in-memory database. Rejects with
 * `SessionStorageError`.
 *
 * @example
 * ```ts
 * import { defaultSqlitePath, openSqliteStore } from "@mu/sessions/stores/sqlite_node.ts";
 * const store = await openSqliteStore(defaultSqlitePath(process.env));
 * console.log((await store.list()).length);
 * await store.close();
 * ```
 */
export async function openSqliteStore(
  path: string,
  options?: SqliteStoreOptions,
): Promise<SqliteSessionStore> {
  return await openLocalSqliteStore(
    path,
    (file) => new (Database as unknown as BetterSqlite3)(file),
    options,
  );
}
