/**
 * The format-4 session header, every entry type, and the messages and content blocks they
 * carry, as plain TypeScript types, with the constants and predicates the library needs
 * about them. Nothing here imports zod: the core (and every browser, worker and edge bundle
 * built on it) validates with `_entry_check.ts` and never loads a schema library.
 *
 * Objects are "loose": unknown fields are kept, never dropped, so a file written by a newer
 * agent survives a round trip; every object type therefore has an index signature.
 *
 * The zod schemas of these shapes are the `@mu/sessions/schema` entry (`_zod_schema.ts`,
 * `_zod_messages.ts`); `tests/unit/schema_types.test.ts` fails when a type here and the type
 * zod infers from its schema differ in either direction, and `tests/unit/validate.test.ts`
 * when `_entry_check.ts` and the schemas disagree on a verdict.
 *
 * @example
 * ```ts
 * import type { SessionEntry } from "@mu/sessions";
 * declare const line: string; // one entry record of a format-4 file
 * const entry = JSON.parse(line) as SessionEntry;
 * if (entry.type === "model_change") console.log(entry.provider, entry.modelId); // a ModelChangeEntry
 * if (entry.type === "message" && entry.message.role === "assistant") {
 *   for (const block of entry.message.content) if (block.type === "text") console.log(block.text);
 * }
 * ```
 *
 * @module
 */
import { type CURRENT_SESSION_VERSION, KNOWN_ENTRY_TYPE_NAMES } from "./_entry_check.ts";

// Validation itself lives in _entry_check.ts; re-exported for the callers here.
export { CURRENT_SESSION_VERSION, entryTypeLabel, validateEntry } from "./_entry_check.ts";

// ---------------------------------------------------------------- content blocks

/** `{ type: "text", text }` */
export interface TextContent {
  [key: string]: unknown;
  type: "text";
  text: string;
}
/** `{ type: "image", data, mimeType }` with base64 `data`. */
export interface ImageContent {
  [key: string]: unknown;
  type: "image";
  data: string;
  mimeType: string;
}
/** `{ type: "thinking", thinking }` */
export interface ThinkingContent {
  [key: string]: unknown;
  type: "thinking";
  thinking: string;
}
/** `{ type: "toolCall", id, name, arguments }` */
export interface ToolCall {
  [key: string]: unknown;
  type: "toolCall";
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}
/** Text or image: the blocks user, tool-result and custom content may hold. */
export type UserContentBlock = TextContent | ImageContent;
/** Text, thinking or tool call: the blocks assistant content may hold. */
export type AssistantContentBlock = TextContent | ThinkingContent | ToolCall;
/** A string or a list of text/image blocks. */
type UserContent = string | UserContentBlock[];

/** Token and cost usage of one model call. */
export interface Usage {
  [key: string]: unknown;
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
  totalTokens?: number;
  cost?: {
    [key: string]: unknown;
    input?: number;
    output?: number;
    cacheRead?: number;
    cacheWrite?: number;
    total?: number;
  };
}

/** Metadata of tool calls a tool made on its own, kept on the parent tool result. */
export interface NestedToolCalls {
  [key: string]: unknown;
  calls: {
    [key: string]: unknown;
    id: string;
    name: string;
    status: string;
    arguments?: unknown;
    durationMs?: number;
    error?: unknown;
  }[];
  complete: boolean;
}

// ---------------------------------------------------------------- messages

