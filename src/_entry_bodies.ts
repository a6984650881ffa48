/**
 * The entry bodies `SessionManager`'s append methods write: each built from the method's
 * arguments (defaults filled, text trimmed, an absent optional argument left out rather than
 * written as `undefined`) and refused where the arguments alone are wrong. The manager adds
 * id, parent and timestamp, and checks the whole entry ({@link assertValidEntry}) before the
 * store sees it. Key order is the order the entry is written in.
 *
 * @module
 */
import { InvalidArgumentError } from "./errors.ts";
import {
  type BranchSummaryEntry,
  type CompactionEntry,
  type ContextEditEntry,
  type CustomMessageEntry,
  entryTypeLabel,
  type SessionEntry,
  type UserContentBlock,
  validateEntry,
} from "./schema.ts";
import { normalizeSummary } from "./session_options.ts";

/** Distributive omit, so each entry variant keeps its own fields. */
export type EntryBody<T> = T extends SessionEntry ? Omit<T, "id" | "parentId" | "timestamp">
  : never;

/** The body of any entry. */
export type Body = EntryBody<SessionEntry>;

/**
 * Refuse an entry the format does not allow, with `InvalidArgumentError`.
 *
 * @example
 * ```ts
 * import { assertValidEntry } from "./_entry_bodies.ts";
 * assertValidEntry({ type: "label", id: "l1", parentId: null, timestamp: "2026-01-01T00:00:00.000Z", targetId: "l1" });
 * ```
 */
export function assertValidEntry(entry: SessionEntry): void {
  const problem = validateEntry(entry);
  if (problem) throw new InvalidArgumentError(`invalid ${entryTypeLabel(entry)} entry: ${problem}`);
}

/**
 * A verbatim-line compaction boundary: `details.strategy` defaults to `"verbatim-lines"`,
 * and `rung: "extension"` sets `fromHook`.
 *
 * @example
 * ```ts
 * import { compactionBody } from "./_entry_bodies.ts";
 * compactionBody("[User]: hi", null, 1200, {}).details; // { strategy: "verbatim-lines" }
 * ```
 */
export function compactionBody(
  compactedText: string,
  firstKeptEntryId: string | null,
  tokensBefore: number,
  details: Record<string, unknown>,
): EntryBody<CompactionEntry> {
  const fullDetails: Record<string, unknown> = { strategy: "verbatim-lines", ...details };
  const body: EntryBody<CompactionEntry> = {
    type: "compaction",
    summary: compactedText,
    firstKeptEntryId,
    tokensBefore,
    details: fullDetails,
  };
  if (fullDetails.rung === "extension") body.fromHook = true;
  return body;
}

/**
 * An extension message that is part of model context.
 *
 * @example
 * ```ts
 * import { customMessageBody } from "./_entry_bodies.ts";
 * "details" in customMessageBody("note", "hi", true, undefined); // false
 * ```
 */
export function customMessageBody(
  customType: string,
  content: string | UserContentBlock[],
  display: boolean,
  details: unknown,
): EntryBody<CustomMessageEntry> {
  return {
    type: "custom_message",
    customType,
    content,
    display,
    ...(details === undefined ? {} : { details }),
  };
}

/**
 * A display name, trimmed (an empty name clears it); a name that is not a string is refused.
 *
 * @example
 * ```ts
 * import { sessionInfoBody } from "./_entry_bodies.ts";
 * sessionInfoBody("  Refactor ").name; // "Refactor"
 * ```
 */
export function sessionInfoBody(name: string): Body {
  if (typeof name !== "string") throw new InvalidArgumentError("session name must be a string");
  return { type: "session_info", name: name.trim() };
}

/**
 * A picker summary (whitespace collapsed, length clamped) anchored to a message.
 *
 * @example
 * ```ts
 * import { sessionSummaryBody } from "./_entry_bodies.ts";
 * sessionSummaryBody("Fixed   the build", "m1", undefined);
 * ```
 */
export function sessionSummaryBody(
  summary: string,
  summarizedThroughId: string,
  usage: { input?: number; output?: number } | undefined,
): Body {
  return {
    type: "session_summary",
    summary: normalizeSummary(summary),
    summarizedThroughId,
    ...(usage === undefined ? {} : { usage }),
  };
}

/**
 * A label change: a blank or absent label clears the target's label.
 *
 * @example
 * ```ts
 * import { labelBody } from "./_entry_bodies.ts";
 * "label" in labelBody("m1", "  "); // false: clears
 * ```
 */
export function labelBody(targetId: string, label: string | undefined): Body {
  const trimmed = label?.trim();
  return trimmed ? { type: "label", targetId, label: trimmed } : { type: "label", targetId };
}

/**
 * A context edit of `target`, refused unless it is a user, assistant, tool-result or
 * custom-message entry (system messages are never edited).
 *
 * @example
 * ```ts
 * import { contextEditBody } from "./_entry_bodies.ts";
 * const target = { type: "message" as const, id: "u1", parentId: null, timestamp: "2026-01-01T00:00:00.000Z", message: { role: "user" as const, content: "hi", timestamp: 1 } };
 * contextEditBody(target, null).replacement; // null: omitted from model context
 * ```
 */
export function contextEditBody(
  target: SessionEntry,
  replacement: { content: string | unknown[] } | null,
): EntryBody<ContextEditEntry> {
  const editable = target.type === "custom_message" ||
    (target.type === "message" &&
      ["user", "assistant", "toolResult", "custom"].includes(target.message.role));
  if (!editable) {
    throw new InvalidArgumentError(
      `Entry ${target.id} (${target.type}) does not produce editable model context`,
    );
  }
  return { type: "context_edit", targetId: target.id, replacement } as EntryBody<ContextEditEntry>;
}

/**
 * A branch summary; `fromId` is the leaf left behind.
 *
 * @example
 * ```ts
 * import { branchSummaryBody } from "./_entry_bodies.ts";
 * branchSummaryBody("m3", "tried the other approach", undefined, undefined).fromId; // "m3"
 * ```
 */
export function branchSummaryBody(
  fromId: string | null,
  summary: string,
  details: unknown,
  fromHook: boolean | undefined,
): EntryBody<BranchSummaryEntry> {
  const optional = {
    ...(details === undefined ? {} : { details }),
    ...(fromHook === undefined ? {} : { fromHook }),
  };
  return { type: "branch_summary", fromId, summary, ...optional };
}
