/**
 * The SQLite session store over `node:sqlite` (`DatabaseSync`): Deno 2.9 and Node >= 22.5.
 * Node 20 has no `node:sqlite`; use `stores/sqlite_node.ts` (better-sqlite3) there.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import type { SqliteSessionStore, SqliteStoreOptions } from "./sqlite.ts";
import { openLocalSqliteStore } from "./agent_dir.ts";

export { defaultSqlitePath } from "./agent_dir.ts";
export { SqliteSessionStore, type SqliteStoreOptions } from "./sqlite.ts";

/**
 * Open (creating if needed, mode 0600) the SQLite session database at `path`; `":memory:"`
 * opens a private in-memory database. Rejects with `SessionStorageError`.
 *
 * @example
 * ```ts
 * import { defaultSqlitePath, openSqliteStore } from "@mu/sessions/stores/sqlite_deno.ts";
 * const store = await openSqliteStore(defaultSqlitePath(Deno.env.toObject()));
 * console.log((await store.list()).length);
 * await store.close();
 * ```
 */
export async function openSqliteStore(
  path: string,
  options?: SqliteStoreOptions,
): Promise<SqliteSessionStore> {
  return await openLocalSqliteStore(path, (file) => new DatabaseSync(file), options);
}