/** Prompt / tool-loadout change, replayed in order. */
export interface SystemMessage {
  [key: string]: unknown;
  role: "system";
  content: string | TextContent[];
  sections?: Record<string, string | null>;
  toolsAdded?: { [key: string]: unknown; name: string }[];
  toolsRemoved?: { [key: string]: unknown; name: string }[];
  /** Epoch ms within what a `Date` holds (listings turn it into one). */
  timestamp?: number;
}
/** A user turn. */
export interface UserMessage {
  [key: string]: unknown;
  role: "user";
  content: UserContent;
  timestamp?: number;
}
/** A model reply. */
export interface AssistantMessage {
  [key: string]: unknown;
  role: "assistant";
  content: AssistantContentBlock[];
  api?: string;
  provider?: string;
  model?: string;
  usage?: Usage;
  stopReason?: string;
  errorMessage?: string;
  timestamp?: number;
}
/** The result of one tool call. */
export interface ToolResultMessage {
  [key: string]: unknown;
  role: "toolResult";
  toolCallId: string;
  toolName?: string;
  content: UserContentBlock[];
  usage?: Usage;
  nestedCalls?: NestedToolCalls;
  isError?: boolean;
  timestamp?: number;
}
/** A `!` shell command run by the user. */
export interface BashExecutionMessage {
  [key: string]: unknown;
  role: "bashExecution";
  command: string;
  output: string;
  exitCode?: number | null;
  cancelled?: boolean;
  truncated?: boolean;
  excludeFromContext?: boolean;
  timestamp?: number;
}
/** An extension-provided message. */
export interface CustomMessage {
  [key: string]: unknown;
  role: "custom";
  customType: string;
  content: UserContent;
  display?: boolean;
  timestamp?: number;
}
/** Summary of an abandoned branch. */
export interface BranchSummaryMessage {
  [key: string]: unknown;
  role: "branchSummary";
  summary: string;
  fromId?: string | null;
  timestamp?: number;
}
/** Retired summary-compaction message (older files only; inert). */
export interface CompactionSummaryMessage {
  [key: string]: unknown;
  role: "compactionSummary";
  summary: string;
  tokensBefore?: number;
  timestamp?: number;
}
/** Every message role a session entry may carry, narrowed by `role`. */
export type AgentMessage =
  | SystemMessage
  | UserMessage
  | AssistantMessage
  | ToolResultMessage
  | BashExecutionMessage
  | CustomMessage
  | BranchSummaryMessage
  | CompactionSummaryMessage;

// ---------------------------------------------------------------- header

/** Complete workflow linkage of an internal (workflow-owned) session. */
export interface WorkflowMarker {
  [key: string]: unknown;
  runId: string;
  stageId: string;
  stageName: string;
}

/**
 * The first line of a format-4 file. Older headers are upgraded to this shape on read.
 * `internal` and `workflow` are deliberately loose: malformed markers must load (and stay
 * visible), see {@link isWorkflowInternal}.
 */
export interface SessionHeader {
  [key: string]: unknown;
  type: "session";
  version: typeof CURRENT_SESSION_VERSION;
  id: string;
  createdAt: string;
  cwd?: string;
  parentSessionId?: string;
  internal?: unknown;
  workflow?: unknown;
}

// ---------------------------------------------------------------- entries

/** The fields every entry has: its id, its parent's id (`null` at a root) and when. */
interface EntryBase {
  [key: string]: unknown;
  /** Non-empty and storable by every store (see `_wellformed.ts`). */
  id: string;
  parentId: string | null;
  timestamp: string;
}

/** A conversation message. */
export interface MessageEntry extends EntryBase {
  type: "message";
  message: AgentMessage;
}
/** Model switch. */
export interface ModelChangeEntry extends EntryBase {
  type: "model_change";
  provider: string;
  modelId: string;
}
/** Thinking-level switch. */
export interface ThinkingLevelChangeEntry extends EntryBase {
  type: "thinking_level_change";
  thinkingLevel: string;
}
/** Context-window selection, in tokens. */
export interface ContextWindowChangeEntry extends EntryBase {
  type: "context_window_change";
  contextWindow: number;
}
/** Model usage outside the conversation (cache warming, ...). */
export interface UsageEntry extends EntryBase {
  type: "usage";
  kind: string;
  provider?: string;
  model?: string;
  usage: Usage;
}
/**
 * Compaction record. Active only when `details.strategy === "verbatim-lines"`; other
 * records (pi summary compactions, older Atomic) are retired and inert.
 */
