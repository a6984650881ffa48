/**
 * A module worker that serves in-memory stores over the worker channel: lets Deno test
 * `acceptStoreConnections` / `WorkerSessionStore` with a real Worker and no browser.
 * Storage names (`options.name`) are kept across connections, so a reconnect sees the data
 * a closed connection wrote, as with a file.
 *
 * @example
 * ```ts
 * const worker = new Worker(new URL("./memory_store_worker.ts", import.meta.url), { type: "module" });
 * ```
 *
 * @module
 */
import { MemorySessionStore } from "../../src/memory_store.ts";
import type { SessionStore } from "../../src/store.ts";
import {
  acceptStoreConnections,
  type MessageEndpoint,
} from "../../stores/browser/worker_channel.ts";

const named = new Map<string, MemorySessionStore>();

/** A view of a named memory store whose close() keeps the shared data (the client
 * refuses calls after its own close, so the view needs no closed state). */
function connectionTo(store: MemorySessionStore): SessionStore {
  return new Proxy(store, {
    get(target, key) {
      if (key === "close") return async () => {};
      const value = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value; // private fields
    },
  });
}

acceptStoreConnections<{ name: string; fail?: boolean }>(
  globalThis as unknown as MessageEndpoint,
  {
    open: async ({ name, fail }) => {
      if (fail) throw new Error("refused to open");
      if (!named.has(name)) named.set(name, new MemorySessionStore());
      return connectionTo(named.get(name)!);
    },
    remove: async ({ name }) => void named.delete(name),
  },
);
