/**
 * zod schemas for the format-4 session header and every entry type, with the TypeScript
 * types inferred from them; message roles and content blocks are in `message_schema.ts`
 * (re-exported here).
 *
 * Objects are "loose": unknown fields are validated past and kept, never dropped, so a
 * file written by a newer agent survives a round trip. Validation checks structure (the
 * fields readers depend on), not every optional field a provider may add.
 *
 * Each entry type has a schema (`MessageEntrySchema`, ...) and its inferred type
 * (`MessageEntry`, ...); `SessionEntry` is their union, narrowed by `type`.
 *
 * The library itself validates with `entry_check.ts`, which restates these shapes without
 * zod (zod costs 20-40 ms at every cold start of an edge function) and agrees with them
 * verdict for verdict and message for message: change a schema here or in
 * `message_schema.ts` and the same shape there (`tests/unit/validate.test.ts` fails until
 * they agree).
 *
 * @example
 * ```ts
 * import { type SessionEntry, SessionHeaderSchema, SessionInfoEntrySchema } from "@mu/sessions";
 * declare const lines: string[]; // the records of a format-4 file
 * const header = SessionHeaderSchema.parse(JSON.parse(lines[0])); // throws a ZodError if invalid
 * const entry = JSON.parse(lines[1]) as SessionEntry;
 * if (entry.type === "model_change") console.log(entry.provider, entry.modelId); // a ModelChangeEntry
 * const named = SessionInfoEntrySchema.safeParse(entry).success; // is it a session_info entry?
 * ```
 *
 * @module
 */
import * as z from "zod";
import { CURRENT_SESSION_VERSION } from "./entry_check.ts";
import { isStorableId, UNSTORABLE_ID_MESSAGE } from "./wellformed.ts";
import {
  AgentMessageSchema,
  AssistantContentBlockSchema,
  SystemMessageSchema,
  UsageSchema,
  UserContentBlockSchema,
  UserContentSchema,
} from "./message_schema.ts";

export * from "./message_schema.ts";
// Validation itself runs without zod (see entry_check.ts); re-exported for the callers here.
export { CURRENT_SESSION_VERSION, entryTypeLabel, validateEntry } from "./entry_check.ts";

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

/** An id every store keeps exactly (see `wellformed.ts`). */
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

// ---------------------------------------------------------------- inferred types

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
