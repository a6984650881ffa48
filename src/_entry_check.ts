/**
 * Validation of the session header and of entries, without zod: the shapes of
 * `_zod_schema.ts` and `_zod_messages.ts` restated with the combinators of `_check.ts`,
 * which decide and word every failure as zod does. Parsing, stores and the edge handler
 * validate here, so none of them loads or evaluates zod (a cold-start cost on every edge
 * function, and most of a browser bundle); the zod schemas remain the documented contract
 * for callers, as `@mu/sessions/schema`. Each shape below mirrors the schema of the same name,
 * field for field and in the same order (the first failing field is the one reported);
 * `tests/unit/validate.test.ts` checks the two agree, message for message.
 *
 * @module
 */
import {
  array,
  between,
  boolean,
  type Check,
  describeIssue,
  discriminated,
  literal,
  minLength,
  nullable,
  number,
  object,
  optional,
  record,
  refine,
  satisfies,
  string,
  union,
  unknown,
} from "./_check.ts";
import {
  isStorableId,
  MAX_DATE_MS,
  MAX_NESTING_DEPTH,
  nestsDeeperThan,
  UNSTORABLE_ID_MESSAGE,
} from "./_wellformed.ts";

/**
 * The format version this library writes (re-exported by `schema.ts`, defined here so the
 * parser reads it without evaluating zod).
 *
 * @example
 * ```ts
 * import { CURRENT_SESSION_VERSION, parseSessionJsonl } from "@mu/sessions";
 * declare const text: string; // a session file of any format version
 * const { header, sourceVersion } = await parseSessionJsonl(text);
 * header.version === CURRENT_SESSION_VERSION; // true: older files are upgraded on read
 * if (sourceVersion < CURRENT_SESSION_VERSION) console.log(`upgraded from v${sourceVersion}`);
 * ```
 */
export const CURRENT_SESSION_VERSION = 4;

// ---------------------------------------------------------------- content and messages

/**
 * One object check per tag of a discriminated union: `key` holding the tag, then the
 * fields of `first`, the tag's own fields and those of `last` (the schemas' field order).
 */
function tagged(
  key: string,
  shapes: Record<string, Record<string, Check>>,
  first: Record<string, Check> = {},
  last: Record<string, Check> = {},
): Record<string, Check> {
  const checks: Record<string, Check> = {};
  for (const tag in shapes) {
    checks[tag] = object({ [key]: literal(tag), ...first, ...shapes[tag], ...last });
  }
  return checks;
}

const { text, image, thinking, toolCall } = tagged("type", {
  text: { text: string },
  image: { data: string, mimeType: string },
  thinking: { thinking: string },
  toolCall: { id: string, name: string, arguments: record(unknown) },
});
const userBlock = discriminated("type", { text, image });
const assistantBlock = discriminated("type", { text, thinking, toolCall });
const userContent = union(string, array(userBlock));

const optNumber = optional(number);
const usage = object({
  input: number,
  output: number,
  cacheRead: optNumber,
  cacheWrite: optNumber,
  totalTokens: optNumber,
  cost: optional(object({
    input: optNumber,
    output: optNumber,
    cacheRead: optNumber,
    cacheWrite: optNumber,
    total: optNumber,
  })),
});
const optUsage = optional(usage);
const nestedCalls = object({
  calls: array(object({
    id: string,
    name: string,
    status: string,
    arguments: optional(unknown),
    durationMs: optNumber,
    error: optional(unknown),
  })),
  complete: boolean,
});

const optString = optional(string);
const optBoolean = optional(boolean);
const optNullableString = optional(nullable(string));
const timestampMs = optional(refine(number, between(-MAX_DATE_MS, MAX_DATE_MS)));
const toolNames = optional(array(object({ name: string })));

// Every message shape ends with its timestamp.
const messages = tagged(
  "role",
  {
    system: {
      content: union(string, array(text)),
      sections: optional(record(nullable(string))),
      toolsAdded: toolNames,
      toolsRemoved: toolNames,
    },
    user: { content: userContent },
    assistant: {
      content: array(assistantBlock),
      api: optString,
      provider: optString,
      model: optString,
      usage: optUsage,
      stopReason: optString,
      errorMessage: optString,
    },
    toolResult: {
      toolCallId: string,
      toolName: optString,
      content: array(userBlock),
      usage: optUsage,
      nestedCalls: optional(nestedCalls),
      isError: optBoolean,
    },
    bashExecution: {
      command: string,
      output: string,
      exitCode: optional(nullable(number)),
      cancelled: optBoolean,
      truncated: optBoolean,
      excludeFromContext: optBoolean,
    },
    custom: { customType: string, content: userContent, display: optBoolean },
    branchSummary: { summary: string, fromId: optNullableString },
    compactionSummary: { summary: string, tokensBefore: optNumber },
  },
  {},
  { timestamp: timestampMs },
);
const systemMessage = messages.system;
const agentMessage = discriminated("role", messages);

// ---------------------------------------------------------------- header and entries

const header = object({
  type: literal("session"),
  version: literal(CURRENT_SESSION_VERSION),
  id: refine(string, minLength(1)),
  createdAt: string,
  cwd: optString,
  parentSessionId: optString,
  internal: optional(unknown),
  workflow: optional(unknown),
});

