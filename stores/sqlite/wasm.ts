/**
 * The SQLite session store in the browser: `@sqlite.org/sqlite-wasm` on OPFS, inside a
 * dedicated worker (OPFS sync access handles exist only in workers). The schema and every
 * query are `stores/sqlite/store.ts`'s; this file only adapts the OO1 API to its minimal
 * `SqliteDatabase` shape and picks the VFS:
 *
 * - `"opfs-sahpool"`: needs no special headers; one connection per origin at a time (it
 *   holds every file handle of its pool). Journal mode stays the default rollback journal
 *   (WAL would need `locking_mode=EXCLUSIVE` and buys nothing for one connection).
 * - `"opfs"`: needs a cross-origin isolated page (COOP `same-origin` + COEP `require-corp`);
 *   several tabs may share the file.
 * - `"auto"` (default): `"opfs"` when available, else `"opfs-sahpool"`. The two keep their
 *   files in different places: pin one VFS if a page may be served both ways.
 *
 * Use it from the worker script itself ({@link openSqliteWasmStore}), or run the ready-made
 * worker `stores/browser/opfs_worker.ts` and connect from the page with
 * `WorkerSessionStore.connect(worker, options)` (`stores/browser/worker_client.ts`).
 *
 * @module
 */
import sqlite3InitModule, {
  type Database,
  type SAHPoolUtil,
  type Sqlite3Static,
} from "@sqlite.org/sqlite-wasm";
import {
  type SqliteDatabase,
  SqliteSessionStore,
  type SqliteStatement,
  type SqliteValue,
} from "./store.ts";
import { storageOperation } from "../../src/store.ts";
import { useNewDatabasePageSize } from "./_wasm_pages.ts";
import { WasmBinder } from "./_wasm_bind.ts";

/**
 * Which OPFS VFS holds the database.
 *
 * @example
 * ```ts
 * import type { SqliteWasmVfs } from "@mu/sessions/stores/sqlite/wasm";
 * const vfs: SqliteWasmVfs = crossOriginIsolated ? "opfs" : "opfs-sahpool";
 * ```
 */
export type SqliteWasmVfs = "auto" | "opfs" | "opfs-sahpool";

/**
 * Options for {@link openSqliteWasmStore} (also what a page sends through
 * `WorkerSessionStore.connect` to `stores/browser/opfs_worker.ts`).
 *
 * @example
 * ```ts
 * import type { SqliteWasmStoreOptions } from "@mu/sessions/stores/sqlite/wasm";
 * const options: SqliteWasmStoreOptions = { vfs: "auto", filename: "/viewer.sqlite3", poolTimeoutMs: 2000 };
 * ```
 */
export interface SqliteWasmStoreOptions {
  /** Default `"auto"`: `"opfs"` on cross-origin isolated pages, else `"opfs-sahpool"`. */
  vfs?: SqliteWasmVfs;
  /** Absolute database path inside the VFS (default `/mu-sessions.sqlite3`). */
  filename?: string;
  /** OPFS folder of the `opfs-sahpool` pool (default sqlite-wasm's `.opfs-sahpool`). */
  poolDirectory?: string;
  /**
   * How long to keep trying to take the `opfs-sahpool` files while another holder (a tab
   * using the store, a reloaded page's old worker) lets go; default 10 s. Then the open
   * fails with `SessionStorageError` (a viewer can fall back to IndexedDB).
   */
  poolTimeoutMs?: number;
  /** See `SqliteStoreOptions.deferSearchIndexAbove` (default: every write indexes). */
  deferSearchIndexAbove?: number;
}

/** The default database path (`SqliteWasmStoreOptions.filename`). */
const DEFAULT_SQLITE_WASM_FILENAME = "/mu-sessions.sqlite3";

let sqlite3Promise: Promise<Sqlite3Static> | undefined;

/**
 * Initialise sqlite-wasm once per worker (it finds `sqlite3.wasm` next to the bundle).
 *
 * @example
 * ```ts
 * import { loadSqliteWasm } from "@mu/sessions/stores/sqlite/wasm";
 * const sqlite3 = await loadSqliteWasm();
 * const isolatedVfs = typeof sqlite3.oo1.OpfsDb === "function"; // the opfs VFS is usable
 * ```
 */
export function loadSqliteWasm(): Promise<Sqlite3Static> {
  return sqlite3Promise ??= sqlite3InitModule().then((sqlite3) => loaded = sqlite3, (error) => {
    sqlite3Promise = undefined;
    throw error;
  });
}

/** The module {@link loadSqliteWasm} loaded (the C API behind the binder and `textBytes`). */
let loaded: Sqlite3Static | undefined;

