/**
 * Ready-made module worker for the browser SQLite store: bundle this file as a worker
 * (next to `sqlite3.wasm` and `sqlite3-opfs-async-proxy.js`), then connect from the page.
 * Each connection opens its own store with the options the page sends
 * (`SqliteWasmStoreOptions`); `removeWorkerStorage` deletes a database file.
 *
 * @example
 * ```ts
 * // page
 * import { WorkerSessionStore } from "@mu/sessions/stores/worker";
 * const worker = new Worker("./opfs_worker.js", { type: "module" });
 * const store = await WorkerSessionStore.connect(worker, { vfs: "auto" });
 * ```
 *
 * @module
 */
import { deleteSqliteWasmDatabase, openSqliteWasmStore } from "../sqlite/wasm.ts";
import { acceptStoreConnections } from "./_channel.ts";
import type { MessageEndpoint } from "../../src/rpc.ts";

acceptStoreConnections(globalThis as unknown as MessageEndpoint, {
  open: openSqliteWasmStore,
  remove: deleteSqliteWasmDatabase,
});
