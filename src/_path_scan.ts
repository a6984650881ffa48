/**
 * The one pass over an active path that decides what its projection replays and keeps:
 * the model, thinking level and context window in force at the leaf, the active verbatim
 * boundary and its kept tail (where the context range starts), and the context edits that
 * apply (each to a target earlier on the path). `projection.ts` builds the projection from
 * it; `context_load.ts` plans a context-only load by the same rules over compact flags.
 *
 * @module
 */
import type { CompactionEntry, ContextEditEntry, SessionEntry } from "./schema.ts";

/**
 * Whether an entry is an active-capable verbatim compaction (`details.strategy` exactly
 * `"verbatim-lines"`); other compaction records are inert.
 *
 * @example
 * ```ts
 * import { isVerbatimCompaction } from "./_path_scan.ts";
 * isVerbatimCompaction({ type: "compaction", id: "c", parentId: null, timestamp: "", summary: "", details: { strategy: "verbatim-lines" } }); // true
 * ```
 */
export function isVerbatimCompaction(entry: SessionEntry): entry is CompactionEntry {
  if (entry.type !== "compaction") return false;
  const details = entry.details as { strategy?: unknown } | null | undefined;
  return !!details && typeof details === "object" && details.strategy === "verbatim-lines";
}

/** What {@link scanPath} found on a path. */
export interface PathScan {
  model: { provider: string; modelId: string } | null;
  thinkingLevel: string;
  contextWindow: number | undefined;
  boundaryIndex: number; // -1: none
  tailStart: number; // -1: no kept tail
  contextStart: number;
  edits: Map<string, ContextEditEntry>;
}

/**
 * One pass over the path: settings replay, boundary, kept tail, applicable edits.
 *
 * @example
 * ```ts
 * import { scanPath } from "./_path_scan.ts";
 * scanPath([]).boundaryIndex; // -1: no verbatim boundary on an empty path
 * ```
 */
export function scanPath(path: readonly SessionEntry[]): PathScan {
  const position = new Map<string, number>();
  const scan: PathScan = {
    model: null,
    thinkingLevel: "off",
    contextWindow: undefined,
    boundaryIndex: -1,
    tailStart: -1,
    contextStart: 0,
    edits: new Map(),
  };
  for (let i = 0; i < path.length; i++) {
    const entry = path[i];
    position.set(entry.id, i);
    switch (entry.type) {
      case "model_change":
        scan.model = { provider: entry.provider, modelId: entry.modelId };
        break;
      case "message": {
        const message = entry.message;
        if (
          message.role === "assistant" && typeof message.provider === "string" &&
          typeof message.model === "string"
        ) {
          scan.model = { provider: message.provider, modelId: message.model };
        }
        break;
      }
      case "thinking_level_change":
        scan.thinkingLevel = entry.thinkingLevel;
        break;
      case "context_window_change":
        scan.contextWindow = entry.contextWindow;
        break;
      case "compaction":
        if (isVerbatimCompaction(entry)) scan.boundaryIndex = i;
        break;
      case "context_edit":
        // Only targets already seen count: an edit never applies to a later entry.
        if (position.has(entry.targetId)) scan.edits.set(entry.targetId, entry);
        break;
    }
  }
  if (scan.boundaryIndex >= 0) {
    const firstKept = (path[scan.boundaryIndex] as CompactionEntry).firstKeptEntryId;
    const at = typeof firstKept === "string" ? position.get(firstKept) : undefined;
    scan.tailStart = at !== undefined && at < scan.boundaryIndex ? at : -1;
    scan.contextStart = scan.tailStart >= 0 ? scan.tailStart : scan.boundaryIndex;
  }
  return scan;
}