const storable = satisfies(isStorableId, UNSTORABLE_ID_MESSAGE);
const base = {
  id: refine(string, storable, minLength(1)),
  parentId: nullable(refine(string, storable)),
  timestamp: string,
};
/** Every known entry type (`KnownSessionEntrySchema`), in the schema's order, each with the base fields first. */
const KNOWN = tagged("type", {
  message: { message: agentMessage },
  model_change: { provider: string, modelId: string },
  thinking_level_change: { thinkingLevel: string },
  context_window_change: { contextWindow: number },
  usage: { kind: string, provider: optString, model: optString, usage },
  compaction: {
    summary: string,
    firstKeptEntryId: optNullableString,
    tokensBefore: optNumber,
    details: optional(unknown),
    systemMessage: optional(systemMessage),
    usage: optUsage,
    fromHook: optBoolean,
  },
  context_compaction: {},
  context_edit: {
    targetId: string,
    replacement: nullable(object({
      content: union(string, array(union(userBlock, assistantBlock))),
    })),
  },
  branch_summary: {
    fromId: optNullableString,
    summary: string,
    details: optional(unknown),
    fromHook: optBoolean,
    usage: optUsage,
  },
  custom: { customType: string, data: optional(unknown) },
  custom_message: {
    customType: string,
    content: userContent,
    display: optBoolean,
    details: optional(unknown),
    excludeFromContext: optBoolean,
  },
  label: { targetId: string, label: optString },
  session_info: { name: optString },
  session_summary: {
    summary: string,
    summarizedThroughId: string,
    usage: optional(object({ input: optNumber, output: optNumber })),
  },
}, base);
/**
 * The shape for an entry of a known type. `KnownSessionEntrySchema` is a discriminated
 * union, but it is only asked about known types, which it hands straight to their option.
 */
const KNOWN_BY_TYPE = new Map(Object.entries(KNOWN));
/** `UnknownSessionEntrySchema`: an entry of a type this library does not know. */
const unknownEntry = object({ type: refine(string, minLength(1)), ...base });

/** Entry types this library knows; anything else is kept as an inert unknown entry. */
// Pure: bundles that never list the known types (the edge handler's) drop the call.
export const KNOWN_ENTRY_TYPE_NAMES: readonly string[] = /* @__PURE__ */ Object.keys(KNOWN);

/**
 * What is wrong with a value as an entry, worded as zod words it for
 * `KnownSessionEntrySchema` (a known `type`) or `UnknownSessionEntrySchema` (any other), or
 * `undefined` when it is one. Only the shape: {@link validateEntry} adds the format's rules.
 *
 * @example
 * ```ts
 * import { entryShapeProblem } from "./_entry_check.ts";
 * entryShapeProblem({ type: "label", id: "a", parentId: null, timestamp: "t" });
 * // "targetId: Invalid input: expected string, received undefined"
 * ```
 */
export function entryShapeProblem(value: unknown): string | undefined {
  const type = (value as { type?: unknown } | null)?.type;
  const found = (KNOWN_BY_TYPE.get(type as string) ?? unknownEntry)(value);
  return found && describeIssue(found);
}

/**
 * What is wrong with an (upgraded) header, worded as zod words it for `SessionHeaderSchema`,
 * or `undefined` when it is valid.
 *
 * @example
 * ```ts
 * import { headerProblem } from "./_entry_check.ts";
 * headerProblem({ type: "session", version: 4, id: "", createdAt: "t" });
 * // "id: Too small: expected string to have >=1 characters"
 * ```
 */
export function headerProblem(value: unknown): string | undefined {
  const found = header(value);
  return found && describeIssue(found);
}

/**
 * An entry's `type` as error messages name it: the string itself, otherwise `"entry"`.
 * Never `String(type)`: an array nested thousands of levels deep (refused by
 * {@link validateEntry}) overflows the stack in `Array.prototype.toString`.
 *
 * @example
 * ```ts
 * import { entryTypeLabel } from "./_entry_check.ts";
 * entryTypeLabel({ type: "label" }); // "label"
 * entryTypeLabel({ type: [["x"]] }); // "entry"
 * ```
 */
export function entryTypeLabel(entry: { type?: unknown }): string {
  return typeof entry.type === "string" ? entry.type : "entry";
}

/**
 * Validate one parsed entry. Returns an error description, or `undefined` when valid.
 * The value itself is never replaced, so key order and unknown fields stay exactly as
 * they were read.
 *
 * @example
 * ```ts
 * import { validateEntry } from "./_entry_check.ts";
 * validateEntry({ type: "label", id: "a", parentId: null, timestamp: "t", targetId: "b" }); // undefined
 * ```
 */
export function validateEntry(value: unknown): string | undefined {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return "entry is not a JSON object";
  }
  if ((value as { type?: unknown }).type === "session") return "unexpected second session header";
  if (nestsDeeperThan(value, MAX_NESTING_DEPTH)) {
    return `nests arrays and objects deeper than ${MAX_NESTING_DEPTH} levels`;
  }
  return entryShapeProblem(value);
}
