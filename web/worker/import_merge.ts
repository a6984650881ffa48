/**
 * Storing an imported file in the viewer's store without ever losing stored entries: the
 * library's import rule (`src/import_rule.ts`), with the page asking the user what to do
 * about a conflicting file (keep both under a new id, the default; replace; skip).
 *
 * @module
 */
import { importParsedSession, type SessionContent } from "../../src/import_rule.ts";
import { isWorkflowInternal } from "../../src/schema.ts";
import type { SessionStore } from "../../src/store.ts";
import type { ImportConflictChoice, ImportConflictView, ImportResultView } from "../types.ts";

/** Ask the user about a conflicting file (the page shows a dialog). */
export type AskConflict = (
  conflict: Omit<ImportConflictView, "questionId">,
) => Promise<ImportConflictChoice>;

const VIEW_STATUS = {
  "imported": "imported",
  "already-present": "unchanged",
  "updated": "updated",
  "replaced": "replaced",
  "kept-both": "kept-both",
  "conflict": "skipped",
} as const;

/**
 * Store one parsed file; never removes a stored entry unasked.
 *
 * @example
 * ```ts
 * import { storeImported } from "./import_merge.ts";
 * import { MemorySessionStore } from "../../src/memory_store.ts";
 * const header = { type: "session" as const, version: 4 as const, id: "s", createdAt: "2026-01-01T00:00:00.000Z", cwd: "/p" };
 * await storeImported(new MemorySessionStore(), { header, entries: [] }, "s.jsonl", async () => "keep-both");
 * ```
 */
export async function storeImported(
  store: SessionStore,
  file: SessionContent,
  path: string,
  ask: AskConflict,
): Promise<Pick<ImportResultView, "status" | "sessionId" | "fileSessionId" | "internal">> {
  const internal = isWorkflowInternal(file.header);
  const outcome = await importParsedSession(store, file, {
    source: path,
    onConflict: (conflict) =>
      ask({
        path,
        sessionId: conflict.sessionId,
        storedEntries: conflict.storedEntries,
        fileEntries: conflict.importedEntries,
        sharedEntries: conflict.sharedEntries,
      }),
  });
  const status = VIEW_STATUS[outcome.status];
  if (outcome.status === "kept-both") {
    return {
      status,
      sessionId: outcome.sessionId,
      fileSessionId: outcome.importedSessionId,
      internal,
    };
  }
  return { status, sessionId: outcome.sessionId, internal };
}
