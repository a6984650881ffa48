/**
 * zod schemas for the format-4 session header, every entry type and every message role,
 * with the TypeScript types inferred from them.
 *
 * Objects are "loose": unknown fields are validated past and kept, never dropped, so a
 * file written by a newer agent survives a round trip. Validation checks structure (the
 * fields readers depend on), not every optional field a provider may add.
 *
 * @module
 */
import { z } from "zod";
import { isCertainlyValidEntry } from "./validate_fast.ts";

/** The format version this library writes. */
export const CURRENT_SESSION_VERSION = 4;

// ---------------------------------------------------------------- content blocks

/** `{ type: "text", text }` */
export const TextContentSchema = z.looseObject({ type: z.literal("text"), text: z.string() });
/** `{ type: "image", data, mimeType }` with base64 `data`. */
export const ImageContentSchema = z.looseObject({
  type: z.literal("image"),
  data: z.string(),
  mimeType: z.string(),
});
/** `{ type: "thinking", thinking }` */
export const ThinkingContentSchema = z.looseObject({
  type: z.literal("thinking"),
  thinking: z.string(),
});
/** `{ type: "toolCall", id, name, arguments }` */
export const ToolCallSchema = z.looseObject({
  type: z.literal("toolCall"),
  id: z.string(),
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
});

/** Text or image: the blocks user, tool-result and custom content may hold. */
export const UserContentBlockSchema = z.discriminatedUnion("type", [
  TextContentSchema,
  ImageContentSchema,
]);
/** Text, thinking or tool call: the blocks assistant content may hold. */
export const AssistantContentBlockSchema = z.discriminatedUnion("type", [
  TextContentSchema,
  ThinkingContentSchema,
  ToolCallSchema,
]);
/** A string or a list of text/image blocks. */
export const UserContentSchema = z.union([z.string(), z.array(UserContentBlockSchema)]);

const finiteNumber = z.number();

/** Token and cost usage of one model call. */
export const UsageSchema = z.looseObject({
  input: finiteNumber,
  output: finiteNumber,
  cacheRead: finiteNumber.optional(),
  cacheWrite: finiteNumber.optional(),
  totalTokens: finiteNumber.optional(),
  cost: z.looseObject({
    input: finiteNumber.optional(),
    output: finiteNumber.optional(),
    cacheRead: finiteNumber.optional(),
    cacheWrite: finiteNumber.optional(),
    total: finiteNumber.optional(),
  }).optional(),
});

/** Metadata of tool calls a tool made on its own, kept on the parent tool result. */
export const NestedToolCallsSchema = z.looseObject({
  calls: z.array(z.looseObject({
    id: z.string(),
    name: z.string(),
    status: z.string(),
    arguments: z.unknown().optional(),
    durationMs: z.number().optional(),
    error: z.unknown().optional(),
  })),
  complete: z.boolean(),
});

// ---------------------------------------------------------------- messages

const timestampMs = z.number().optional();

