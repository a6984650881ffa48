/**
 * The active branch as a conversation: the path entries (root first) turned into chat
 * items a reader follows. A user message, an assistant reply (its tool calls each carrying
 * the result that answered them, found by `toolCallId`), a user-run `!command`, summaries,
 * custom messages, and thin markers for the bookkeeping entries (model and thinking
 * changes, labels, names, custom state). Pure data (structured-clone and JSON friendly):
 * the worker pages it to the viewer, the HTML export embeds it, `mu export --html` writes it.
 *
 * @module
 */
import type { SessionEntry } from "../../src/schema.ts";
import { imageBlock, oneLine } from "../worker/describe.ts";

/** Items the conversation list loads per page (and `mu serve` answers by default). */
export const CONV_PAGE = 30;

/** Longest text kept in one block; the rest is cut (its full length is kept in `cut`). */
export const ITEM_TEXT_LIMIT = 200_000;

/** An image: a raster data URL, or a note saying why it is not shown. */
export interface ConvImage {
  type: "image";
  mimeType: string;
  dataUrl?: string;
  note?: string;
}

/** What answered a tool call. */
export interface ConvToolResult {
  /** The result entry's id. */
  id: string;
  text: string;
  /** Full length when `text` was cut. */
  cut?: number;
  isError: boolean;
  images: ConvImage[];
  /** The diff the agent recorded for an edit (pi's `details.diff`: real file line numbers). */
  diff?: string;
}

/** A block of a message. */
export type ConvBlock =
  | { type: "text"; text: string; cut?: number }
  | { type: "thinking"; text: string; cut?: number }
  | ConvImage
  | {
    type: "tool";
    name: string;
    callId: string;
    /** The call's arguments (long strings cut to {@link ITEM_TEXT_LIMIT}). */
    args: unknown;
    result?: ConvToolResult;
  };

/** Kinds of items. */
export type ConvKind = "user" | "assistant" | "tool" | "bash" | "summary" | "custom" | "meta";

/** One item of the conversation. */
export interface ConvItem {
  /** The entry's id. */
  id: string;
  kind: ConvKind;
  /** The entry's timestamp (ISO). */
  time: string;
  /** Model of a reply, tool name, custom type, summary kind, or a marker's text. */
  title?: string;
  /** A label marker: the entry it labels, and the label ("" when cleared). */
  label?: { target: string; text: string };
  blocks: ConvBlock[];
  /** Short facts: stop reason, error, tokens, exit code. */
  meta?: string[];
  /** A user-run shell command (`kind: "bash"`). */
  command?: string;
}

type Json = Record<string, unknown>;

function cutText(text: string): { text: string; cut?: number } {
  return text.length > ITEM_TEXT_LIMIT
    ? { text: text.slice(0, ITEM_TEXT_LIMIT), cut: text.length }
    : { text };
}

function cutArgs(value: unknown, depth = 0): unknown {
  if (typeof value === "string") {
    return value.length > ITEM_TEXT_LIMIT ? value.slice(0, ITEM_TEXT_LIMIT) : value;
  }
  if (depth > 20 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => cutArgs(v, depth + 1));
  const out: Json = {};
  for (const [key, v] of Object.entries(value)) out[key] = cutArgs(v, depth + 1);
  return out;
}

function image(block: Json): ConvImage {
  const view = imageBlock(block);
  if (view.kind !== "image") return { type: "image", mimeType: "?", note: "image not displayed" };
  return { type: "image", mimeType: view.mimeType, dataUrl: view.dataUrl, note: view.note };
}

function contentParts(content: unknown): { text: string; images: ConvImage[] } {
  if (typeof content === "string") return { text: content, images: [] };
  const texts: string[] = [];
  const images: ConvImage[] = [];
  if (Array.isArray(content)) {
    for (const block of content as Json[]) {
      if (!block || typeof block !== "object") continue;
      if (block.type === "text") texts.push(String(block.text ?? ""));
      else if (block.type === "image") images.push(image(block));
    }
  }
  return { text: texts.join("\n"), images };
}

