/**
 * Context-only open (issue #12): what resuming a session costs when the caller needs only
 * the model-visible context. `loadSessionProjection` reads through the store's
 * `loadContext` (SQLite: planned from the indexed context flags, only the context range and
 * a few replayed entries parsed), falling back to the branch or the whole session when the
 * load alone cannot decide the projection. Measured in the open case's process, next to
 * its floor, so the ratio shares the machine's noise.
 * @module
 */
import { loadModule, type Maybe, type StoreDriver } from "../drivers.ts";
import type { BenchFn } from "./types.ts";

type LoadProjection = (
  store: unknown,
  sessionId: string,
  leafId?: string | null,
) => Promise<{ messages: unknown[]; entries: unknown[] }>;

const elapsed = (since: number) => performance.now() - since;

/** `"sqlite context"`: open the store, load the context, project it, close. */
export async function contextFns(
  sqlite: Maybe<StoreDriver>,
  db: string | undefined,
  sessionId: string,
  lastEntryId: string,
): Promise<Record<string, Maybe<BenchFn>>> {
  if (typeof sqlite === "string") return { "sqlite context": sqlite };
  if (!db) return { "sqlite context": "no SQLite database was prepared" };
  const mod = await loadModule("src/context_load.ts");
  if (typeof mod === "string") return { "sqlite context": mod };
  const load = mod.loadSessionProjection as LoadProjection | undefined;
  if (typeof load !== "function") {
    return { "sqlite context": "not available yet (no loadSessionProjection)" };
  }
  return {
    "sqlite context": async () => {
      const t = performance.now();
      const store = await sqlite.open(db);
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
    },
  };
}
