/**
 * The kept-tail transcript of an active verbatim compaction boundary, and the one visible
 * `custom` message (`customType: "compaction"`) that carries it.
 *
 * Grammar: sections separated by one blank line (`"\n\n"`), each starting with a header:
 *
 * | header | source |
 * |---|---|
 * | `[User]: ` | user message: text blocks joined by `"\n"` |
 * | `[Assistant thinking]: ` | a run of thinking blocks (joined by `"\n"`) |
 * | `[Assistant]: ` | a run of text blocks (joined by `"\n"`) |
 * | `[Assistant tool calls]: ` | a run of tool calls: `name(key=<JSON value>, ...)` joined by `"; "` |
 * | `[Tool result]: ` | tool result (full output, never truncated), real or synthetic |
 * | `[Custom]: ` | custom message (`custom_message` entry or stored `custom` role) |
 * | `[Branch summary]: ` | branch summary |
 * | `[Bash]: ` | user shell command: `$ command`, newline, output, then `(exit code N)`, `(cancelled)`, `(output truncated)` lines when they apply |
 * | `[Compaction]: ` | the durable text of an older verbatim boundary inside the tail |
 *
 * Assistant blocks keep their order: consecutive blocks of one kind form one section.
 * Images stay images: each becomes a `[Image #n]` marker in the text (n counts from 1 over
 * the whole tail) and an image block appended, in order, after the message's text block.
 * Empty sections are left out. Custom messages and bash executions flagged
 * `excludeFromContext` were never model-visible and are left out. System messages never
 * reach the tail (they are replayed prompt state).
 *
 * @module
 */
import type {
  AgentMessage,
  CompactionEntry,
  CustomMessage,
  ImageContent,
  TextContent,
} from "./schema.ts";

/**
 * Fixed text that opens every compaction boundary message, before the durable summary.
 *
 * @example
 * ```ts
 * import { VERBATIM_COMPACTION_PREAMBLE } from "./_transcript.ts";
 * VERBATIM_COMPACTION_PREAMBLE.endsWith("\n\n"); // true
 * ```
 */
export const VERBATIM_COMPACTION_PREAMBLE =
  "The conversation before this point was compacted. Retained transcript lines follow.\n\n";

/** One kept-tail item: a model-visible message, or an older boundary's durable text. */
export type TranscriptItem = AgentMessage | { role: "compactionRecord"; summary: string };

/** A serialized tail: its text and the images it references, in order. */
export interface SerializedTranscript {
  text: string;
  images: ImageContent[];
}

/**
 * A message content's text: a string as it is, the text blocks joined by `"\n"`. With
 * `images`, each image block is appended to it and stands in the text as `[Image #n]`;
 * without, image blocks are left out (a system prompt's text).
 *
 * @example
 * ```ts
 * import { contentText } from "./_transcript.ts";
 * contentText([{ type: "text", text: "a" }, { type: "text", text: "b" }]); // "a\nb"
 * ```
 */
export function contentText(content: unknown, images?: ImageContent[]): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const block of content) {
    if (!block || typeof block !== "object") continue;
    if (block.type === "text" && typeof block.text === "string") parts.push(block.text);
    else if (block.type === "image" && images) {
      images.push(block as ImageContent);
      parts.push(`[Image #${images.length}]`);
    }
  }
  return parts.join("\n");
}

function formatArguments(args: unknown): string {
  if (!args || typeof args !== "object") return "";
  return Object.entries(args as Record<string, unknown>)
    .map(([key, value]) => `${key}=${JSON.stringify(value) ?? "null"}`)
    .join(", ");
}

