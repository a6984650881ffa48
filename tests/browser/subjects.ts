/**
 * The stores the browser tests run, by name: each gives a conformance subject (fresh
 * storage per test, removed after) and a named store for the persistence checks (the same
 * storage every time, so a reloaded page or a restarted browser finds it again).
 * Browser-only module (bundled into test pages).
 *
 * @example
 * ```ts
 * import { conformance } from "../conformance/mod.ts";
 * import { register } from "./runner.ts";
 * import { BROWSER_STORES } from "./subjects.ts";
 * conformance(register, BROWSER_STORES["sqlite-sahpool"].subject());
 * ```
 *
 * @module
 */
import type { SessionStore } from "../../core.ts";
import type { StoreSubject } from "../conformance/mod.ts";
import { freshId } from "../conformance/store_suite.ts";
import { damageIdbSession, failNextIdbPut } from "../conformance/faults.ts";
import {
  deleteIndexedDbSessionStore,
  IndexedDbSessionStore,
} from "../../stores/browser/indexeddb.ts";
import type { SqliteWasmVfs } from "../../stores/sqlite/wasm.ts";
import { removeWorkerStorage, WorkerSessionStore } from "../../stores/browser/worker_client.ts";

/**
 * One store kind under test in the browser.
 *
 * @example
 * ```ts
 * import { BROWSER_STORES, type BrowserStore } from "./subjects.ts";
 * const idb: BrowserStore = BROWSER_STORES["indexeddb"];
 * const store = await idb.openNamed("demo");
 * ```
 */
export interface BrowserStore {
  /** Conformance subject: fresh storage per test. */
  subject(): StoreSubject;
  /** Open the store over the storage named `tag` (created when missing). */
  openNamed(tag: string): Promise<SessionStore>;
  /** Delete the storage named `tag` (its stores closed first). */
  removeNamed(tag: string): Promise<void>;
}

let sharedWorker: Worker | undefined;

/**
 * The page's one SQLite worker: sahpool lets one holder per origin have the files.
 *
 * @example
 * ```ts
 * import { WorkerSessionStore } from "../../stores/browser/worker_client.ts";
 * import { sqliteWorker } from "./subjects.ts";
 * const store = await WorkerSessionStore.connect(sqliteWorker(), { vfs: "opfs-sahpool" });
 * ```
 */
export function sqliteWorker(): Worker {
  return sharedWorker ??= new Worker(new URL("./opfs_worker.js", import.meta.url), {
    type: "module",
  });
}

/**
 * sqlite-wasm in a worker, reached through `WorkerSessionStore`.
 *
 * @example
 * ```ts
 * import { sqliteWasmStore } from "./subjects.ts";
 * const subject = sqliteWasmStore("opfs").subject();
 * ```
 */
export function sqliteWasmStore(vfs: SqliteWasmVfs): BrowserStore {
  const optionsFor = (name: string) => ({ vfs, filename: `/mu-tests/${name}.sqlite3` });
  return {
    subject: () => ({
      name: `sqlite-wasm (${vfs}, worker)`,
      open: async () => {
        const options = optionsFor(freshId("db"));
        const worker = sqliteWorker();
        return {
          store: await WorkerSessionStore.connect(worker, options),
          reopen: () => WorkerSessionStore.connect(worker, options),
          cleanup: () => removeWorkerStorage(worker, options),
        };
      },
    }),
    openNamed: (tag) => WorkerSessionStore.connect(sqliteWorker(), optionsFor(`persist-${tag}`)),
    removeNamed: (tag) => removeWorkerStorage(sqliteWorker(), optionsFor(`persist-${tag}`)),
  };
}

/**
 * The IndexedDB store on the browser's real IndexedDB.
 *
 * @example
 * ```ts
 * import { indexedDbStore } from "./subjects.ts";
 * await indexedDbStore().removeNamed("demo");
 * ```
 */
export function indexedDbStore(): BrowserStore {
  return {
    subject: () => ({
      name: "indexeddb (browser)",
      open: async () => {
        const dbName = `mu-tests-${freshId("idb")}`;
        return {
          store: await IndexedDbSessionStore.open({ dbName }),
          reopen: () => IndexedDbSessionStore.open({ dbName }),
          cleanup: () => deleteIndexedDbSessionStore(dbName),
          failNextWrite: failNextIdbPut,
          damage: (id) => damageIdbSession(indexedDB, dbName, id),
        };
      },
    }),
    openNamed: (tag) => IndexedDbSessionStore.open({ dbName: `mu-tests-persist-${tag}` }),
    removeNamed: (tag) => deleteIndexedDbSessionStore(`mu-tests-persist-${tag}`),
  };
}

/**
 * A folder handle under the OPFS root (`mu-tests/<parts...>`), created on demand: a real
 * `FileSystemDirectoryHandle`, as a picked folder would be.
 *
 * @example
 * ```ts
 * import { openJsonlFsaStore } from "../../stores/jsonl/fsa.ts";
 * import { opfsFolder } from "./subjects.ts";
 * const store = openJsonlFsaStore(await opfsFolder("demo"));
 * ```
 */
export async function opfsFolder(...parts: string[]): Promise<FileSystemDirectoryHandle> {
  let dir = await navigator.storage.getDirectory();
  for (const part of ["mu-tests", ...parts]) {
    dir = await dir.getDirectoryHandle(part, { create: true });
  }
  return dir;
}

/**
 * Remove `mu-tests/<name>` from the OPFS root; a missing folder is fine.
 *
 * @example
 * ```ts
 * import { removeOpfsFolder } from "./subjects.ts";
 * await removeOpfsFolder("demo");
 * ```
 */
export async function removeOpfsFolder(name: string): Promise<void> {
  const root = await (await navigator.storage.getDirectory()).getDirectoryHandle("mu-tests", {
    create: true,
  });
  await root.removeEntry(name, { recursive: true }).catch((error: DOMException) => {
    if (error.name !== "NotFoundError") throw error;
  });
}

/**
 * Every store the pages know, by the name used in `?stores=`.
 *
 * @example
 * ```ts
 * import { BROWSER_STORES } from "./subjects.ts";
 * const names = Object.keys(BROWSER_STORES); // "sqlite-sahpool", "sqlite-opfs", "indexeddb", ...
 * ```
 */
export const BROWSER_STORES: Record<string, BrowserStore> = {
  "sqlite-sahpool": sqliteWasmStore("opfs-sahpool"),
  "sqlite-opfs": sqliteWasmStore("opfs"),
  "indexeddb": indexedDbStore(),
};
