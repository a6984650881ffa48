/**
 * "As the older agent would have sent it": the format-3 reading of a retired summary
 * compaction, for a read-only comparison beside the real (format-4) context. Format 4 keeps
 * such records but they are inert (spec: CompactionEntry, "retired summary-compaction
 * records"); an agent of format 3 replaced everything before `firstKeptEntryId` with the
 * summary, kept the range from there up to the compaction (system messages dropped in
 * favour of the record's `systemMessage` checkpoint) and everything after it (format-3
 * spec: buildContextEntries). Built from the format-4 projection's items, so the kept and
 * later entries show exactly the messages the current projection gives them.
 *
 * @module
 */
import { isRetiredCompaction, OLDER_AGENT_SUMMARY, projectionItems } from "./context_page.ts";

type Json = Record<string, unknown>;

/** Index of the last retired compaction among a projection's items, -1 when none. */
export function lastRetiredIndex(items: readonly Json[]): number {
  for (let i = items.length - 1; i >= 0; i--) {
    if (!items[i].derived && isRetiredCompaction(items[i].sourceEntry)) return i;
  }
  return -1;
}

/**
 * The projection as a format-3 agent would have built it at the last retired compaction on
 * the branch, or undefined when the branch has none. Same shape as the projection, so the
 * context pages describe it with the same code.
 *
 * @example
 * ```ts
 * import { olderAgentProjection } from "./older_agent.ts";
 * olderAgentProjection({ entries: [] }); // undefined
 * ```
 */
export function olderAgentProjection(projection: Json): Json | undefined {
  const items = projectionItems(projection);
  const at = lastRetiredIndex(items);
  if (at < 0) return undefined;
  const compaction = items[at].sourceEntry as Json;
  const firstKept = compaction.firstKeptEntryId;
  const found = typeof firstKept === "string"
    ? items.findIndex((item) => (item.sourceEntry as Json | undefined)?.id === firstKept)
    : -1;
  const keepFrom = found >= 0 && found < at ? found : at;
  const timestamp = Date.parse(String(compaction.timestamp));
  const summary: Json = {
    sourceEntry: compaction,
    messages: [{
      role: "compactionSummary",
      summary: typeof compaction.summary === "string" ? compaction.summary : "",
      tokensBefore: compaction.tokensBefore,
      timestamp: Number.isFinite(timestamp) ? timestamp : 0,
    }],
    derived: OLDER_AGENT_SUMMARY,
  };
  const checkpoint = compaction.systemMessage;
  const kept = items.slice(keepFrom, at).map((item) =>
    checkpoint && item.systemPrompt ? { ...item, messages: [] } : item
  );
  const entries = [summary, ...kept, ...items.slice(at + 1)];
  return {
    ...projection,
    entries,
    messages: entries.flatMap((item) => Array.isArray(item.messages) ? item.messages : []),
    system: checkpoint ?? projection.system,
    boundary: null,
  };
}