function blocksOf(content: unknown, results: Map<string, ConvToolResult>): ConvBlock[] {
  if (typeof content === "string") return content ? [{ type: "text", ...cutText(content) }] : [];
  if (!Array.isArray(content)) return [];
  const blocks: ConvBlock[] = [];
  for (const block of content as Json[]) {
    if (!block || typeof block !== "object") continue;
    switch (block.type) {
      case "text":
        blocks.push({ type: "text", ...cutText(String(block.text ?? "")) });
        break;
      case "thinking":
        if (String(block.thinking ?? "").trim()) {
          blocks.push({ type: "thinking", ...cutText(String(block.thinking ?? "")) });
        }
        break;
      case "toolCall": {
        const callId = String(block.id ?? "");
        blocks.push({
          type: "tool",
          name: String(block.name ?? ""),
          callId,
          args: cutArgs(block.arguments ?? {}),
          result: results.get(callId),
        });
        break;
      }
      case "image":
        blocks.push(image(block));
        break;
    }
  }
  return blocks;
}

function tokens(n: number): string {
  return n >= 10_000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

function toolResult(id: string, message: Json): ConvToolResult {
  const { text, images } = contentParts(message.content);
  const details = message.details as Json | undefined;
  const diff = details && typeof details.diff === "string" ? details.diff : undefined;
  return {
    id,
    ...cutText(text),
    isError: message.isError === true,
    images,
    ...(diff === undefined ? {} : { diff }),
  };
}

function messageItem(
  entry: SessionEntry,
  message: Json,
  results: Map<string, ConvToolResult>,
  answered: Set<string>,
): ConvItem | undefined {
  const base = { id: entry.id, time: String(entry.timestamp ?? "") };
  switch (message.role) {
    case "user":
      return { ...base, kind: "user", blocks: blocksOf(message.content, results) };
    case "assistant": {
      const meta: string[] = [];
      if (
        typeof message.stopReason === "string" && message.stopReason !== "stop" &&
        message.stopReason !== "toolUse"
      ) meta.push(`stop: ${message.stopReason}`);
      if (typeof message.errorMessage === "string") {
        meta.push(`error: ${oneLine(message.errorMessage, 200)}`);
      }
      const usage = message.usage as Json | undefined;
      if (usage && typeof usage.input === "number" && typeof usage.output === "number") {
        meta.push(`${tokens(usage.input)} in / ${tokens(usage.output)} out`);
      }
      const title = [message.provider, message.model].filter((v) => typeof v === "string")
        .join("/");
      return {
        ...base,
        kind: "assistant",
        title: title || undefined,
        blocks: blocksOf(message.content, results),
        meta,
      };
    }
    case "toolResult": {
      // Shown inside its call; only a result whose call is not on the branch stands alone.
      if (answered.has(entry.id)) return undefined;
      const result = toolResult(entry.id, message);
      return {
        ...base,
        kind: "tool",
        title: typeof message.toolName === "string" ? message.toolName : "tool result",
        blocks: [{
          type: "tool",
          name: String(message.toolName ?? "tool"),
          callId: String(message.toolCallId ?? ""),
          args: undefined,
          result,
        }],
      };
    }
    case "bashExecution": {
      const meta: string[] = [];
      if (typeof message.exitCode === "number") meta.push(`exit ${message.exitCode}`);
      if (message.cancelled === true) meta.push("cancelled");
      if (message.truncated === true) meta.push("truncated");
      return {
        ...base,
        kind: "bash",
        command: String(message.command ?? ""),
        blocks: [{ type: "text", ...cutText(String(message.output ?? "")) }],
        meta,
      };
    }
    case "custom":
      return {
        ...base,
        kind: "custom",
        title: String(message.customType ?? "custom"),
        blocks: blocksOf(message.content, results),
      };
    case "branchSummary":
    case "compactionSummary":
      return {
        ...base,
        kind: "summary",
        title: message.role === "branchSummary" ? "branch summary" : "compaction summary",
        blocks: [{ type: "text", ...cutText(String(message.summary ?? "")) }],
      };
    default:
      return {
        ...base,
        kind: "custom",
        title: String(message.role ?? "message"),
        blocks: blocksOf(message.content, results),
      };
  }
}

function marker(entry: SessionEntry, title: string): ConvItem {
  return { id: entry.id, time: String(entry.timestamp ?? ""), kind: "meta", title, blocks: [] };
}

function entryItem(
  entry: SessionEntry,
  results: Map<string, ConvToolResult>,
  answered: Set<string>,
): ConvItem | undefined {
  const e = entry as unknown as Json;
  const base = { id: entry.id, time: String(entry.timestamp ?? "") };
  switch (entry.type) {
    case "message":
      return messageItem(entry, e.message as Json, results, answered);
    case "compaction":
    case "branch_summary":
    case "session_summary":
      return {
        ...base,
        kind: "summary",
        title: entry.type.replace("_", " "),
        blocks: [{ type: "text", ...cutText(String(e.summary ?? "")) }],
      };
    case "custom_message":
      return {
        ...base,
        kind: "custom",
        title: String(e.customType ?? "custom"),
        blocks: blocksOf(e.content, results),
      };
    case "model_change":
      return marker(entry, `model → ${String(e.provider)}/${String(e.modelId)}`);
    case "thinking_level_change":
      return marker(entry, `thinking → ${oneLine(String(e.thinkingLevel), 40)}`);
    case "context_window_change":
      return marker(entry, `context window → ${String(e.contextWindow)}`);
    case "label":
      return {
        ...marker(
          entry,
          e.label
            ? `label “${oneLine(String(e.label), 80)}” on ${String(e.targetId)}`
            : `label cleared on ${String(e.targetId)}`,
        ),
        label: { target: String(e.targetId), text: e.label ? oneLine(String(e.label), 80) : "" },
      };
    case "session_info":
      return marker(entry, e.name ? `named “${oneLine(String(e.name), 80)}”` : "name cleared");
    case "custom":
      return marker(entry, `custom state: ${oneLine(String(e.customType), 60)}`);
    case "context_edit":
      return marker(
        entry,
        e.replacement === null
          ? `context edit: omit ${String(e.targetId)}`
          : `context edit: replace ${String(e.targetId)}`,
      );
    case "usage":
      return marker(entry, `usage (${oneLine(String(e.kind), 40)})`);
    default:
      return marker(entry, oneLine(String(entry.type), 60));
  }
}

/**
 * The conversation of a branch, from its path entries (root first).
 *
 * @example
 * ```ts
 * import { conversationItems } from "./model.ts";
 * import type { SessionEntry } from "../../src/schema.ts";
 * declare const path: SessionEntry[]; // SessionIndex.getPath(leafId)
 * const items = conversationItems(path); // tool results folded into their calls
 * ```
 */
export function conversationItems(path: readonly SessionEntry[]): ConvItem[] {
  // First the results, by the call they answer, so each call can carry its own.
  const calls = new Set<string>();
  for (const entry of path) {
    if (entry.type !== "message") continue;
    const message = entry.message as unknown as Json;
    if (message.role !== "assistant" || !Array.isArray(message.content)) continue;
    for (const block of message.content as Json[]) {
      if (block?.type === "toolCall" && typeof block.id === "string") calls.add(block.id);
    }
  }
  const results = new Map<string, ConvToolResult>();
  const answered = new Set<string>();
  for (const entry of path) {
    if (entry.type !== "message") continue;
    const message = entry.message as unknown as Json;
    const callId = message.toolCallId;
    if (message.role !== "toolResult" || typeof callId !== "string" || !calls.has(callId)) continue;
    if (results.has(callId)) continue; // a second answer to one call stands alone
    results.set(callId, toolResult(entry.id, message));
    answered.add(entry.id);
  }
  const items: ConvItem[] = [];
  for (const entry of path) {
    const item = entryItem(entry, results, answered);
    if (item) items.push(item);
  }
  return items;
}
