/**
 * zod schemas for the messages inside session entries: content blocks, usage, and every
 * message role. Objects are loose (unknown fields kept). Re-exported by `_zod_schema.ts`;
 * restated without zod in `_entry_check.ts`, typed without zod in `schema.ts`.
 *
 * @module
 */
import * as z from "zod";
import { MAX_DATE_MS } from "./_wellformed.ts";

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

/** Epoch ms within what a `Date` holds: listings turn it into one (see `_wellformed.ts`). */
const timestampMs = z.number().min(-MAX_DATE_MS).max(MAX_DATE_MS).optional();

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
