/**
 * Storing an imported session without ever losing stored entries. A file whose session id
 * is not stored is created. When the id is stored:
 * - identical content (header and entries, compared as JSON values) → nothing to do;
 * - the stored entries are a prefix of the file's (same header) → the new entries are
 *   appended (a later export of the same session);
 * - anything else (a branch export from an older viewer, a different session reusing the
 *   id, an edited file) → the page asks: keep both (the file gets a new id; the default),
 *   replace the stored session, or skip the file.
 *
 * @module
 */
import { isWorkflowInternal, type SessionEntry, type SessionHeader } from "../../src/schema.ts";
import type { SessionStore } from "../../src/store.ts";
import type { ImportConflictChoice, ImportConflictView, ImportResultView } from "../types.ts";

/** A session as parsed or loaded. */
export interface SessionContent {
  header: SessionHeader;
  entries: readonly SessionEntry[];
}

/** How a file relates to the stored session with its id. */
export type StoredComparison =
  | { kind: "identical" }
  | { kind: "extends"; extra: SessionEntry[] }
  | { kind: "conflict"; shared: number };

/** Ask the user about a conflicting file (the page shows a dialog). */
export type AskConflict = (
  conflict: Omit<ImportConflictView, "questionId">,
) => Promise<ImportConflictChoice>;

/** JSON text with object keys sorted, so stores that reorder keys still compare equal. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(v).sort()) sorted[key] = (v as Record<string, unknown>)[key];
    return sorted;
  });
}

/**
 * Compare a file with the stored session of the same id, O(entries).
 *
 * @example
 * ```ts
 * import { compareWithStored } from "./import_merge.ts";
 * const header = { type: "session" as const, version: 4 as const, id: "s", createdAt: "", cwd: "" };
 * compareWithStored({ header, entries: [] }, { header, entries: [] }).kind; // "identical"
 * ```
 */
export function compareWithStored(stored: SessionContent, file: SessionContent): StoredComparison {
  const storedKeys = stored.entries.map(canonical);
  const fileKeys = file.entries.map(canonical);
  let prefix = 0;
  while (
    prefix < storedKeys.length && prefix < fileKeys.length &&
    storedKeys[prefix] === fileKeys[prefix]
  ) prefix++;
  if (canonical(stored.header) === canonical(file.header) && prefix === storedKeys.length) {
    return prefix === fileKeys.length
      ? { kind: "identical" }
      : { kind: "extends", extra: file.entries.slice(prefix) };
  }
  const storedSet = new Set(storedKeys);
  return { kind: "conflict", shared: fileKeys.filter((key) => storedSet.has(key)).length };
}

/** Store one parsed file (see the module docs); never removes a stored entry unasked. */
export async function storeImported(
  store: SessionStore,
  file: SessionContent,
  path: string,
  ask: AskConflict,
): Promise<Pick<ImportResultView, "status" | "sessionId" | "fileSessionId" | "internal">> {
  const id = file.header.id;
  const internal = isWorkflowInternal(file.header);
  if (!(await store.has(id))) {
    await store.create(file.header, file.entries);
    return { status: "imported", sessionId: id, internal };
  }
  const stored = await store.load(id);
  const comparison = compareWithStored(stored, file);
  if (comparison.kind === "identical") return { status: "unchanged", sessionId: id, internal };
  if (comparison.kind === "extends") {
    await store.append(id, comparison.extra);
    return { status: "updated", sessionId: id, internal };
  }
  const choice = await ask({
    path,
    sessionId: id,
    storedEntries: stored.entries.length,
    fileEntries: file.entries.length,
    sharedEntries: comparison.shared,
  });
  if (choice === "skip") return { status: "skipped", sessionId: id, internal };
  if (choice === "replace") {
    await store.replace(file.header, file.entries);
    return { status: "replaced", sessionId: id, internal };
  }
  const header = { ...file.header, id: crypto.randomUUID() };
  await store.create(header, file.entries);
  return { status: "kept-both", sessionId: header.id, fileSessionId: id, internal };
}