/** Prompt / tool-loadout change, replayed in order. */
export const SystemMessageSchema = z.looseObject({
  role: z.literal("system"),
  content: z.union([z.string(), z.array(TextContentSchema)]),
  sections: z.record(z.string(), z.string().nullable()).optional(),
  toolsAdded: z.array(z.looseObject({ name: z.string() })).optional(),
  toolsRemoved: z.array(z.looseObject({ name: z.string() })).optional(),
  timestamp: timestampMs,
});
/** A user turn. */
export const UserMessageSchema = z.looseObject({
  role: z.literal("user"),
  content: UserContentSchema,
  timestamp: timestampMs,
});
/** A model reply. */
export const AssistantMessageSchema = z.looseObject({
  role: z.literal("assistant"),
  content: z.array(AssistantContentBlockSchema),
  api: z.string().optional(),
  provider: z.string().optional(),
  model: z.string().optional(),
  usage: UsageSchema.optional(),
  stopReason: z.string().optional(),
  errorMessage: z.string().optional(),
  timestamp: timestampMs,
});
/** The result of one tool call. */
export const ToolResultMessageSchema = z.looseObject({
  role: z.literal("toolResult"),
  toolCallId: z.string(),
  toolName: z.string().optional(),
  content: z.array(UserContentBlockSchema),
  usage: UsageSchema.optional(),
  nestedCalls: NestedToolCallsSchema.optional(),
  isError: z.boolean().optional(),
  timestamp: timestampMs,
});
/** A `!` shell command run by the user. */
export const BashExecutionMessageSchema = z.looseObject({
  role: z.literal("bashExecution"),
  command: z.string(),
  output: z.string(),
  exitCode: z.number().nullable().optional(),
  cancelled: z.boolean().optional(),
  truncated: z.boolean().optional(),
  excludeFromContext: z.boolean().optional(),
  timestamp: timestampMs,
});
/** An extension-provided message. */
export const CustomMessageSchema = z.looseObject({
  role: z.literal("custom"),
  customType: z.string(),
  content: UserContentSchema,
  display: z.boolean().optional(),
  timestamp: timestampMs,
});
/** Summary of an abandoned branch. */
export const BranchSummaryMessageSchema = z.looseObject({
  role: z.literal("branchSummary"),
  summary: z.string(),
  fromId: z.string().nullable().optional(),
  timestamp: timestampMs,
});
/** Retired summary-compaction message (older files only; inert). */
export const CompactionSummaryMessageSchema = z.looseObject({
  role: z.literal("compactionSummary"),
  summary: z.string(),
  tokensBefore: z.number().optional(),
  timestamp: timestampMs,
});

/** Every message role a session entry may carry. */
export const AgentMessageSchema = z.discriminatedUnion("role", [
  SystemMessageSchema,
  UserMessageSchema,
  AssistantMessageSchema,
  ToolResultMessageSchema,
  BashExecutionMessageSchema,
  CustomMessageSchema,
  BranchSummaryMessageSchema,
  CompactionSummaryMessageSchema,
]);

// ---------------------------------------------------------------- header

/** Complete workflow linkage of an internal (workflow-owned) session. */
export const WorkflowMarkerSchema = z.looseObject({
  runId: z.string(),
  stageId: z.string(),
  stageName: z.string(),
});

/**
 * The first line of a format-4 file. Older headers are upgraded to this shape on read.
 * `internal` and `workflow` are deliberately loose: malformed markers must load (and stay
 * visible), see {@link isWorkflowInternal}.
 */
export const SessionHeaderSchema = z.looseObject({
  type: z.literal("session"),
  version: z.literal(CURRENT_SESSION_VERSION),
  id: z.string().min(1),
  createdAt: z.string(),
  cwd: z.string().optional(),
  parentSessionId: z.string().optional(),
  internal: z.unknown().optional(),
  workflow: z.unknown().optional(),
});

// ---------------------------------------------------------------- entries

const entryBase = {
  id: z.string().min(1),
  parentId: z.string().nullable(),
  timestamp: z.string(),
};

/** A conversation message. */
export const MessageEntrySchema = z.looseObject({
  type: z.literal("message"),
  ...entryBase,
  message: AgentMessageSchema,
});
/** Model switch. */
export const ModelChangeEntrySchema = z.looseObject({
  type: z.literal("model_change"),
  ...entryBase,
  provider: z.string(),
  modelId: z.string(),
});
/** Thinking-level switch. */
export const ThinkingLevelChangeEntrySchema = z.looseObject({
  type: z.literal("thinking_level_change"),
  ...entryBase,
  thinkingLevel: z.string(),
});
/** Context-window selection, in tokens. */
export const ContextWindowChangeEntrySchema = z.looseObject({
  type: z.literal("context_window_change"),
  ...entryBase,
  contextWindow: z.number(),
});
/** Model usage outside the conversation (cache warming, ...). */
export const UsageEntrySchema = z.looseObject({
  type: z.literal("usage"),
  ...entryBase,
  kind: z.string(),
  provider: z.string().optional(),
  model: z.string().optional(),
  usage: UsageSchema,
});
/**
 * Compaction record. Active only when `details.strategy === "verbatim-lines"`; other
 * records (pi summary compactions, older Atomic) are retired and inert.
 */