export interface CompactionEntry extends EntryBase {
  type: "compaction";
  summary: string;
  firstKeptEntryId?: string | null;
  tokensBefore?: number;
  details?: unknown;
  systemMessage?: SystemMessage;
  usage?: Usage;
  fromHook?: boolean;
}
/** Retired logical-deletion compaction (archival, never applied). */
export interface ContextCompactionEntry extends EntryBase {
  type: "context_compaction";
}
/** Replacement content for a context edit: `null` omits the target. */
export type ContextEditReplacement = {
  [key: string]: unknown;
  content: string | (UserContentBlock | AssistantContentBlock)[];
} | null;
/** Branch-relative edit of one earlier context-producing entry. */
export interface ContextEditEntry extends EntryBase {
  type: "context_edit";
  targetId: string;
  replacement: ContextEditReplacement;
}
/** Summary of the branch that was left when navigating. */
export interface BranchSummaryEntry extends EntryBase {
  type: "branch_summary";
  fromId?: string | null;
  summary: string;
  details?: unknown;
  fromHook?: boolean;
  usage?: Usage;
}
/** Extension state; never part of model context. */
export interface CustomEntry extends EntryBase {
  type: "custom";
  customType: string;
  data?: unknown;
}
/** Extension message that is part of model context. */
export interface CustomMessageEntry extends EntryBase {
  type: "custom_message";
  customType: string;
  content: UserContent;
  display?: boolean;
  details?: unknown;
  excludeFromContext?: boolean;
}
/** Bookmark on an entry; an absent or empty label clears it. */
export interface LabelEntry extends EntryBase {
  type: "label";
  targetId: string;
  label?: string;
}
/** Session display name; an empty name clears it. */
export interface SessionInfoEntry extends EntryBase {
  type: "session_info";
  name?: string;
}
/** Generated one-line description for the session picker. */
export interface SessionSummaryEntry extends EntryBase {
  type: "session_summary";
  summary: string;
  summarizedThroughId: string;
  usage?: { [key: string]: unknown; input?: number; output?: number };
}

/** Every known entry type, narrowed by `type`. */
export type KnownSessionEntry =
  | MessageEntry
  | ModelChangeEntry
  | ThinkingLevelChangeEntry
  | ContextWindowChangeEntry
  | UsageEntry
  | CompactionEntry
  | ContextCompactionEntry
  | ContextEditEntry
  | BranchSummaryEntry
  | CustomEntry
  | CustomMessageEntry
  | LabelEntry
  | SessionInfoEntry
  | SessionSummaryEntry;

/**
 * An entry of a type this library does not know (written by a newer agent). It must
 * still be a tree node; it is kept, exported unchanged, and inert in context.
 */
export interface UnknownSessionEntry extends EntryBase {
  type: string;
}

/** Any entry of a session (everything but the header). */
export type SessionEntry = KnownSessionEntry;

/** Entry types this library knows; anything else is kept as an inert unknown entry. */
// Pure: building a set from an array is, but a bundler cannot tell (the array could be any
// iterable), and every bundle of the core would keep it.
export const KNOWN_ENTRY_TYPES: ReadonlySet<string> = /* @__PURE__ */ new Set(
  KNOWN_ENTRY_TYPE_NAMES,
);

/**
 * Whether a header classifies its session as workflow-owned: `internal` is exactly `true`
 * and `workflow.runId`, `stageId` and `stageName` are non-empty strings. Anything else,
 * including malformed markers, leaves the session visible.
 *
 * @example
 * ```ts
 * import { isWorkflowInternal } from "./schema.ts";
 * isWorkflowInternal({ internal: true, workflow: { runId: "r", stageId: "s", stageName: "n" } }); // true
 * isWorkflowInternal({ internal: "true" }); // false
 * ```
 */
export function isWorkflowInternal(header: { internal?: unknown; workflow?: unknown }): boolean {
  return header.internal === true && isCompleteWorkflowMarker(header.workflow);
}

/** Whether a value is a complete workflow marker (three non-empty strings). */
export function isCompleteWorkflowMarker(value: unknown): value is WorkflowMarker {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const marker = value as Record<string, unknown>;
  return [marker.runId, marker.stageId, marker.stageName].every((field) =>
    typeof field === "string" && field.trim().length > 0
  );
}
