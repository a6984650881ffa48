/**
 * Pure helpers for extracting a branch into a new session: the path entries plus label
 * entries that carry over labels set elsewhere in the tree. The older implementations
 * dropped label entries from the path without re-parenting the entry after them, so the
 * branched session lost everything before the first label; here the path is copied intact.
 *
 * @module
 */
import { generateEntryId } from "./_migrate.ts";
import type { LabelEntry, SessionEntry, SessionHeader } from "./schema.ts";
import { buildHeader, inheritedClassification } from "./session_options.ts";
import type { EntryIndex } from "./lazy_index.ts";

/**
 * A branch of `header`'s session as a session of its own: a new id, `parentSessionId`
 * recording where it came from, the workflow classification inherited, and
 * {@link branchEntries}. `SessionManager.createBranchedSession` stores it.
 */
export function branchedSession(
  header: SessionHeader,
  index: EntryIndex,
  leafId: string,
  cwd: string = header.cwd ?? "",
): { header: SessionHeader; entries: SessionEntry[] } {
  return {
    header: buildHeader(cwd, { parentSession: header.id }, inheritedClassification(header)),
    entries: branchEntries(index, leafId),
  };
}

/**
 * Entries of a session extracted from `leafId`: the root-to-leaf path unchanged, then one
 * label entry per path target whose session-wide label differs from what the path alone
 * resolves (labels are not branch-relative, so labels set on other branches carry over).
 */
export function branchEntries(index: EntryIndex, leafId: string): SessionEntry[] {
  const path = index.getPath(leafId);
  if (path.length === 0) return [];
  const onPath = new Set(path.map((entry) => entry.id));
  const pathLabels = new Map<string, string>();
  for (const entry of path) {
    if (entry.type !== "label") continue;
    if (entry.label) pathLabels.set(entry.targetId, entry.label);
    else pathLabels.delete(entry.targetId);
  }
  const carried: SessionEntry[] = [];
  let parentId = leafId;
  const now = new Date().toISOString();
  for (const [targetId, label] of index.labels) {
    if (!onPath.has(targetId) || pathLabels.get(targetId) === label) continue;
    const id = generateEntryId({
      has: (candidate) => onPath.has(candidate) || index.byId.has(candidate),
    });
    onPath.add(id);
    const entry: LabelEntry = { type: "label", id, parentId, timestamp: now, targetId, label };
    carried.push(entry);
    parentId = id;
  }
  for (const [targetId] of pathLabels) {
    if (index.labels.has(targetId)) continue;
    // Cleared elsewhere after the path set it: carry the clear too.
    const id = generateEntryId({
      has: (candidate) => onPath.has(candidate) || index.byId.has(candidate),
    });
    onPath.add(id);
    carried.push({ type: "label", id, parentId, timestamp: now, targetId });
    parentId = id;
  }
  return [...path, ...carried];
}
