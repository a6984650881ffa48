/**
 * Context-only open (issue #12): what resuming a session costs when the caller needs only
 * the model-visible context. `loadSessionProjection` reads through the store's
 * `loadContext` (SQLite: planned from the indexed context flags, only the context range and
 * a few replayed entries parsed; JSONL: one checking pass keeping a compact index, or the
 * file's resume index, then the context's entries read back by offset), falling back to the
 * branch or the whole session when the load alone
 * cannot decide the projection. Measured in the open case's process, next to
 * its floor, so the ratio shares the machine's noise.
 * @module
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { SessionManager, type SessionStore } from "../../core.ts";
import { loadModule, type Maybe, type StoreDriver } from "../drivers.ts";
import type { BenchFn } from "./types.ts";

type LoadProjection = (
  store: unknown,
  sessionId: string,
  leafId?: string | null,
) => Promise<{ messages: unknown[]; entries: unknown[] }>;

const elapsed = (since: number) => performance.now() - since;

/** Open a store, load the context of the last entry, project it, close. */
function contextFn(
  driver: StoreDriver,
  where: string,
  load: LoadProjection,
  sessionId: string,
  lastEntryId: string,
): BenchFn {
  return async () => {
    const t = performance.now();
    const store = await driver.open(where);
    try {
      const projection = await load(store, sessionId, lastEntryId);
      return {
        loadMs: elapsed(t),
        messages: projection.messages.length,
        contextEntries: projection.entries.length,
      };
    } finally {
      await store.close();
    }
  };
}

/**
 * What an application does to resume a session: open a store, `SessionManager.open` (lazy
 * entries where the store has them, `src/lazy_index.ts`), `buildSessionContext()`, close.
 * `firstOpen`: the JSONL folder's resume indexes are removed first (untimed), as before the
 * session was ever opened; otherwise the warm-up run has left the file's index.
 */
function managerFn(
  driver: StoreDriver,
  where: string,
  sessionId: string,
  firstOpen = false,
): BenchFn {
  return async () => {
    if (firstOpen) rmSync(join(where, ".mu-index"), { recursive: true, force: true });
    const t = performance.now();
    const store = await driver.open(where);
    try {
      const manager = await SessionManager.open(store as SessionStore, sessionId);
      const openMs = elapsed(t);
      const context = manager.buildSessionContext();
      const lazy = (manager as unknown as { index?: object }).index?.constructor.name;
      return { loadMs: elapsed(t), openMs, messages: context.messages.length, index: lazy };
    } finally {
      await store.close();
    }
  };
}

/**
 * `"sqlite context"` (over the prepared database) and `"jsonl context"` (over the folder),
 * and the same stores through `SessionManager.open` + `buildSessionContext()`
 * (`"sqlite manager"`, `"jsonl manager"`).
 */
export async function contextFns(
  sqlite: Maybe<StoreDriver>,
  jsonl: Maybe<StoreDriver>,
  params: { sqliteDb?: string; dir: string; sessionId: string; lastEntryId: string },
): Promise<Record<string, Maybe<BenchFn>>> {
  const mod = await loadModule("src/context_load.ts");
  const load = typeof mod === "string" ? mod : mod.loadSessionProjection as LoadProjection;
  if (typeof load !== "function") {
    const why = typeof load === "string" ? load : "not available yet (no loadSessionProjection)";
    return { "jsonl context": why, "sqlite context": why };
  }
  const { sqliteDb, dir, sessionId, lastEntryId } = params;
  const managers = {
    "jsonl manager": typeof jsonl === "string" ? jsonl : managerFn(jsonl, dir, sessionId),
    "jsonl manager, first open": typeof jsonl === "string"
      ? jsonl
      : managerFn(jsonl, dir, sessionId, true),
    "sqlite manager": typeof sqlite === "string"
      ? sqlite
      : !sqliteDb
      ? "no SQLite database was prepared"
      : managerFn(sqlite, sqliteDb, sessionId),
  };
  return {
    ...managers,
    "jsonl context": typeof jsonl === "string"
      ? jsonl
      : contextFn(jsonl, dir, load, sessionId, lastEntryId),
    "sqlite context": typeof sqlite === "string"
      ? sqlite
      : !sqliteDb
      ? "no SQLite database was prepared"
      : contextFn(sqlite, sqliteDb, load, sessionId, lastEntryId),
  };
}