/**
 * Adapt an OO1 `Database` to the `SqliteDatabase` shape `stores/sqlite/store.ts` is written
 * against: positional `?` parameters, rows as objects, `{ changes }` from `run`.
 *
 * @example
 * ```ts
 * import { loadSqliteWasm, oo1Database } from "@mu/sessions/stores/sqlite/wasm";
 * const sqlite3 = await loadSqliteWasm();
 * const db = oo1Database(new sqlite3.oo1.DB(":memory:"));
 * db.prepare("SELECT ? AS x").get(1); // { x: 1 }
 * ```
 */
export function oo1Database(db: Database): SqliteDatabase {
  const sqlite3 = loaded;
  // Parameters made by `textBytes`: bound as TEXT from the bytes (the OO1 API binds a
  // Uint8Array as a BLOB, and a string only after encoding it to UTF-8 again).
  const texts = new WeakSet<Uint8Array>();
  const isText = (bytes: Uint8Array) => texts.has(bytes);
  // Without the module at hand (never in practice: a Database comes from it), OO1 binds.
  const binder = sqlite3 ? new WasmBinder(sqlite3, db) : undefined;
  return {
    exec: (sql) => void db.exec(sql),
    prepare(sql): SqliteStatement {
      const statement = db.prepare(sql); // finalised by db.close()
      // Every use resets and clears bindings, so a failed step never leaks into the next.
      const use = <T>(params: SqliteValue[], fn: () => T): T => {
        try {
          if (binder) binder.bind(statement, params, isText);
          else if (params.length) statement.bind(params);
          return fn();
        } finally {
          statement.reset(true);
        }
      };
      return {
        run: (...params) =>
          use(params, () => {
            statement.step();
            return { changes: db.changes() };
          }),
        all: (...params) =>
          use(params, () => {
            const rows: Record<string, unknown>[] = [];
            while (statement.step()) rows.push(statement.get({}));
            return rows;
          }),
        get: (...params) => use(params, () => statement.step() ? statement.get({}) : undefined),
      };
    },
    close: () => {
      try {
        db.close();
      } finally {
        binder?.free();
      }
    },
    ...(binder ? { textBytes: (bytes: Uint8Array) => (texts.add(bytes), bytes) } : {}),
  };
}

interface PoolState {
  util: SAHPoolUtil;
  /** Stores open or opening (and removals running): while above 0 the pool stays held. */
  open: number;
  /** Serialises unpausing: two overlapping attempts would release each other's handles. */
  acquiring: Promise<void>;
}

const pools = new Map<string, Promise<PoolState>>();

/**
 * Retry `fn` until it succeeds or `timeoutMs` has passed. The OPFS handles of a reloaded
 * page's old worker, or of another tab that is closing its store, are freed a little later.
 */
async function retrying<T>(timeoutMs: number, fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 1;; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (Date.now() >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.min(50 * attempt, 500)));
    }
  }
}

/** Install (once per pool directory) the sahpool VFS. */
function sahPool(
  sqlite3: Sqlite3Static,
  directory: string | undefined,
  timeoutMs: number,
): Promise<PoolState> {
  const key = directory ?? "";
  let pool = pools.get(key);
  if (!pool) {
    const name = directory ? `opfs-sahpool-${hashName(directory)}` : undefined;
    pool = retrying(timeoutMs, () =>
      sqlite3.installOpfsSAHPoolVfs(
        {
          ...(name ? { name, directory } : {}),
          // Never let a failed start delete the pool (the default does): the usual cause is
          // another tab, or the previous page's worker, still holding the handles.
          preserveOnInitFailure: true,
          forceReinitIfPreviouslyFailed: true,
        } as Parameters<Sqlite3Static["installOpfsSAHPoolVfs"]>[0],
      )).then((util) => ({ util, open: 0, acquiring: Promise.resolve() }));
    pools.set(key, pool);
    pool.catch(() => pools.delete(key));
  }
  return pool;
}

function hashName(text: string): string {
  let hash = 5381;
  for (let i = 0; i < text.length; i++) hash = (hash * 33 + text.charCodeAt(i)) >>> 0;
  return hash.toString(36);
}

/**
 * Hold the pool for one store (or removal) while `fn` runs: re-take its handles if an
 * earlier close released them. `fn`'s result keeps the hold until `done` is called.
 */
async function withPool<T>(
  pool: PoolState,
  timeoutMs: number,
  fn: (done: () => void) => T | Promise<T>,
): Promise<T> {
  pool.open++; // before any await, so a concurrent close cannot pause the pool under us
  let released = false;
  const done = () => {
    if (released) return;
    released = true;
    pool.open--;
    // Give the handles back when nothing is open, so another tab or worker can take over.
    if (pool.open > 0 || pool.util.isPaused()) return;
    try {
      pool.util.pauseVfs();
    } catch {
      // A file is still open through some other handle: keep the pool; nothing is lost.
    }
  };
  try {
    const acquire = pool.acquiring.then(() =>
      pool.util.isPaused() ? retrying(timeoutMs, () => pool.util.unpauseVfs()) : undefined
    );
    pool.acquiring = acquire.then(() => {}, () => {});
    await acquire;
    return await fn(done);
  } catch (error) {
    done();
    throw error;
  }
}

