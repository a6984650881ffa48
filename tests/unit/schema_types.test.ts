/**
 * The format's types (`src/schema.ts`, written without zod so the core never loads it) and
 * the zod schemas behind `@mu/sessions/schema` describe the same shapes: each type and the
 * type zod infers from its schema are assignable both ways (a field added, dropped or typed
 * differently on one side fails type checking here), and the public schemas accept what the
 * library writes and refuse what it refuses, naming the field.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type * as z from "zod";
import type * as T from "../../src/schema.ts";
import type * as S from "../../src/_zod_schema.ts";
import * as schema from "../../schema.ts";
import { parseSessionJsonlSync, serializeSessionJsonl } from "../../core.ts";

/** `true` when A and B are assignable to each other, else `false`. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Inferred<K extends keyof typeof S> = (typeof S)[K] extends z.ZodType ? z.infer<(typeof S)[K]>
  : never;

// Each line fails to type-check when the two sides drift apart.
const agree: Record<string, true> = {
  TextContent: true satisfies Same<T.TextContent, Inferred<"TextContentSchema">>,
  ImageContent: true satisfies Same<T.ImageContent, Inferred<"ImageContentSchema">>,
  ThinkingContent: true satisfies Same<T.ThinkingContent, Inferred<"ThinkingContentSchema">>,
  ToolCall: true satisfies Same<T.ToolCall, Inferred<"ToolCallSchema">>,
  UserContentBlock: true satisfies Same<T.UserContentBlock, Inferred<"UserContentBlockSchema">>,
  AssistantContentBlock: true satisfies Same<
    T.AssistantContentBlock,
    Inferred<"AssistantContentBlockSchema">
  >,
  Usage: true satisfies Same<T.Usage, Inferred<"UsageSchema">>,
  NestedToolCalls: true satisfies Same<T.NestedToolCalls, Inferred<"NestedToolCallsSchema">>,
  SystemMessage: true satisfies Same<T.SystemMessage, Inferred<"SystemMessageSchema">>,
  UserMessage: true satisfies Same<T.UserMessage, Inferred<"UserMessageSchema">>,
  AssistantMessage: true satisfies Same<T.AssistantMessage, Inferred<"AssistantMessageSchema">>,
  ToolResultMessage: true satisfies Same<
    T.ToolResultMessage,
    Inferred<"ToolResultMessageSchema">
  >,
  BashExecutionMessage: true satisfies Same<
    T.BashExecutionMessage,
    Inferred<"BashExecutionMessageSchema">
  >,
  CustomMessage: true satisfies Same<T.CustomMessage, Inferred<"CustomMessageSchema">>,
  BranchSummaryMessage: true satisfies Same<
    T.BranchSummaryMessage,
    Inferred<"BranchSummaryMessageSchema">
  >,
  CompactionSummaryMessage: true satisfies Same<
    T.CompactionSummaryMessage,
    Inferred<"CompactionSummaryMessageSchema">
  >,
  AgentMessage: true satisfies Same<T.AgentMessage, Inferred<"AgentMessageSchema">>,
  WorkflowMarker: true satisfies Same<T.WorkflowMarker, Inferred<"WorkflowMarkerSchema">>,
  SessionHeader: true satisfies Same<T.SessionHeader, Inferred<"SessionHeaderSchema">>,
  MessageEntry: true satisfies Same<T.MessageEntry, Inferred<"MessageEntrySchema">>,
  ModelChangeEntry: true satisfies Same<T.ModelChangeEntry, Inferred<"ModelChangeEntrySchema">>,
  ThinkingLevelChangeEntry: true satisfies Same<
    T.ThinkingLevelChangeEntry,
    Inferred<"ThinkingLevelChangeEntrySchema">
  >,
  ContextWindowChangeEntry: true satisfies Same<
    T.ContextWindowChangeEntry,
    Inferred<"ContextWindowChangeEntrySchema">
  >,
  UsageEntry: true satisfies Same<T.UsageEntry, Inferred<"UsageEntrySchema">>,
  CompactionEntry: true satisfies Same<T.CompactionEntry, Inferred<"CompactionEntrySchema">>,
  ContextCompactionEntry: true satisfies Same<
    T.ContextCompactionEntry,
    Inferred<"ContextCompactionEntrySchema">
  >,
  ContextEditReplacement: true satisfies Same<
    T.ContextEditReplacement,
    Inferred<"ContextEditReplacementSchema">
  >,
  ContextEditEntry: true satisfies Same<T.ContextEditEntry, Inferred<"ContextEditEntrySchema">>,
  BranchSummaryEntry: true satisfies Same<
    T.BranchSummaryEntry,
    Inferred<"BranchSummaryEntrySchema">
  >,
  CustomEntry: true satisfies Same<T.CustomEntry, Inferred<"CustomEntrySchema">>,
  CustomMessageEntry: true satisfies Same<
    T.CustomMessageEntry,
    Inferred<"CustomMessageEntrySchema">
  >,
  LabelEntry: true satisfies Same<T.LabelEntry, Inferred<"LabelEntrySchema">>,
  SessionInfoEntry: true satisfies Same<T.SessionInfoEntry, Inferred<"SessionInfoEntrySchema">>,
  SessionSummaryEntry: true satisfies Same<
    T.SessionSummaryEntry,
    Inferred<"SessionSummaryEntrySchema">
  >,
  KnownSessionEntry: true satisfies Same<T.KnownSessionEntry, Inferred<"KnownSessionEntrySchema">>,
  UnknownSessionEntry: true satisfies Same<
    T.UnknownSessionEntry,
    Inferred<"UnknownSessionEntrySchema">
  >,
};

test("every type of the format has a zod schema that agrees with it", () => {
  const publicSchemas = Object.keys(schema).sort();
  const typed = Object.keys(agree).filter((name) => name !== "WorkflowMarker");
  // The entry also names the union `SessionEntry` (the same schema as `KnownSessionEntry`).
  assert.deepEqual(publicSchemas, [...typed, "SessionEntry"].sort());
});

const SESSION = [
  '{"type":"session","version":4,"id":"s1","createdAt":"2026-01-01T00:00:00.000Z","cwd":"/p"}',
  '{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}',
  '{"type":"model_change","id":"a2","parentId":"a1","timestamp":"2026-01-01T00:00:02.000Z","provider":"p","modelId":"m","extra":{"kept":true}}',
  '{"type":"newer_kind","id":"a3","parentId":"a2","timestamp":"2026-01-01T00:00:03.000Z"}',
].join("\n") + "\n";

test("@mu/sessions/schema accepts what the library parses and keeps unknown fields", () => {
  const { header, entries } = parseSessionJsonlSync(SESSION);
  const parsedHeader: T.SessionHeader = schema.SessionHeader.parse(header);
  const known = entries.slice(0, 2).map((entry) => schema.SessionEntry.parse(entry));
  const unknown = schema.UnknownSessionEntry.parse(entries[2]);
  assert.equal(
    serializeSessionJsonl(parsedHeader, [...known, unknown as T.SessionEntry]),
    SESSION,
  );
  assert.deepEqual((known[1] as T.ModelChangeEntry).extra, { kept: true });
});

test("@mu/sessions/schema refuses what the library refuses, naming the field", () => {
  const bad = { type: "model_change", id: "a2", parentId: null, timestamp: "t", provider: 1 };
  const result = schema.SessionEntry.safeParse(bad);
  assert.equal(result.success, false);
  assert.deepEqual(result.error?.issues[0].path, ["provider"]);
  assert.throws(() => parseSessionJsonlSync(SESSION.split("\n")[0] + "\n" + JSON.stringify(bad)));
});