function assistantSections(content: unknown, sections: string[]): void {
  if (!Array.isArray(content)) return;
  let kind = "";
  let parts: string[] = [];
  const flush = () => {
    if (parts.length) {
      sections.push(
        kind === "thinking"
          ? `[Assistant thinking]: ${parts.join("\n")}`
          : kind === "text"
          ? `[Assistant]: ${parts.join("\n")}`
          : `[Assistant tool calls]: ${parts.join("; ")}`,
      );
    }
    parts = [];
  };
  for (const block of content) {
    if (!block || typeof block !== "object") continue;
    let part: string | undefined;
    if (block.type === "thinking") part = block.thinking || undefined;
    else if (block.type === "text") part = block.text || undefined;
    else if (block.type === "toolCall") part = `${block.name}(${formatArguments(block.arguments)})`;
    if (part === undefined) continue;
    if (block.type !== kind) flush();
    kind = block.type;
    parts.push(part);
  }
  flush();
}

function section(header: string, body: string, sections: string[]): void {
  if (body) sections.push(`${header}${body}`);
}

/**
 * Serialize kept-tail items with the transcript grammar (see the module docs).
 *
 * @example
 * ```ts
 * import { serializeTranscript } from "./_transcript.ts";
 * serializeTranscript([
 *   { role: "user", content: "fix it" },
 *   { role: "assistant", content: [{ type: "toolCall", id: "c", name: "read", arguments: { path: "a.ts" } }] },
 * ]).text; // '[User]: fix it\n\n[Assistant tool calls]: read(path="a.ts")'
 * ```
 */
export function serializeTranscript(items: readonly TranscriptItem[]): SerializedTranscript {
  const sections: string[] = [];
  const images: ImageContent[] = [];
  for (const item of items) {
    switch (item.role) {
      case "user":
        section("[User]: ", contentText(item.content, images), sections);
        break;
      case "assistant":
        assistantSections(item.content, sections);
        break;
      case "toolResult":
        section("[Tool result]: ", contentText(item.content, images), sections);
        break;
      case "custom":
        if (item.excludeFromContext === true) break;
        section("[Custom]: ", contentText(item.content, images), sections);
        break;
      case "branchSummary":
        section("[Branch summary]: ", item.summary, sections);
        break;
      case "bashExecution": {
        if (item.excludeFromContext === true) break;
        let body = `$ ${item.command}\n${item.output}`;
        if (typeof item.exitCode === "number" && item.exitCode !== 0) {
          body += `\n(exit code ${item.exitCode})`;
        }
        if (item.cancelled === true) body += "\n(cancelled)";
        if (item.truncated === true) body += "\n(output truncated)";
        section("[Bash]: ", body, sections);
        break;
      }
      case "compactionRecord":
        section("[Compaction]: ", item.summary, sections);
        break;
      default:
        // system and compactionSummary messages are not transcript lines.
        break;
    }
  }
  return { text: sections.join("\n\n"), images };
}

/**
 * The visible message of an active verbatim boundary: one text block (preamble, durable
 * summary, blank line, serialized kept tail), then the tail's image blocks.
 *
 * @example
 * ```ts
 * import { buildCompactionMessage } from "./_transcript.ts";
 * const message = buildCompactionMessage(
 *   { type: "compaction", id: "c1", parentId: null, timestamp: "2026-07-13T10:00:00.000Z", summary: "[User]: hi", firstKeptEntryId: null, details: { strategy: "verbatim-lines" } },
 *   { text: "", images: [] },
 * );
 * message.customType; // "compaction"
 * ```
 */
export function buildCompactionMessage(
  boundary: CompactionEntry,
  tail: SerializedTranscript,
): CustomMessage {
  const body = [boundary.summary, tail.text].filter((part) => part.length > 0).join("\n\n");
  const text: TextContent = { type: "text", text: VERBATIM_COMPACTION_PREAMBLE + body };
  const message: CustomMessage = {
    role: "custom",
    customType: "compaction",
    content: [text, ...tail.images],
    display: true,
    timestamp: Date.parse(boundary.timestamp),
  };
  if (boundary.details !== undefined) message.details = boundary.details;
  return message;
}
