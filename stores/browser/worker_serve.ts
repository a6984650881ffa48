/**
 * Serve a `SessionStore` from a worker, for pages that use it through
 * `WorkerSessionStore` (`@mu/sessions/stores/worker`). The browser keeps OPFS SQLite in a
 * dedicated worker (sync access handles exist only there); `@mu/sessions/stores/opfs-worker`
 * is that worker ready-made, and this entry is for a worker of your own: any store, opened
 * the way you choose. The wire format between the two sides is private to this package.
 *
 * @example
 * ```ts
 * // my_worker.ts (bundled as a module worker)
 * import { acceptStoreConnections, type MessageEndpoint } from "@mu/sessions/stores/worker/serve";
 * import { openSqliteWasmStore } from "@mu/sessions/stores/sqlite/wasm";
 * // In a module worker `self` is the endpoint; the cast only satisfies the page's DOM typings.
 * acceptStoreConnections(self as unknown as MessageEndpoint, { open: openSqliteWasmStore });
 * ```
 *
 * @module
 */
export {
  acceptStoreConnections,
  serveSessionStore,
  type StoreConnectionHandlers,
} from "./_channel.ts";
export type { MessageEndpoint } from "../../src/rpc.ts";
