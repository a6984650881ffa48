/**
 * Where two copies of a session disagree: the same id (the header's, or an entry's) with
 * other JSON on the two sides. Split from `sync.ts`, which leaves such a session as it is.
 *
 * @module
 */
import { toJsonLine } from "./jsonl.ts";
import type { SessionEntry, SessionHeader } from "./schema.ts";
import type { SyncReport } from "./sync.ts";

/** The conflicts between the sender's `header` and `entries` and the receiving copy. */
export function sessionConflicts(
  sessionId: string,
  header: SessionHeader,
  entries: readonly SessionEntry[],
  present: { header: SessionHeader; entries: readonly SessionEntry[] },
): SyncReport["conflicts"] {
  const conflicts: SyncReport["conflicts"] = [];
  if (toJsonLine(header, "header") !== toJsonLine(present.header, "header")) {
    conflicts.push({ sessionId, field: firstDifference(header, present.header) });
  }
  const stored = new Map(present.entries.map((entry) => [entry.id, entry]));
  for (const entry of entries) {
    const other = stored.get(entry.id);
    if (other !== undefined && toJsonLine(entry, "entry") !== toJsonLine(other, "entry")) {
      conflicts.push({ sessionId, entryId: entry.id, field: firstDifference(entry, other) });
    }
  }
  return conflicts;
}

/**
 * The dotted path of the first field whose JSON differs, descending into objects present
 * on both sides; "" when the two values differ as a whole (or only in key order/spacing).
 */
function firstDifference(left: unknown, right: unknown, path = ""): string {
  if (!isRecord(left) || !isRecord(right)) return path;
  const keys = [...new Set([...Object.keys(left), ...Object.keys(right)])];
  for (const key of keys) {
    if (JSON.stringify(left[key]) !== JSON.stringify(right[key])) {
      return firstDifference(left[key], right[key], path ? `${path}.${key}` : key);
    }
  }
  return path;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