export const CompactionEntrySchema = z.looseObject({
  type: z.literal("compaction"),
  ...entryBase,
  summary: z.string(),
  firstKeptEntryId: z.string().nullable().optional(),
  tokensBefore: z.number().optional(),
  details: z.unknown().optional(),
  systemMessage: SystemMessageSchema.optional(),
  usage: UsageSchema.optional(),
  fromHook: z.boolean().optional(),
});
/** Retired logical-deletion compaction (archival, never applied). */
export const ContextCompactionEntrySchema = z.looseObject({
  type: z.literal("context_compaction"),
  ...entryBase,
});
/** Replacement content for a context edit: `null` omits the target. */
export const ContextEditReplacementSchema = z.looseObject({
  content: z.union([
    z.string(),
    z.array(z.union([UserContentBlockSchema, AssistantContentBlockSchema])),
  ]),
}).nullable();
/** Branch-relative edit of one earlier context-producing entry. */
export const ContextEditEntrySchema = z.looseObject({
  type: z.literal("context_edit"),
  ...entryBase,
  targetId: z.string(),
  replacement: ContextEditReplacementSchema,
});
/** Summary of the branch that was left when navigating. */
export const BranchSummaryEntrySchema = z.looseObject({
  type: z.literal("branch_summary"),
  ...entryBase,
  fromId: z.string().nullable().optional(),
  summary: z.string(),
  details: z.unknown().optional(),
  fromHook: z.boolean().optional(),
  usage: UsageSchema.optional(),
});
/** Extension state; never part of model context. */
export const CustomEntrySchema = z.looseObject({
  type: z.literal("custom"),
  ...entryBase,
  customType: z.string(),
  data: z.unknown().optional(),
});
/** Extension message that is part of model context. */
export const CustomMessageEntrySchema = z.looseObject({
  type: z.literal("custom_message"),
  ...entryBase,
  customType: z.string(),
  content: UserContentSchema,
  display: z.boolean().optional(),
  details: z.unknown().optional(),
  excludeFromContext: z.boolean().optional(),
});
/** Bookmark on an entry; an absent or empty label clears it. */
export const LabelEntrySchema = z.looseObject({
  type: z.literal("label"),
  ...entryBase,
  targetId: z.string(),
  label: z.string().optional(),
});
/** Session display name; an empty name clears it. */
export const SessionInfoEntrySchema = z.looseObject({
  type: z.literal("session_info"),
  ...entryBase,
  name: z.string().optional(),
});
/** Generated one-line description for the session picker. */
export const SessionSummaryEntrySchema = z.looseObject({
  type: z.literal("session_summary"),
  ...entryBase,
  summary: z.string(),
  summarizedThroughId: z.string(),
  usage: z.looseObject({ input: z.number().optional(), output: z.number().optional() })
    .optional(),
});

/** Every known entry type, discriminated by `type`. */
export const KnownSessionEntrySchema = z.discriminatedUnion("type", [
  MessageEntrySchema,
  ModelChangeEntrySchema,
  ThinkingLevelChangeEntrySchema,
  ContextWindowChangeEntrySchema,
  UsageEntrySchema,
  CompactionEntrySchema,
  ContextCompactionEntrySchema,
  ContextEditEntrySchema,
  BranchSummaryEntrySchema,
  CustomEntrySchema,
  CustomMessageEntrySchema,
  LabelEntrySchema,
  SessionInfoEntrySchema,
  SessionSummaryEntrySchema,
]);

/**
 * An entry of a type this library does not know (written by a newer agent). It must
 * still be a tree node; it is kept, exported unchanged, and inert in context.
 */
export const UnknownSessionEntrySchema = z.looseObject({
  type: z.string().min(1),
  ...entryBase,
});

// ---------------------------------------------------------------- inferred types

