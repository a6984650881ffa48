/**
 * zod schemas for the session format (format 4), for people who want to validate records
 * with zod or build on these shapes: the header, every entry type, every message role and
 * content block. Each schema has the name of the type it checks, so one import gives both
 * (`SessionHeader.parse(value)` returns a `SessionHeader`); the types are the same ones
 * `@mu/sessions/core` exports.
 *
 * This entry is the only one that loads zod (a dependency of the package): the library
 * itself validates without it (every parse and append runs the same checks, with the same
 * messages), so `@mu/sessions/core` and the store entries stay small in browser and edge
 * bundles. Objects are loose: unknown fields pass and are kept, as a newer agent may add
 * them. Each schema is typed `z.ZodType<T>` with the library's own type `T`.
 *
 * @example
 * ```ts
 * import { SessionEntry, SessionHeader } from "@mu/sessions/schema";
 * declare const lines: string[]; // the records of a format-4 file
 * const header: SessionHeader = SessionHeader.parse(JSON.parse(lines[0])); // throws a ZodError if invalid
 * const entry = SessionEntry.safeParse(JSON.parse(lines[1]));
 * if (entry.success && entry.data.type === "model_change") console.log(entry.data.modelId);
 * ```
 *
 * @module
 */
import type * as z from "zod";
import type * as T from "./src/schema.ts";
import * as schemas from "./src/_zod_schema.ts";

// The header.
/** The zod schema of the `SessionHeader` type. */
export const SessionHeader: z.ZodType<T.SessionHeader> = schemas.SessionHeaderSchema;
/** The `SessionHeader` type, as `@mu/sessions/core` exports it. */
export type SessionHeader = T.SessionHeader;

// Entries: one schema per entry type, their union, and the shape of an entry of an unknown type.
/** The zod schema of the `MessageEntry` type. */
export const MessageEntry: z.ZodType<T.MessageEntry> = schemas.MessageEntrySchema;
/** The `MessageEntry` type, as `@mu/sessions/core` exports it. */
export type MessageEntry = T.MessageEntry;
/** The zod schema of the `ModelChangeEntry` type. */
export const ModelChangeEntry: z.ZodType<T.ModelChangeEntry> = schemas.ModelChangeEntrySchema;
/** The `ModelChangeEntry` type, as `@mu/sessions/core` exports it. */
export type ModelChangeEntry = T.ModelChangeEntry;
/** The zod schema of the `ThinkingLevelChangeEntry` type. */
export const ThinkingLevelChangeEntry: z.ZodType<T.ThinkingLevelChangeEntry> =
  schemas.ThinkingLevelChangeEntrySchema;
/** The `ThinkingLevelChangeEntry` type, as `@mu/sessions/core` exports it. */
export type ThinkingLevelChangeEntry = T.ThinkingLevelChangeEntry;
/** The zod schema of the `ContextWindowChangeEntry` type. */
export const ContextWindowChangeEntry: z.ZodType<T.ContextWindowChangeEntry> =
  schemas.ContextWindowChangeEntrySchema;
/** The `ContextWindowChangeEntry` type, as `@mu/sessions/core` exports it. */
export type ContextWindowChangeEntry = T.ContextWindowChangeEntry;
/** The zod schema of the `UsageEntry` type. */
export const UsageEntry: z.ZodType<T.UsageEntry> = schemas.UsageEntrySchema;
/** The `UsageEntry` type, as `@mu/sessions/core` exports it. */
export type UsageEntry = T.UsageEntry;
/** The zod schema of the `CompactionEntry` type. */
export const CompactionEntry: z.ZodType<T.CompactionEntry> = schemas.CompactionEntrySchema;
/** The `CompactionEntry` type, as `@mu/sessions/core` exports it. */
export type CompactionEntry = T.CompactionEntry;
/** The zod schema of the `ContextCompactionEntry` type. */
export const ContextCompactionEntry: z.ZodType<T.ContextCompactionEntry> =
  schemas.ContextCompactionEntrySchema;
/** The `ContextCompactionEntry` type, as `@mu/sessions/core` exports it. */
export type ContextCompactionEntry = T.ContextCompactionEntry;
/** The zod schema of the `ContextEditReplacement` type. */
export const ContextEditReplacement: z.ZodType<T.ContextEditReplacement> =
  schemas.ContextEditReplacementSchema;
