/**
 * A module worker that serves in-memory stores over the worker channel: lets Deno test
 * `acceptStoreConnections` / `WorkerSessionStore` with a real Worker and no browser.
 * Storage names (`options.name`) are kept across connections, so a reconnect sees the data
 * a closed connection wrote, as with a file. A `mu-tests/control` message (answered on its
 * port once done) arms the storage fault of a name or damages one of its sessions, so the
 * conformance suite's hooks reach the store inside the worker.
 *
 * @example
 * ```ts
 * const worker = new Worker(new URL("./memory_store_worker.ts", import.meta.url), { type: "module" });
 * ```
 *
 * @module
 */
import { MemorySessionStore } from "../../src/memory_store.ts";
import type { SessionRecords } from "../../src/_records.ts";
import { acceptStoreConnections } from "../../stores/browser/_channel.ts";
import type { MessageEndpoint } from "../../src/rpc.ts";
import { FaultyMap } from "../conformance/faults.ts";

const named = new Map<string, FaultyMap<SessionRecords>>();
const storage = (name: string) => {
  if (!named.has(name)) named.set(name, new FaultyMap());
  return named.get(name)!;
};

/** What the test side posts to reach a named storage's hooks. */
export interface ControlMessage {
  type: "mu-tests/control";
  action: "fail-next-write" | "damage";
  name: string;
  sessionId?: string;
  port: MessagePort;
}

self.addEventListener("message", (event: MessageEvent) => {
  const data = event.data as ControlMessage;
  if (data?.type !== "mu-tests/control") return;
  const sessions = storage(data.name);
  if (data.action === "fail-next-write") sessions.fault.arm();
  else {
    const records = sessions.get(data.sessionId!)!;
    Map.prototype.set.call(sessions, data.sessionId!, { ...records, header: "{" });
  }
  data.port.postMessage("done");
});

acceptStoreConnections<{ name: string; fail?: boolean }>(
  globalThis as unknown as MessageEndpoint,
  {
    open: async ({ name, fail }) => {
      if (fail) throw new Error("refused to open");
      // Every connection is a store over the named map: closing one keeps the data.
      return new MemorySessionStore({ sessions: storage(name) });
    },
    remove: async ({ name }) => void named.delete(name),
  },
);