export type TextContent = z.infer<typeof TextContentSchema>;
export type ImageContent = z.infer<typeof ImageContentSchema>;
export type ThinkingContent = z.infer<typeof ThinkingContentSchema>;
export type ToolCall = z.infer<typeof ToolCallSchema>;
export type UserContentBlock = z.infer<typeof UserContentBlockSchema>;
export type AssistantContentBlock = z.infer<typeof AssistantContentBlockSchema>;
export type Usage = z.infer<typeof UsageSchema>;
export type NestedToolCalls = z.infer<typeof NestedToolCallsSchema>;
export type SystemMessage = z.infer<typeof SystemMessageSchema>;
export type UserMessage = z.infer<typeof UserMessageSchema>;
export type AssistantMessage = z.infer<typeof AssistantMessageSchema>;
export type ToolResultMessage = z.infer<typeof ToolResultMessageSchema>;
export type BashExecutionMessage = z.infer<typeof BashExecutionMessageSchema>;
export type CustomMessage = z.infer<typeof CustomMessageSchema>;
export type BranchSummaryMessage = z.infer<typeof BranchSummaryMessageSchema>;
export type CompactionSummaryMessage = z.infer<typeof CompactionSummaryMessageSchema>;
export type AgentMessage = z.infer<typeof AgentMessageSchema>;
export type WorkflowMarker = z.infer<typeof WorkflowMarkerSchema>;
export type SessionHeader = z.infer<typeof SessionHeaderSchema>;
export type MessageEntry = z.infer<typeof MessageEntrySchema>;
export type ModelChangeEntry = z.infer<typeof ModelChangeEntrySchema>;
export type ThinkingLevelChangeEntry = z.infer<typeof ThinkingLevelChangeEntrySchema>;
export type ContextWindowChangeEntry = z.infer<typeof ContextWindowChangeEntrySchema>;
export type UsageEntry = z.infer<typeof UsageEntrySchema>;
export type CompactionEntry = z.infer<typeof CompactionEntrySchema>;
export type ContextCompactionEntry = z.infer<typeof ContextCompactionEntrySchema>;
export type ContextEditReplacement = z.infer<typeof ContextEditReplacementSchema>;
export type ContextEditEntry = z.infer<typeof ContextEditEntrySchema>;
export type BranchSummaryEntry = z.infer<typeof BranchSummaryEntrySchema>;
export type CustomEntry = z.infer<typeof CustomEntrySchema>;
export type CustomMessageEntry = z.infer<typeof CustomMessageEntrySchema>;
export type LabelEntry = z.infer<typeof LabelEntrySchema>;
export type SessionInfoEntry = z.infer<typeof SessionInfoEntrySchema>;
export type SessionSummaryEntry = z.infer<typeof SessionSummaryEntrySchema>;
export type KnownSessionEntry = z.infer<typeof KnownSessionEntrySchema>;
export type UnknownSessionEntry = z.infer<typeof UnknownSessionEntrySchema>;
/** Any entry of a session (everything but the header). */
export type SessionEntry = KnownSessionEntry;

/** Entry types this library knows; anything else is kept as an inert unknown entry. */
export const KNOWN_ENTRY_TYPES: ReadonlySet<string> = new Set(
  KnownSessionEntrySchema.options.map((option) => option.shape.type.value),
);

/** Why a value failed a schema, in one line a person can act on. */
export function describeSchemaError(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "invalid value";
  const path = issue.path.length ? issue.path.join(".") : "(root)";
  return `${path}: ${issue.message}`;
}

/**
 * Validate one parsed entry. Returns an error description, or `undefined` when valid.
 * The value itself is never replaced (zod's output copy is discarded), so key order and
 * unknown fields stay exactly as they were read.
 *
 * @example
 * ```ts
 * import { validateEntry } from "@mu/sessions";
 * validateEntry({ type: "label", id: "a", parentId: null, timestamp: "t", targetId: "b" }); // undefined
 * ```
 */
export function validateEntry(value: unknown): string | undefined {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return "entry is not a JSON object";
  }
  const type = (value as { type?: unknown }).type;
  if (type === "session") return "unexpected second session header";
  if (isCertainlyValidEntry(value)) return undefined; // skip zod's throw-away output copy
  const schema = typeof type === "string" && KNOWN_ENTRY_TYPES.has(type)
    ? KnownSessionEntrySchema
    : UnknownSessionEntrySchema;
  const result = schema.safeParse(value);
  return result.success ? undefined : describeSchemaError(result.error);
}

/**
 * Whether a header classifies its session as workflow-owned: `internal` is exactly `true`
 * and `workflow.runId`, `stageId` and `stageName` are non-empty strings. Anything else,
 * including malformed markers, leaves the session visible.
 *
 * @example
 * ```ts
 * import { isWorkflowInternal } from "@mu/sessions";
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