/** The `ContextEditReplacement` type, as `@mu/sessions/core` exports it. */
export type ContextEditReplacement = T.ContextEditReplacement;
/** The zod schema of the `ContextEditEntry` type. */
export const ContextEditEntry: z.ZodType<T.ContextEditEntry> = schemas.ContextEditEntrySchema;
/** The `ContextEditEntry` type, as `@mu/sessions/core` exports it. */
export type ContextEditEntry = T.ContextEditEntry;
/** The zod schema of the `BranchSummaryEntry` type. */
export const BranchSummaryEntry: z.ZodType<T.BranchSummaryEntry> = schemas.BranchSummaryEntrySchema;
/** The `BranchSummaryEntry` type, as `@mu/sessions/core` exports it. */
export type BranchSummaryEntry = T.BranchSummaryEntry;
/** The zod schema of the `CustomEntry` type. */
export const CustomEntry: z.ZodType<T.CustomEntry> = schemas.CustomEntrySchema;
/** The `CustomEntry` type, as `@mu/sessions/core` exports it. */
export type CustomEntry = T.CustomEntry;
/** The zod schema of the `CustomMessageEntry` type. */
export const CustomMessageEntry: z.ZodType<T.CustomMessageEntry> = schemas.CustomMessageEntrySchema;
/** The `CustomMessageEntry` type, as `@mu/sessions/core` exports it. */
export type CustomMessageEntry = T.CustomMessageEntry;
/** The zod schema of the `LabelEntry` type. */
export const LabelEntry: z.ZodType<T.LabelEntry> = schemas.LabelEntrySchema;
/** The `LabelEntry` type, as `@mu/sessions/core` exports it. */
export type LabelEntry = T.LabelEntry;
/** The zod schema of the `SessionInfoEntry` type. */
export const SessionInfoEntry: z.ZodType<T.SessionInfoEntry> = schemas.SessionInfoEntrySchema;
/** The `SessionInfoEntry` type, as `@mu/sessions/core` exports it. */
export type SessionInfoEntry = T.SessionInfoEntry;
/** The zod schema of the `SessionSummaryEntry` type. */
export const SessionSummaryEntry: z.ZodType<T.SessionSummaryEntry> =
  schemas.SessionSummaryEntrySchema;
/** The `SessionSummaryEntry` type, as `@mu/sessions/core` exports it. */
export type SessionSummaryEntry = T.SessionSummaryEntry;
/** The zod schema of the `KnownSessionEntry` type. */
export const KnownSessionEntry: z.ZodType<T.KnownSessionEntry> = schemas.KnownSessionEntrySchema;
/** The `KnownSessionEntry` type, as `@mu/sessions/core` exports it. */
export type KnownSessionEntry = T.KnownSessionEntry;
/** The zod schema of the `UnknownSessionEntry` type. */
export const UnknownSessionEntry: z.ZodType<T.UnknownSessionEntry> =
  schemas.UnknownSessionEntrySchema;
/** The `UnknownSessionEntry` type, as `@mu/sessions/core` exports it. */
export type UnknownSessionEntry = T.UnknownSessionEntry;
/** The zod schema of the `SessionEntry` type. */
export const SessionEntry: z.ZodType<T.SessionEntry> = schemas.KnownSessionEntrySchema;
/** The `SessionEntry` type, as `@mu/sessions/core` exports it. */
export type SessionEntry = T.SessionEntry;

// Messages and the content blocks they carry.
/** The zod schema of the `TextContent` type. */
export const TextContent: z.ZodType<T.TextContent> = schemas.TextContentSchema;
/** The `TextContent` type, as `@mu/sessions/core` exports it. */
export type TextContent = T.TextContent;
/** The zod schema of the `ImageContent` type. */
export const ImageContent: z.ZodType<T.ImageContent> = schemas.ImageContentSchema;
/** The `ImageContent` type, as `@mu/sessions/core` exports it. */
export type ImageContent = T.ImageContent;
/** The zod schema of the `ThinkingContent` type. */
export const ThinkingContent: z.ZodType<T.ThinkingContent> = schemas.ThinkingContentSchema;
/** The `ThinkingContent` type, as `@mu/sessions/core` exports it. */
export type ThinkingContent = T.ThinkingContent;
/** The zod schema of the `ToolCall` type. */
export const ToolCall: z.ZodType<T.ToolCall> = schemas.ToolCallSchema;
/** The `ToolCall` type, as `@mu/sessions/core` exports it. */
export type ToolCall = T.ToolCall;
/** The zod schema of the `UserContentBlock` type. */
export const UserContentBlock: z.ZodType<T.UserContentBlock> = schemas.UserContentBlockSchema;
/** The `UserContentBlock` type, as `@mu/sessions/core` exports it. */
export type UserContentBlock = T.UserContentBlock;
/** The zod schema of the `AssistantContentBlock` type. */
export const AssistantContentBlock: z.ZodType<T.AssistantContentBlock> =
  schemas.AssistantContentBlockSchema;
