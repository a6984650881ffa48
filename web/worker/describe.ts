/**
 * Turn entries and messages into the small, text-only shapes the page renders: one-line
 * previews for tree rows, and {@link MessageView}s with truncated blocks for the context
 * view. Runs in the worker, so long texts and images are cut here and never cross to the
 * page whole.
 *
 * @module
 */
import type { SessionEntry } from "../../src/schema.ts";
import { stripAnsi } from "../conversation/ansi.ts";
import type { BlockView, MessageView } from "../types.ts";

/**
 * Longest text block (characters, and lines) sent to the page before "Show all" is needed:
 * about what the old 420 px box with a scrollbar of its own showed. The page shows a block
 * whole and loads the rest on "Show all"; a pane of blocks with scrollbars of their own
 * (~60 at 100k entries) made scrolling the context back up spend its longest tasks in paint
 * and layerization.
 */
export const BLOCK_TEXT_LIMIT = 1500;
/** See {@link BLOCK_TEXT_LIMIT}. */
export const BLOCK_LINE_LIMIT = 20;
/** Largest image (base64 characters) sent to the page as a data URL. */
export const IMAGE_DATA_LIMIT = 4 * 1024 * 1024;
/** Image types shown; anything else (SVG in particular) is never rendered. */
export const SAFE_IMAGE_TYPES: ReadonlySet<string> = new Set([
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
]);

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

type Json = Record<string, unknown>;

/** Collapse whitespace, drop terminal escape sequences, and cut to `max` characters. */
export function oneLine(text: string, max = 160): string {
  const head = stripAnsi(text.length > max * 4 ? text.slice(0, max * 4) : text);
  const flat = head.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * Where to cut `text` so that `lines` more line ends fit, within `chars`; -1 if it all fits.
 * Shared by the context view's cut here and the conversation's folds (`conversation/fold.ts`).
 *
 * @example
 * ```ts
 * cutPoint("a\nb\nc\n", 2, 100); // 4: "a\nb\n" stays, "c\n" is folded
 * cutPoint("short", 2, 100); // -1: nothing to fold
 * ```
 */
export function cutPoint(text: string, lines: number, chars: number): number {
  let seen = 0;
  for (let i = 0; i < text.length && i < chars; i++) {
    if (text.charCodeAt(i) === 10 && ++seen >= lines) return i + 1;
  }
  return text.length > chars ? chars : -1;
}

/** The start of `text` within `limit` characters and {@link BLOCK_LINE_LIMIT} lines. */
function cut(text: string, limit = BLOCK_TEXT_LIMIT): { text: string; fullLength?: number } {
  if (limit === Infinity) return { text };
  let at = cutPoint(text, BLOCK_LINE_LIMIT, limit);
  if (at < 0 || at >= text.length) return { text };
  const last = text.charCodeAt(at - 1);
  if (last >= 0xd800 && last <= 0xdbff) at++; // keep a surrogate pair whole
  return at < text.length ? { text: text.slice(0, at), fullLength: text.length } : { text };
}

/** Text of string-or-blocks content (text blocks joined, images as `[image]`). */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const block of content as Json[]) {
    if (!block || typeof block !== "object") continue;
    if (block.type === "text" && typeof block.text === "string") parts.push(block.text);
    else if (block.type === "image") parts.push("[image]");
    else if (block.type === "toolCall") parts.push(`→ ${String(block.name)}()`);
  }
  return parts.join(" ");
}

/**
 * A safe `data:` URL for an image block, or a note saying why it is not shown. Only
 * PNG, JPEG, GIF and WebP with clean base64 data are ever turned into a URL.
 */
export function imageBlock(block: Json): BlockView {
  const mimeType = typeof block.mimeType === "string" ? block.mimeType.toLowerCase().trim() : "";
  const data = typeof block.data === "string" ? block.data : "";
  const shown = oneLine(mimeType || "(no type)", 60);
  if (!SAFE_IMAGE_TYPES.has(mimeType)) {
    return { kind: "image", mimeType: shown, note: `${shown} image not displayed (unsafe type)` };
  }
  if (data.length > IMAGE_DATA_LIMIT) {
    const mb = (data.length * 0.75 / 1048576).toFixed(1);
    return { kind: "image", mimeType, note: `${mimeType} image of ${mb} MB not previewed` };
  }
  if (!BASE64.test(data)) {
    return { kind: "image", mimeType, note: `${mimeType} image with invalid base64 not displayed` };
  }
  return { kind: "image", mimeType, dataUrl: `data:${mimeType};base64,${data}` };
}

function blocksOf(content: unknown, limit: number): BlockView[] {
  if (typeof content === "string") return [{ kind: "text", ...cut(content, limit) }];
  if (!Array.isArray(content)) return content === undefined ? [] : [otherBlock(content, limit)];
  const blocks: BlockView[] = [];
  for (const block of content as Json[]) {
    if (!block || typeof block !== "object") {
      blocks.push(otherBlock(block, limit));
      continue;
    }
    switch (block.type) {
      case "text":
        blocks.push({ kind: "text", ...cut(String(block.text ?? ""), limit) });
        break;
      case "thinking":
        blocks.push({ kind: "thinking", ...cut(String(block.thinking ?? ""), limit) });
        break;
      case "toolCall":
        blocks.push({
          kind: "toolCall",
          name: String(block.name ?? ""),
          id: String(block.id ?? ""),
          ...cut(JSON.stringify(block.arguments ?? {}, null, 2), limit),
        });
        break;
      case "image":
        blocks.push(imageBlock(block));
        break;
      default:
        blocks.push(otherBlock(block, limit));
    }
  }
  return blocks;
}

