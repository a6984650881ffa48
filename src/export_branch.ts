/**
 * Export one branch of a stored session as JSONL: the header line and the lines of the
 * entries on the path to a leaf, each byte-identical to the store's own export.
 *
 * @module
 */
import { EntryNotFoundError } from "./errors.ts";
import { exportSessionJsonl, type SessionStore } from "./store.ts";
import { SessionIndex } from "./tree.ts";

/**
 * The JSONL of the branch ending at `leafId`. Rejects with `EntryNotFoundError` for an
 * unknown leaf.
 *
 * @example
 * ```ts
 * import { exportBranchJsonl, SessionManager } from "@mu/sessions/core";
 * const manager = SessionManager.inMemory("/p");
 * const id = await manager.appendMessage({ role: "user", content: "hi", timestamp: 1 });
 * await exportBranchJsonl(manager.getSessionStore(), manager.getSessionId(), id);
 * ```
 */
export async function exportBranchJsonl(
  store: SessionStore,
  sessionId: string,
  leafId: string,
): Promise<string> {
  const jsonl = await exportSessionJsonl(store, sessionId);
  const index = SessionIndex.build((await store.load(sessionId)).entries);
  if (!index.byId.has(leafId)) throw new EntryNotFoundError(leafId);
  const onPath = new Set(index.getPath(leafId).map((entry) => entry.id));
  const lines = jsonl.split("\n").filter((line) => line !== "");
  const kept = lines.slice(1).filter((line) =>
    onPath.has((JSON.parse(line) as { id?: string }).id!)
  );
  return [lines[0], ...kept].join("\n") + "\n";
}