/** The `AssistantContentBlock` type, as `@mu/sessions/core` exports it. */
export type AssistantContentBlock = T.AssistantContentBlock;
/** The zod schema of the `Usage` type. */
export const Usage: z.ZodType<T.Usage> = schemas.UsageSchema;
/** The `Usage` type, as `@mu/sessions/core` exports it. */
export type Usage = T.Usage;
/** The zod schema of the `NestedToolCalls` type. */
export const NestedToolCalls: z.ZodType<T.NestedToolCalls> = schemas.NestedToolCallsSchema;
/** The `NestedToolCalls` type, as `@mu/sessions/core` exports it. */
export type NestedToolCalls = T.NestedToolCalls;
/** The zod schema of the `SystemMessage` type. */
export const SystemMessage: z.ZodType<T.SystemMessage> = schemas.SystemMessageSchema;
/** The `SystemMessage` type, as `@mu/sessions/core` exports it. */
export type SystemMessage = T.SystemMessage;
/** The zod schema of the `UserMessage` type. */
export const UserMessage: z.ZodType<T.UserMessage> = schemas.UserMessageSchema;
/** The `UserMessage` type, as `@mu/sessions/core` exports it. */
export type UserMessage = T.UserMessage;
/** The zod schema of the `AssistantMessage` type. */
export const AssistantMessage: z.ZodType<T.AssistantMessage> = schemas.AssistantMessageSchema;
/** The `AssistantMessage` type, as `@mu/sessions/core` exports it. */
export type AssistantMessage = T.AssistantMessage;
/** The zod schema of the `ToolResultMessage` type. */
export const ToolResultMessage: z.ZodType<T.ToolResultMessage> = schemas.ToolResultMessageSchema;
/** The `ToolResultMessage` type, as `@mu/sessions/core` exports it. */
export type ToolResultMessage = T.ToolResultMessage;
/** The zod schema of the `BashExecutionMessage` type. */
export const BashExecutionMessage: z.ZodType<T.BashExecutionMessage> =
  schemas.BashExecutionMessageSchema;
/** The `BashExecutionMessage` type, as `@mu/sessions/core` exports it. */
export type BashExecutionMessage = T.BashExecutionMessage;
/** The zod schema of the `CustomMessage` type. */
export const CustomMessage: z.ZodType<T.CustomMessage> = schemas.CustomMessageSchema;
/** The `CustomMessage` type, as `@mu/sessions/core` exports it. */
export type CustomMessage = T.CustomMessage;
/** The zod schema of the `BranchSummaryMessage` type. */
export const BranchSummaryMessage: z.ZodType<T.BranchSummaryMessage> =
  schemas.BranchSummaryMessageSchema;
/** The `BranchSummaryMessage` type, as `@mu/sessions/core` exports it. */
export type BranchSummaryMessage = T.BranchSummaryMessage;
/** The zod schema of the `CompactionSummaryMessage` type. */
export const CompactionSummaryMessage: z.ZodType<T.CompactionSummaryMessage> =
  schemas.CompactionSummaryMessageSchema;
/** The `CompactionSummaryMessage` type, as `@mu/sessions/core` exports it. */
export type CompactionSummaryMessage = T.CompactionSummaryMessage;
/** The zod schema of the `AgentMessage` type. */
export const AgentMessage: z.ZodType<T.AgentMessage> = schemas.AgentMessageSchema;
/** The `AgentMessage` type, as `@mu/sessions/core` exports it. */
export type AgentMessage = T.AgentMessage;
