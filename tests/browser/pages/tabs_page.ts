/**
 * Two-tab checks for the `opfs-sahpool` VFS, driven step by step from Deno through
 * `page.evaluate`: the pool has one holder per origin, so a second tab's open must wait
 * for the first tab's store to close (and fail cleanly when it does not in time).
 * Every function answers a string, so failures cross `evaluate` readably.
 */
import type { SessionStore } from "../../../core.ts";
import { WorkerSessionStore } from "../../../stores/browser/worker_client.ts";
import { header, userEntry } from "../../conformance/store_suite.ts";
import { sqliteWorker } from "../subjects.ts";

let store: SessionStore | undefined;

const describe = (error: unknown) =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);

const tab = {
  async open(filename: string, poolTimeoutMs: number): Promise<string> {
    try {
      const options = { vfs: "opfs-sahpool", filename, poolTimeoutMs };
      store = await WorkerSessionStore.connect(sqliteWorker(), options);
      return "open";
    } catch (error) {
      return describe(error);
    }
  },
  async write(id: string): Promise<string> {
    await store!.create(header(id), [userEntry(`written by ${id}`, null)]);
    return "written";
  },
  async ids(): Promise<string> {
    return (await store!.list()).map((row) => row.id).sort().join(",");
  },
  async close(): Promise<string> {
    await store?.close();
    store = undefined;
    return "closed";
  },
};

(globalThis as unknown as { __muTab: typeof tab }).__muTab = tab;