async function resolveVfs(sqlite3: Sqlite3Static, vfs: SqliteWasmVfs = "auto") {
  // sqlite3.oo1.OpfsDb exists only when the opfs VFS installed (isolated pages).
  const hasOpfs = typeof sqlite3.oo1.OpfsDb === "function";
  if (vfs === "opfs" && !hasOpfs) {
    throw new Error(
      "the opfs VFS is unavailable: serve the page with Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp, or use opfs-sahpool",
    );
  }
  return vfs === "auto" ? (hasOpfs ? "opfs" : "opfs-sahpool") : vfs;
}

/** A SQLite store that also gives its sahpool handles back when closed. */
class SqliteWasmSessionStore extends SqliteSessionStore {
  readonly #onClose: () => void;
  constructor(db: SqliteDatabase, onClose: () => void, deferSearchIndexAbove?: number) {
    super(db, { journalMode: null, deferSearchIndexAbove });
    this.#onClose = onClose;
  }
  override async close(): Promise<void> {
    try {
      await super.close();
    } finally {
      this.#onClose();
    }
  }
}

/**
 * Open the SQLite session store on OPFS. Call it in a worker. Rejects with
 * `SessionStorageError` (no OPFS, the pool held by another tab, a newer schema, ...).
 *
 * @example
 * ```ts
 * // inside a module worker
 * import { openSqliteWasmStore } from "@mu/sessions/stores/sqlite/wasm";
 * const store = await openSqliteWasmStore({ vfs: "opfs-sahpool", filename: "/sessions.sqlite3" });
 * console.log(await store.list());
 * ```
 */
export async function openSqliteWasmStore(
  options: SqliteWasmStoreOptions = {},
): Promise<SqliteSessionStore> {
  const filename = options.filename ?? DEFAULT_SQLITE_WASM_FILENAME;
  return await storageOperation(`open SQLite (wasm) database ${filename}`, async () => {
    const sqlite3 = await loadSqliteWasm();
    const vfs = await resolveVfs(sqlite3, options.vfs);
    if (vfs === "opfs") {
      const db = new sqlite3.oo1.OpfsDb(filename, "c");
      return openOrClose(db, () => {}, options.deferSearchIndexAbove);
    }
    const timeoutMs = options.poolTimeoutMs ?? 10_000;
    const pool = await sahPool(sqlite3, options.poolDirectory, timeoutMs);
    return await withPool(pool, timeoutMs, async (done) => {
      // A database and its journal each take a pool slot; grow before opening, not during.
      await pool.util.reserveMinimumCapacity(Number(pool.util.getFileCount()) + 4);
      return openOrClose(
        new pool.util.OpfsSAHPoolDb(filename),
        done,
        options.deferSearchIndexAbove,
      );
    });
  });
}

function openOrClose(db: Database, onClose: () => void, deferAbove?: number): SqliteSessionStore {
  try {
    useNewDatabasePageSize(db); // before the schema exists; existing databases keep theirs
    return new SqliteWasmSessionStore(oo1Database(db), onClose, deferAbove);
  } catch (error) {
    db.close();
    onClose();
    throw error;
  }
}

/**
 * Delete a database file (and its journal) created by {@link openSqliteWasmStore}. Close
 * its store first. Deleting a file that does not exist does nothing.
 *
 * @example
 * ```ts
 * import { deleteSqliteWasmDatabase } from "@mu/sessions/stores/sqlite/wasm";
 * await deleteSqliteWasmDatabase({ vfs: "opfs-sahpool", filename: "/old.sqlite3" });
 * ```
 */
export async function deleteSqliteWasmDatabase(options: SqliteWasmStoreOptions = {}) {
  const filename = options.filename ?? DEFAULT_SQLITE_WASM_FILENAME;
  await storageOperation(`delete SQLite (wasm) database ${filename}`, async () => {
    const sqlite3 = await loadSqliteWasm();
    const vfs = await resolveVfs(sqlite3, options.vfs);
    if (vfs === "opfs-sahpool") {
      const timeoutMs = options.poolTimeoutMs ?? 10_000;
      const pool = await sahPool(sqlite3, options.poolDirectory, timeoutMs);
      await withPool(pool, timeoutMs, (done) => {
        for (const suffix of ["", "-journal", "-wal"]) pool.util.unlink(filename + suffix);
        done();
      });
      return;
    }
    const parts = filename.split("/").filter(Boolean);
    let dir = await navigator.storage.getDirectory();
    for (const part of parts.slice(0, -1)) {
      try {
        dir = await dir.getDirectoryHandle(part);
      } catch {
        return; // no folder, no file
      }
    }
    for (const suffix of ["", "-journal", "-wal"]) {
      await dir.removeEntry(parts[parts.length - 1] + suffix).catch(() => {});
    }
  });
}
