/**
 * The SQLite session store on a local database file, for Deno and Node. The driver is
 * chosen per runtime: `node:sqlite` in Deno and Node >= 22.5, better-sqlite3 (an optional
 * dependency) on Node 20, which has no `node:sqlite`. Both are loaded only when a store is
 * opened, so importing this module never loads a native addon or an unavailable builtin.
 *
 * @module
 */
import { closeSync, existsSync, lstatSync, mkdirSync, openSync, readlinkSync } from "node:fs";
import { dirname, resolve } from "node:path";
import process from "node:process";
import { SessionStorageError } from "../../src/errors.ts";
import { storageOperation } from "../../src/store.ts";
import { type SqliteDatabase, SqliteSessionStore, type SqliteStoreOptions } from "./store.ts";

/** Which SQLite binding opens the file. */
type SqliteDriver = "node:sqlite" | "better-sqlite3";

/**
 * Options of {@link openSqliteStore}.
 *
 * @example
 * ```ts
 * import { openSqliteStore, type SqliteFileOptions } from "@mu/sessions/stores/sqlite/file";
 * const options: SqliteFileOptions = { driver: "node:sqlite", busyTimeoutMs: 10_000 };
 * const store = await openSqliteStore("/tmp/sessions.db", options);
 * ```
 */
export interface SqliteFileOptions extends SqliteStoreOptions {
  /**
   * The binding to use; default: `node:sqlite` where the runtime has it, else
   * better-sqlite3 (Node 20, which has no `node:sqlite`).
   */
  driver?: "node:sqlite" | "better-sqlite3";
}

/**
 * The binding this runtime uses by default: `node:sqlite` in Deno and in Node >= 22.5,
 * better-sqlite3 on older Node (`SqliteFileOptions.driver`).
 */
function defaultSqliteDriver(): SqliteDriver {
  if (typeof (globalThis as { Deno?: { version?: unknown } }).Deno?.version === "object") {
    return "node:sqlite";
  }
  const [major, minor] = (process.versions.node ?? "0.0").split(".").map(Number);
  return major > 22 || (major === 22 && minor >= 5) ? "node:sqlite" : "better-sqlite3";
}

/** better-sqlite3's constructor, typed by the part used (the package ships no types). */
type DatabaseConstructor = new (path: string) => SqliteDatabase;

async function connector(driver: SqliteDriver): Promise<(path: string) => SqliteDatabase> {
  if (driver === "node:sqlite") {
    const { DatabaseSync } = await import("node:sqlite");
    return (path) => new DatabaseSync(path) as unknown as SqliteDatabase;
  }
  let Database: DatabaseConstructor;
  try {
    Database = (await import("better-sqlite3")).default as unknown as DatabaseConstructor;
  } catch (error) {
    throw new SessionStorageError(
      "SQLite on this runtime needs the better-sqlite3 package (Node < 22.5 has no node:sqlite): npm install better-sqlite3@12",
      { cause: error },
    );
  }
  return (path) => new Database(path);
}

/**
 * Create a database file (and missing parent directories, mode 0700) with mode 0600 before
 * SQLite opens it: sessions hold secrets, and SQLite gives its `-wal`/`-shm` files the
 * database file's permissions. An existing file is left as it is. Returns whether the file
 * was created.
 */
function preparePrivateFile(path: string): boolean {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    closeSync(openSync(path, "wx", 0o600));
    return true;
  } catch (error) {
    if ((error as { code?: string }).code !== "EEXIST") throw error;
  }
  // "wx" refuses a dangling symlink as existing, and SQLite would then create its target
  // with mode 0644: create the target, 0600, instead (at the end of the link chain; Deno
  // with path permissions will not create through a link).
  let target = path;
  for (let hops = 0; hops < 40 && lstatSync(target).isSymbolicLink(); hops++) {
    if (existsSync(target)) return false; // the chain ends at an existing file
    target = resolve(dirname(target), readlinkSync(target));
    if (!existsSync(target) && !isSymbolicLink(target)) {
      closeSync(openSync(target, "wx", 0o600));
      return true;
    }
  }
  return false;
}

function isSymbolicLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * Open (creating if needed, mode 0600, folders 0700) the SQLite session database at
 * `path`; `":memory:"` opens a private in-memory database. Rejects with
 * `SessionStorageError` saying what failed; never falls back to another store.
 *
 * @example
 * ```ts
 * import { openSqliteStore } from "@mu/sessions/stores/sqlite/file";
 * const store = await openSqliteStore(":memory:");
 * console.log((await store.list()).length); // 0
 * await store.close();
 * ```
 */
export async function openSqliteStore(
  path: string,
  options: SqliteFileOptions = {},
): Promise<SqliteSessionStore> {
  const { driver = defaultSqliteDriver(), ...storeOptions } = options;
  const connect = await connector(driver);
  return await storageOperation(`open SQLite database ${path}`, () => {
    if (path !== ":memory:") preparePrivateFile(path);
    const db = connect(path);
    try {
      return new SqliteSessionStore(db, storeOptions);
    } catch (error) {
      db.close();
      throw error;
    }
  });
}