function otherBlock(value: unknown, limit: number): BlockView {
  return { kind: "other", ...cut(JSON.stringify(value, null, 2) ?? String(value), limit) };
}

function formatTokens(n: number): string {
  return n >= 10_000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

/**
 * A model-visible message as a {@link MessageView}; text blocks longer than `limit` are
 * cut (their `fullLength` says by how much).
 */
export function describeMessage(message: Json, limit = BLOCK_TEXT_LIMIT): MessageView {
  const role = String(message.role ?? "?");
  const meta: string[] = [];
  let subtitle: string | undefined;
  let blocks: BlockView[];
  switch (role) {
    case "assistant": {
      subtitle = [message.provider, message.model].filter((v) => typeof v === "string").join("/") ||
        undefined;
      blocks = blocksOf(message.content, limit);
      if (typeof message.stopReason === "string") meta.push(`stop: ${message.stopReason}`);
      if (typeof message.errorMessage === "string") {
        meta.push(`error: ${oneLine(message.errorMessage, 200)}`);
      }
      const usage = message.usage as Json | undefined;
      if (usage && typeof usage.input === "number" && typeof usage.output === "number") {
        meta.push(`${formatTokens(usage.input)} in / ${formatTokens(usage.output)} out`);
      }
      break;
    }
    case "toolResult":
      subtitle = typeof message.toolName === "string" ? message.toolName : undefined;
      blocks = blocksOf(message.content, limit);
      if (message.isError === true) meta.push("error");
      if (typeof message.toolCallId === "string") {
        meta.push(`call ${oneLine(message.toolCallId, 40)}`);
      }
      break;
    case "bashExecution":
      subtitle = oneLine(String(message.command ?? ""), 120);
      blocks = [{ kind: "text", ...cut(String(message.output ?? ""), limit) }];
      if (message.exitCode !== undefined) meta.push(`exit ${String(message.exitCode)}`);
      if (message.cancelled === true) meta.push("cancelled");
      if (message.truncated === true) meta.push("truncated");
      break;
    case "custom":
      subtitle = typeof message.customType === "string" ? message.customType : undefined;
      blocks = blocksOf(message.content, limit);
      if (message.display === false) meta.push("hidden in TUI");
      break;
    case "branchSummary":
      blocks = [{ kind: "text", ...cut(String(message.summary ?? ""), limit) }];
      if (typeof message.fromId === "string") meta.push(`from ${oneLine(message.fromId, 40)}`);
      break;
    case "compactionSummary":
      blocks = [{ kind: "text", ...cut(String(message.summary ?? ""), limit) }];
      break;
    case "system":
      blocks = blocksOf(message.content, limit);
      break;
    default:
      blocks = blocksOf(message.content, limit);
  }
  return { role, subtitle, blocks, meta };
}

/** The kind shown on a tree row: entry type, or `message:<role>`. */
export function entryKind(entry: SessionEntry): string {
  if (entry.type === "message") return `message:${String(entry.message?.role ?? "?")}`;
  return entry.type;
}

/** One-line preview of an entry for the tree. */
export function entryPreview(entry: SessionEntry): string {
  const e = entry as unknown as Json;
  switch (entry.type) {
    case "message": {
      const m = entry.message as unknown as Json;
      switch (m.role) {
        case "user":
          return oneLine(contentText(m.content)) || "(empty)";
        case "assistant": {
          const text = oneLine(contentText(m.content));
          if (text) return text;
          return m.stopReason === "aborted" ? "(aborted)" : "(no text)";
        }
        case "toolResult":
          return oneLine(`${String(m.toolName ?? "tool")}: ${contentText(m.content)}`);
        case "bashExecution":
          return oneLine(`$ ${String(m.command ?? "")}`);
        case "custom":
          return oneLine(`[${String(m.customType ?? "custom")}] ${contentText(m.content)}`);
        case "branchSummary":
          return oneLine(`branch summary: ${String(m.summary ?? "")}`);
        default:
          return oneLine(contentText(m.content)) || String(m.role ?? "");
      }
    }
    case "compaction": {
      const details = e.details as Json | undefined;
      const active = details?.strategy === "verbatim-lines";
      return oneLine(
        `${active ? "verbatim boundary" : "retired compaction"}: ${String(e.summary)}`,
      );
    }
    case "context_edit":
      return e.replacement === null ? `omit ${String(e.targetId)}` : oneLine(
        `replace ${String(e.targetId)}: ${contentText((e.replacement as Json)?.content)}`,
      );
    case "model_change":
      return oneLine(`model → ${String(e.provider)}/${String(e.modelId)}`);
    case "thinking_level_change":
      return `thinking → ${oneLine(String(e.thinkingLevel), 40)}`;
    case "context_window_change":
      return `context window → ${String(e.contextWindow)}`;
    case "label":
      return oneLine(
        e.label
          ? `label "${String(e.label)}" on ${String(e.targetId)}`
          : `clear label on ${String(e.targetId)}`,
      );
    case "session_info":
      return oneLine(e.name ? `name: ${String(e.name)}` : "name cleared");
    case "session_summary":
      return oneLine(`summary: ${String(e.summary)}`);
    case "branch_summary":
      return oneLine(`branch summary: ${String(e.summary)}`);
    case "custom":
      return oneLine(`[${String(e.customType)}] state`);
    case "custom_message":
      return oneLine(`[${String(e.customType)}] ${contentText(e.content)}`);
    case "usage":
      return oneLine(`usage (${String(e.kind)})`);
    case "context_compaction":
      return "retired context compaction";
    default:
      return oneLine(String((e as Json).type));
  }
}
