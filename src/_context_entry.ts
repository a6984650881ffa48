/**
 * What one session entry contributes to model context: its messages, after the latest
 * applicable `context_edit` (format-4 spec, "ContextEditEntry" and "Context Building").
 *
 * @module
 */
import type { AgentMessage, ContextEditEntry, CustomMessage, SessionEntry } from "./schema.ts";

const EDITABLE_ROLES = new Set(["user", "assistant", "toolResult", "custom"]);

/** What one entry contributes to model context, after its context edit. */
export interface EntryContribution {
  messages: AgentMessage[];
  edited?: { editEntryId: string; omitted: boolean };
  systemPrompt?: true;
  /** Set when an edit omitted a tool result: the id of the call it answered. */
  omittedToolCallId?: string;
}

function replaceContent<M extends AgentMessage>(message: M, content: unknown): M {
  const next = typeof content === "string" && (message.role === "assistant" ||
      message.role === "toolResult")
    ? [{ type: "text", text: content }]
    : Array.isArray(content)
    ? [...content]
    : content;
  return { ...message, content: next };
}

/**
 * The model-visible messages of one entry, with its applicable `context_edit` (if any)
 * applied: `message` entries give their message (system messages give none and are
 * flagged, `compactionSummary` is inert), `custom_message` gives a `custom` message,
 * a non-empty `branch_summary` gives a `branchSummary` message; everything else gives
 * nothing. Edits apply to user, assistant, tool-result and custom messages only; `null`
 * omits, a replacement changes only `content` (a string becomes one text block for
 * assistant and tool-result messages). The entry is never modified.
 *
 * @example
 * ```ts
 * import { entryContribution } from "./_context_entry.ts";
 * const entry = { type: "message" as const, id: "a1", parentId: null, timestamp: "2026-01-01T00:00:00.000Z",
 *   message: { role: "assistant" as const, content: [{ type: "text" as const, text: "draft" }] } };
 * const edit = { type: "context_edit" as const, id: "e1", parentId: "a1", timestamp: "2026-01-01T00:00:01.000Z",
 *   targetId: "a1", replacement: { content: "final" } };
 * entryContribution(entry, edit).messages; // [{ role: "assistant", content: [{ type: "text", text: "final" }] }]
 * ```
 */
export function entryContribution(
  entry: SessionEntry,
  edit?: ContextEditEntry,
): EntryContribution {
  let message: AgentMessage;
  if (entry.type === "message") {
    message = entry.message;
    if (message.role === "system") return { messages: [], systemPrompt: true };
    if (message.role === "compactionSummary") return { messages: [] };
  } else if (entry.type === "custom_message") {
    const custom: CustomMessage = {
      role: "custom",
      customType: entry.customType,
      content: entry.content,
      display: entry.display ?? false,
      timestamp: Date.parse(entry.timestamp),
    };
    if (entry.details !== undefined) custom.details = entry.details;
    if (entry.excludeFromContext === true) custom.excludeFromContext = true;
    message = custom;
  } else if (entry.type === "branch_summary") {
    if (typeof entry.summary !== "string" || entry.summary.length === 0) return { messages: [] };
    return {
      messages: [{
        role: "branchSummary",
        summary: entry.summary,
        fromId: entry.fromId ?? null,
        timestamp: Date.parse(entry.timestamp),
      }],
    };
  } else {
    return { messages: [] };
  }
  const replacement = edit?.replacement;
  if (!edit || !EDITABLE_ROLES.has(message.role) || replacement === undefined) {
    return { messages: [message] };
  }
  if (replacement === null) {
    return {
      messages: [],
      edited: { editEntryId: edit.id, omitted: true },
      omittedToolCallId: message.role === "toolResult" ? message.toolCallId : undefined,
    };
  }
  if (replacement.content === undefined) return { messages: [message] };
  return {
    messages: [replaceContent(message, replacement.content)],
    edited: { editEntryId: edit.id, omitted: false },
  };
}
