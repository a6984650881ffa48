/**
 * Derived-context repair of tool-call pairing (format-4 spec, "Message Types": interrupted
 * tool calls, orphaned and duplicate results). Stored entries are never changed: this only
 * decides, message by message, what the derived context keeps and what it adds.
 *
 * Rules, applied in one pass (O(messages)):
 * - An assistant message's calls may be answered by their real results whatever its
 *   `stopReason`, but for `"error"` and `"aborted"`: provider pipelines (pi's and Atomic's)
 *   skip those incomplete turns (providers reject them when replayed), so a result
 *   answering one of their calls would reach the provider with no matching call: it is
 *   dropped as `"incomplete-turn"`. pi's agent loop runs the calls of `"stop"`/`"length"`
 *   turns too (OpenAI-compatible servers report `finish_reason` "stop" or "length" with tool
 *   calls; Anthropic's `max_tokens`), and pi's context and Atomic's repair keep their results.
 *   Only a `"toolUse"` turn's unanswered calls get synthetic results. This way every kept
 *   result answers a call of an earlier complete turn, the invariant the test suite checks
 *   over every fixture.
 * - Every assistant message (whatever its `stopReason`) closes the open group and opens a
 *   *group* of its answerable tool calls. The group stays open until the next assistant
 *   message, a compaction boundary, or the end of the context, so a real result that
 *   arrives after an interleaved user/custom message is still kept.
 * - When a `toolUse` group closes, every call without a result gets a synthetic error result,
 *   inserted right after the group's last kept result (or right after the assistant when it
 *   has none), timestamped with the assistant message.
 * - A result whose call id no earlier assistant announced is an *orphan*; a second result
 *   for one call id (including a real result arriving after the group closed and was
 *   answered synthetically) is a *duplicate*. Both are dropped.
 * - Calls of hidden assistants (before a boundary's kept tail) are known but never answered
 *   synthetically: their results inside the kept tail are kept, not dropped.
 *
 * @module
 */
import type { AssistantMessage, ToolCall, ToolResultMessage } from "./schema.ts";

/**
 * Text of the synthetic result for a tool call whose result was never recorded. It says
 * the result is unavailable and never claims the tool had no side effects.
 *
 * @example
 * ```ts
 * import { INTERRUPTED_TOOL_RESULT_TEXT } from "./_context_repair.ts";
 * INTERRUPTED_TOOL_RESULT_TEXT.includes("interrupted"); // true
 * ```
 */
export const INTERRUPTED_TOOL_RESULT_TEXT =
  "Tool execution was interrupted and its result is unavailable. The tool may have started " +
  "before the interruption, so its side effects are unknown.";

/**
 * Text of the synthetic result for a tool call whose only result a `context_edit` omitted
 * (a provider still needs one result per call).
 *
 * @example
 * ```ts
 * import { OMITTED_TOOL_RESULT_TEXT } from "./_context_repair.ts";
 * OMITTED_TOOL_RESULT_TEXT.startsWith("The result"); // true
 * ```
 */
export const OMITTED_TOOL_RESULT_TEXT =
  "The result of this tool call was removed from the context and is unavailable here.";

/**
 * What happens to one tool result: kept, or dropped as an orphan, a duplicate, or a result
 * answering a call of an incomplete (`"error"`/`"aborted"`) turn.
 */
export type ToolResultVerdict = "keep" | "orphan" | "duplicate" | "incomplete-turn";

/** Stop reasons of turns the provider pipelines skip: their calls are never answerable. */
const INCOMPLETE_TURN = new Set<string | undefined>(["error", "aborted"]);

/**
 * Whether an assistant message is a turn provider pipelines skip (`"error"`, `"aborted"`):
 * no result may answer its calls.
 *
 * @example
 * ```ts
 * import { isIncompleteTurn } from "./_context_repair.ts";
 * isIncompleteTurn({ stopReason: "aborted" }); // true
 * isIncompleteTurn({ stopReason: "stop" }); // false
 * ```
 */
export function isIncompleteTurn(message: Pick<AssistantMessage, "stopReason">): boolean {
  return INCOMPLETE_TURN.has(message.stopReason);
}

/** Synthetic results for the unanswered calls of one closed group. */
export interface UnansweredToolCalls<T> {
  /** The owner passed with the assistant message (its projected entry). */
  owner: T;
  /** Insert the results right after this owner: the last kept result, or the assistant. */
  anchor: T;
  results: ToolResultMessage[];
}

interface OpenGroup<T> {
  owner: T;
  anchor: T;
  calls: ToolCall[];
  ids: Set<string>;
  synthesize: boolean;
  timestamp: number;
}

/**
 * The tool calls of an assistant message, in content order.
 *
 * @example
 * ```ts
 * import { toolCallsOf } from "./_context_repair.ts";
 * toolCallsOf({ content: [{ type: "toolCall", id: "c1", name: "ls", arguments: {} }] }).length; // 1
 * ```
 */
