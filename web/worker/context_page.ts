/**
 * Present a `buildSessionProjection` result as pages for the context view: every item
 * keeps its source entry id and its marks (edited, compaction boundary, synthetic
 * interrupted-call result, ...), every message becomes a truncated {@link MessageView}.
 * Nothing is recomputed here: what the page shows is exactly what the projection gives.
 *
 * @module
 */
import type { ContextItemView, ContextPageView } from "../types.ts";
import { isVerbatimCompaction } from "../../src/projection.ts";
import type { SessionEntry } from "../../src/schema.ts";
import { contentText, describeMessage, oneLine } from "./describe.ts";

type Json = Record<string, unknown>;

/** The `derived` mark of the summary item an older agent sent in place of earlier entries. */
export const OLDER_AGENT_SUMMARY = "older-agent-summary";

/** The mark of a retired summary compaction (inert in format 4). */
export const RETIRED_FLAG = "retired summary compaction";

/**
 * Whether an entry is a retired summary compaction: a `compaction` that is not verbatim.
 *
 * @example
 * ```ts
 * import { isRetiredCompaction } from "./context_page.ts";
 * isRetiredCompaction({ type: "compaction", id: "c", parentId: null, timestamp: "", summary: "s" }); // true
 * ```
 */
export function isRetiredCompaction(entry: unknown): boolean {
  if (!entry || typeof entry !== "object" || (entry as Json).type !== "compaction") return false;
  return !isVerbatimCompaction(entry as SessionEntry);
}

/** Longest system prompt text sent to the page. */
const SYSTEM_TEXT_LIMIT = 20_000;

/**
 * The marks of one projection item (`ProjectedEntry` of `src/projection.ts`): `derived`
 * (compaction boundary, synthetic interrupted-call results), `edited` (by which
 * `context_edit`, omitted or replaced), `keptTail`, `dropped` (orphan / duplicate / incomplete-turn result),
 * `systemPrompt`. Unknown extra fields are shown generically so nothing is hidden.
 */
export function itemFlags(item: Json): string[] {
  const flags: string[] = [];
  for (const [key, value] of Object.entries(item)) {
    if (key === "sourceEntry" || key === "messages" || value === undefined) continue;
    if (key === "derived") {
      flags.push(
        value === "compaction-boundary"
          ? "compaction boundary"
          : value === "interrupted-tool-result"
          ? "synthetic interrupted result"
          : value === OLDER_AGENT_SUMMARY
          ? "summary as the older agent sent it"
          : `derived: ${oneLine(String(value), 60)}`,
      );
    } else if (key === "edited" && value && typeof value === "object") {
      const edit = value as Json;
      const by = typeof edit.editEntryId === "string" ? ` by ${oneLine(edit.editEntryId, 40)}` : "";
      flags.push(edit.omitted === true ? `omitted${by}` : `edited${by}`);
    } else if (key === "keptTail" && value === true) flags.push("kept tail");
    else if (key === "dropped") flags.push(`dropped ${oneLine(String(value), 40)} result`);
    else if (key === "systemPrompt" && value === true) flags.push("system prompt");
    else if (value === true) flags.push(key);
    else if (typeof value === "string" || typeof value === "number") {
      flags.push(`${key}: ${oneLine(String(value), 60)}`);
    } else if (value !== false && value !== null) flags.push(key);
  }
  // The record is kept for the record but changes nothing: say so where it sits.
  if (!item.derived && isRetiredCompaction(item.sourceEntry)) flags.push(RETIRED_FLAG);
  return flags;
}

function modelText(model: unknown): string | undefined {
  if (typeof model === "string") return model;
  if (!model || typeof model !== "object") return undefined;
  const m = model as Json;
  const provider = typeof m.provider === "string" ? m.provider : "";
  const id = [m.modelId, m.model, m.id].find((v) => typeof v === "string") as string | undefined;
  return [provider, id ?? ""].filter(Boolean).join("/") || undefined;
}

function systemText(system: unknown): string | undefined {
  if (system === undefined || system === null) return undefined;
  let text: string;
  if (typeof system === "string") text = system;
  else if (Array.isArray(system)) {
    text = system.map((part) =>
      typeof part === "string" ? part : contentText((part as Json)?.content ?? [part])
    ).join("\n");
  } else if (typeof system === "object") {
    const s = system as Json;
    const parts: string[] = [];
    const content = typeof s.content === "string" ? s.content : contentText(s.content);
    if (content) parts.push(content);
    if (s.sections && typeof s.sections === "object") {
      for (const [name, value] of Object.entries(s.sections as Json)) {
        if (typeof value === "string") parts.push(`## ${name}\n${value}`);
      }
    }
    if (Array.isArray(s.tools)) {
      parts.push(`tools: ${s.tools.map((t) => (t as Json)?.name ?? t).join(", ")}`);
    }
    text = parts.length ? parts.join("\n\n") : JSON.stringify(system, null, 2);
  } else text = String(system);
  if (!text) return undefined;
  return text.length > SYSTEM_TEXT_LIMIT ? `${text.slice(0, SYSTEM_TEXT_LIMIT)}\n…` : text;
}

function boundaryOf(boundary: unknown): ContextPageView["boundary"] {
  if (!boundary || typeof boundary !== "object") return undefined;
  const b = boundary as Json;
  const entry = (b.entry ?? b.sourceEntry ?? b) as Json;
  const id = [b.entryId, b.id, entry.id].find((v) => typeof v === "string") as string | undefined;
  if (!id) return undefined;
  const firstKept = b.firstKeptEntryId ?? entry.firstKeptEntryId;
  const summary = typeof entry.summary === "string" ? entry.summary : "";
  return {
    id,
    firstKeptEntryId: typeof firstKept === "string" ? firstKept : null,
    summaryChars: summary.length,
  };
}

/** The projection's items as an array (tolerates a missing field). */
export function projectionItems(projection: Json): Json[] {
  return Array.isArray(projection.entries) ? projection.entries as Json[] : [];
}

/** Items `[start, start+count)` of a projection as a page. */
export function contextPage(
  projection: Json,
  leafId: string | null,
  start: number,
  count: number,
): ContextPageView {
  const items = projectionItems(projection);
  const from = Math.max(0, start);
  const end = Math.min(items.length, from + Math.max(0, count));
  const views: ContextItemView[] = [];
  for (let i = from; i < end; i++) {
    const item = items[i];
    const source = item.sourceEntry as Json | null | undefined;
    const messages = Array.isArray(item.messages) ? item.messages as Json[] : [];
    views.push({
      index: i,
      sourceId: source && typeof source.id === "string" ? source.id : null,
      sourceType: source && typeof source.type === "string" ? source.type : "(none)",
      flags: itemFlags(item),
      messages: messages.map((message) => describeMessage(message)),
    });
  }
  const contextWindow = projection.contextWindow;
  const thinkingLevel = projection.thinkingLevel;
  return {
    leafId,
    total: items.length,
    start: from,
    items: views,
    model: modelText(projection.model),
    thinkingLevel: typeof thinkingLevel === "string" ? thinkingLevel : undefined,
    contextWindow: typeof contextWindow === "number" ? contextWindow : undefined,
    system: systemText(projection.system),
    boundary: boundaryOf(projection.boundary),
    messageCount: Array.isArray(projection.messages) ? projection.messages.length : 0,
  };
}
