/**
 * What search finds: the texts of one entry, each under a role. Every store indexes or
 * scans exactly these, so what is searchable is decided once, here.
 *
 * Indexed: user text, assistant text, thinking, tool-call names and arguments, tool results
 * (and `!` shell commands with their output), custom messages, branch and compaction
 * summaries, session names and summaries. Not indexed: system prompts, images, extension
 * state (`custom` entries), labels, settings changes. Entries on every branch are indexed.
 *
 * @module
 */
import type { SessionEntry } from "./schema.ts";

/**
 * The roles a hit can have.
 *
 * @example
 * ```ts
 * import { type SearchRole } from "@mu/sessions";
 * import { SEARCH_ROLES } from "./search_text.ts";
 * const roles: SearchRole[] = SEARCH_ROLES.filter((r) => r !== "toolResult");
 * ```
 */
export const SEARCH_ROLES = [
  "user",
  "assistant",
  "thinking",
  "toolCall",
  "toolResult",
  "custom",
  "summary",
] as const;

/**
 * One of {@link SEARCH_ROLES}: `summary` covers branch, compaction and session summaries
 * and session names; `toolResult` also covers `!` shell commands and their output.
 *
 * @example
 * ```ts
 * import type { SearchRole } from "@mu/sessions";
 * const role: SearchRole = "thinking";
 * ```
 */
export type SearchRole = typeof SEARCH_ROLES[number];

/**
 * One searchable text of an entry.
 *
 * @example
 * ```ts
 * import { type SessionEntry } from "@mu/sessions";
 * import { type SearchField, searchFields } from "./search_text.ts";
 * declare const entry: SessionEntry;
 * const fields: SearchField[] = searchFields(entry);
 * ```
 */
export interface SearchField {
  role: SearchRole;
  text: string;
}

/**
 * The searchable texts of an entry, at most one per role (texts of one role are joined by
 * newlines), in {@link SEARCH_ROLES} order. Malformed entries give what can be read.
 *
 * @example
 * ```ts
 * import { searchFields } from "./search_text.ts";
 * searchFields({
 *   type: "message", id: "a", parentId: null, timestamp: "2026-01-01T00:00:00.000Z",
 *   message: { role: "user", content: "hello", timestamp: 0 },
 * }); // [{ role: "user", text: "hello" }]
 * ```
 */
export function searchFields(entry: SessionEntry): SearchField[] {
  const texts = new Map<SearchRole, string[]>();
  const add = (role: SearchRole, text: unknown) => {
    if (typeof text !== "string" || text === "") return;
    const list = texts.get(role);
    if (list) list.push(text);
    else texts.set(role, [text]);
  };
  const record = entry as Record<string, unknown>;
  switch (entry.type) {
    case "message":
      addMessage(record.message, add);
      break;
    case "custom_message":
      addBlocks(record.content, "custom", add);
      break;
    case "branch_summary":
    case "compaction":
    case "session_summary":
      add("summary", record.summary);
      break;
    case "session_info":
      add("summary", record.name);
      break;
  }
  return SEARCH_ROLES.filter((role) => texts.has(role))
    .map((role) => ({ role, text: texts.get(role)!.join("\n") }));
}

type Add = (role: SearchRole, text: unknown) => void;

function addMessage(message: unknown, add: Add): void {
  if (!message || typeof message !== "object") return;
  const m = message as Record<string, unknown>;
  switch (m.role) {
    case "user":
      addBlocks(m.content, "user", add);
      break;
    case "assistant":
      addBlocks(m.content, "assistant", add);
      break;
    case "toolResult":
      addBlocks(m.content, "toolResult", add);
      break;
    case "bashExecution":
      add("toolResult", m.command);
      add("toolResult", m.output);
      break;
    case "custom":
      addBlocks(m.content, "custom", add);
      break;
    case "branchSummary":
    case "compactionSummary":
      add("summary", m.summary);
      break;
  }
}

/** String content, or text / thinking / tool-call blocks; `role` is the role of text. */
function addBlocks(content: unknown, role: SearchRole, add: Add): void {
  if (typeof content === "string") return add(role, content);
  if (!Array.isArray(content)) return;
  for (const block of content) {
    if (!block || typeof block !== "object") continue;
    if (block.type === "text") add(role, block.text);
    else if (block.type === "thinking") add("thinking", block.thinking);
    else if (block.type === "toolCall") {
      add("toolCall", [block.name, ...leaves(block.arguments)].filter(Boolean).join("\n"));
    }
  }
}

/**
 * The keys and scalar values of tool-call arguments, one per line. Not their JSON: JSON
 * escapes newlines and quotes, so a phrase spanning lines of a written file would not match.
 */
function leaves(value: unknown, out: string[] = [], depth = 0): string[] {
  if (depth > 32) return out;
  if (typeof value === "string") out.push(value);
  else if (typeof value === "number" || typeof value === "boolean") out.push(String(value));
  else if (Array.isArray(value)) { for (const item of value) leaves(item, out, depth + 1); }
  else if (value && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      out.push(key);
      leaves(item, out, depth + 1);
    }
  }
  return out;
}
