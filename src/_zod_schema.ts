/**
 * zod schemas for the format-4 session header and every entry type; message roles and
 * content blocks are in `_zod_messages.ts` (re-exported here). The public face of these is
 * the `@mu/sessions/schema` entry (the root `schema.ts`), which names each schema after its
 * type; nothing in the core imports this file, so no runtime bundle carries zod.
 *
 * Objects are "loose": unknown fields are validated past and kept, never dropped, so a
 * file written by a newer agent survives a round trip. Validation checks structure (the
 * fields readers depend on), not every optional field a provider may add.
 *
 * The library itself validates with `_entry_check.ts`, which restates these shapes without
 * zod and agrees with them verdict for verdict and message for message: change a schema here
 * or in `_zod_messages.ts` and the same shape there (`tests/unit/validate.test.ts` fails
 * until they agree) and the type in `schema.ts` (`tests/unit/schema_types.test.ts`).
 *
 * @module
 */
import * as z from "zod";
import { CURRENT_SESSION_VERSION } from "./_entry_check.ts";
import { isStorableId, UNSTORABLE_ID_MESSAGE } from "./_wellformed.ts";
import {
  AgentMessageSchema,
  AssistantContentBlockSchema,
  SystemMessageSchema,
  UsageSchema,
  UserContentBlockSchema,
  UserContentSchema,
} from "./_zod_messages.ts";

export * from "./_zod_messages.ts";

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

/** An id every store keeps exactly (see `_wellformed.ts`). */
const storableId = z.string().refine(isStorableId, UNSTORABLE_ID_MESSAGE);

const entryBase = {
  id: storableId.min(1),
  parentId: storableId.nullable(),
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

/** Why a value failed a schema, in one line a person can act on. */
export function describeSchemaError(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "invalid value";
  const path = issue.path.length ? issue.path.join(".") : "(root)";
  return `${path}: ${issue.message}`;
}