export function toolCallsOf(message: Pick<AssistantMessage, "content">): ToolCall[] {
  const calls: ToolCall[] = [];
  if (!Array.isArray(message.content)) return calls;
  for (const block of message.content) {
    if (block && block.type === "toolCall" && typeof block.id === "string") calls.push(block);
  }
  return calls;
}

/**
 * Pairs tool calls with results while messages are fed in context order. `T` is whatever
 * the caller uses to locate a message (the projection passes its projected entries).
 *
 * @example
 * ```ts
 * import { ToolCallPairing } from "./_context_repair.ts";
 * const pairing = new ToolCallPairing<string>();
 * const ls = { type: "toolCall" as const, id: "c1", name: "ls", arguments: {} };
 * pairing.assistant({ content: [ls], stopReason: "toolUse" }, "a1", true, 0);
 * pairing.result({ toolCallId: "zz" }, "r1"); // "orphan": no call announced it
 * pairing.close()?.results[0].isError; // true: c1 was never answered
 * ```
 */
export class ToolCallPairing<T> {
  readonly #known = new Set<string>();
  readonly #answered = new Set<string>();
  readonly #omitted = new Set<string>();
  /** Call ids announced by a non-`toolUse` message, with the verdict a result for them gets. */
  readonly #unanswerable = new Map<string, ToolResultVerdict>();
  #group: OpenGroup<T> | undefined;

  /**
   * Feed an assistant message. Closes the open group (returning its repair, if any) and
   * opens a group for this message's calls, unless it is an incomplete (`"error"` /
   * `"aborted"`) turn, whose calls are unanswerable. Only a `"toolUse"` group gets synthetic
   * results. `synthesize: false` for hidden messages.
   */
  assistant(
    message: Pick<AssistantMessage, "content" | "stopReason">,
    owner: T,
    synthesize: boolean,
    timestamp: number,
  ): UnansweredToolCalls<T> | undefined {
    const closed = this.close();
    const calls = toolCallsOf(message);
    if (calls.length === 0) return closed;
    if (isIncompleteTurn(message)) {
      for (const call of calls) {
        this.#known.delete(call.id);
        this.#unanswerable.set(call.id, "incomplete-turn");
      }
      return closed;
    }
    // A stop/length turn's calls ran too, but nothing is invented for those that did not.
    if (message.stopReason !== "toolUse") synthesize = false;
    const ids = new Set<string>();
    for (const call of calls) {
      ids.add(call.id);
      this.#known.add(call.id);
      this.#unanswerable.delete(call.id);
      // A re-announced id may be answered again.
      this.#answered.delete(call.id);
      this.#omitted.delete(call.id);
    }
    this.#group = { owner, anchor: owner, calls, ids, synthesize, timestamp };
    return closed;
  }

  /** Feed a tool result; the verdict says whether the derived context keeps it. */
  result(message: Pick<ToolResultMessage, "toolCallId">, owner: T): ToolResultVerdict {
    const id = message.toolCallId;
    if (this.#answered.has(id)) return "duplicate";
    if (!this.#known.has(id)) return this.#unanswerable.get(id) ?? "orphan";
    this.#answered.add(id);
    if (this.#group?.ids.has(id)) this.#group.anchor = owner;
    return "keep";
  }

  /** A `context_edit` omitted a result: its call stays unanswered, with a different text. */
  omittedResult(toolCallId: string): void {
    if (this.#known.has(toolCallId) && !this.#answered.has(toolCallId)) {
      this.#omitted.add(toolCallId);
    }
  }

  /** Close the open group: synthetic results for its unanswered calls (if it synthesizes). */
  close(): UnansweredToolCalls<T> | undefined {
    const group = this.#group;
    this.#group = undefined;
    if (!group) return undefined;
    const results: ToolResultMessage[] = [];
    for (const call of group.calls) {
      if (this.#answered.has(call.id)) continue;
      if (!group.synthesize) {
        // A hidden call no longer in reach: a later result for it is an orphan.
        this.#known.delete(call.id);
        continue;
      }
      this.#answered.add(call.id);
      results.push({
        role: "toolResult",
        toolCallId: call.id,
        toolName: call.name,
        content: [{
          type: "text",
          text: this.#omitted.has(call.id)
            ? OMITTED_TOOL_RESULT_TEXT
            : INTERRUPTED_TOOL_RESULT_TEXT,
        }],
        isError: true,
        timestamp: group.timestamp,
      });
    }
    return results.length ? { owner: group.owner, anchor: group.anchor, results } : undefined;
  }

  /** Forget every call (a compaction boundary: earlier calls are text, not structure). */
  reset(): void {
    this.#group = undefined;
    this.#known.clear();
    this.#answered.clear();
    this.#omitted.clear();
    this.#unanswerable.clear();
  }
}
