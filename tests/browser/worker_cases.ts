/**
 * What the SQLite worker adds beyond the conformance suite, checked in the browser: the
 * `loadContext` fast path survives the channel (and `canLoadContext` sees it), typed errors
 * arrive as their classes, and `vfs: "auto"` picks `opfs` exactly when the page is
 * cross-origin isolated (else `opfs-sahpool`). Browser-only module.
 *
 * @example
 * ```ts
 * import { sqliteWorkerCases } from "./worker_cases.ts";
 * import { register } from "./runner.ts";
 * sqliteWorkerCases(register, "opfs-sahpool");
 * ```
 *
 * @module
 */
import {
  buildSessionProjection,
  EntryNotFoundError,
  type SessionEntry,
  SessionNotFoundError,
} from "../../core.ts";
import { canLoadContext } from "../../src/context_load.ts";
import type { SqliteWasmVfs } from "../../stores/sqlite/wasm.ts";
import { removeWorkerStorage, WorkerSessionStore } from "../../stores/browser/worker_client.ts";
import { assert, assertEquals, assertRejects } from "../conformance/assert.ts";
import type { Register } from "../conformance/mod.ts";
import { freshId, header } from "../conformance/store_suite.ts";
import { sqliteWorker } from "./subjects.ts";

function entry(id: string, parentId: string | null, text: string): SessionEntry {
  return {
    type: "message",
    id,
    parentId,
    timestamp: "2026-04-01T00:00:00.000Z",
    message: { role: "user", content: text, timestamp: Date.UTC(2026, 3, 1) },
  };
}

async function withWorkerStore(
  vfs: SqliteWasmVfs,
  fn: (store: WorkerSessionStore, filename: string) => Promise<void>,
): Promise<void> {
  const options = { vfs, filename: `/mu-tests/${freshId("cases")}.sqlite3` };
  const store = await WorkerSessionStore.connect(sqliteWorker(), options);
  try {
    await fn(store, options.filename);
  } finally {
    await store.close();
    await removeWorkerStorage(sqliteWorker(), options);
  }
}

/**
 * Register the worker-store cases for one VFS.
 *
 * @example
 * ```ts
 * import { register } from "./runner.ts";
 * import { sqliteWorkerCases } from "./worker_cases.ts";
 * sqliteWorkerCases(register, "opfs");
 * ```
 */
export function sqliteWorkerCases(register: Register, vfs: SqliteWasmVfs): void {
  const t = (name: string, fn: () => Promise<void>) =>
    register(`sqlite-wasm (${vfs}, worker): ${name}`, fn);

  t("loadContext crosses the channel: the path, its projection, typed errors", async () => {
    await withWorkerStore(vfs, async (store) => {
      assert(canLoadContext(store), "canLoadContext sees the forwarded method");
      const id = freshId();
      const entries = [
        entry("a0000001", null, "root"),
        entry("b0000001", "a0000001", "left"),
        entry("c0000001", "a0000001", "right"),
        entry("d0000001", "c0000001", "right child"),
      ];
      await store.create(header(id), entries);
      const branch = await store.loadContext!(id, "d0000001");
      assertEquals(branch.entries.map((e) => e.id), ["a0000001", "c0000001", "d0000001"]);
      assertEquals(
        buildSessionProjection(branch.entries, "d0000001"),
        buildSessionProjection(entries, "d0000001"),
      );
      await assertRejects(() => store.loadContext!(id, "nope"), EntryNotFoundError);
      const missing = await assertRejects(() => store.load("no-such"), SessionNotFoundError);
      assert(missing instanceof SessionNotFoundError, "re-created as the class itself");
      assertEquals(missing.sessionId, "no-such");
    });
  });

  t('vfs "auto" resolves to opfs exactly when the page is cross-origin isolated', async () => {
    const expected = globalThis.crossOriginIsolated ? "opfs" : "opfs-sahpool";
    if (vfs !== expected) return; // the check belongs to the VFS this page resolves to
    await withWorkerStore("auto", async (auto, filename) => {
      const id = freshId("auto");
      await auto.create(header(id), [entry("a0000001", null, "via auto")]);
      await auto.close();
      const pinned = await WorkerSessionStore.connect(sqliteWorker(), { vfs, filename });
      try {
        assertEquals((await pinned.load(id)).entries.length, 1);
      } finally {
        await pinned.close();
      }
    });
  });
}
