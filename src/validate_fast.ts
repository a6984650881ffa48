/**
 * A structural fast path for entry validation. It proves the common entry shapes valid by
 * hand and answers "not sure" for anything else, so zod still decides (and words the
 * error). Its one rule: it may only say "valid" for values the zod schemas in `schema.ts`
 * accept; `tests/unit/validate.test.ts` checks that over every fixture and thousands of
 * mutants of them.
 *
 * Why: zod builds a full output copy of every entry it parses, which is thrown away (the
 * original object is kept for key order and unknown fields). On a 100k-entry session that
 * was 0.35-0.4x the floor of read + `JSON.parse` (bench/README.md, finding 1).
 *
 * @module
 */

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): v is string => typeof v === "string";
// zod 4's z.number() rejects NaN and the infinities, which entries built in code can carry.
const num = (v: unknown) => typeof v === "number" && Number.isFinite(v);
const optStr = (v: unknown) => v === undefined || typeof v === "string";
const optNum = (v: unknown) => v === undefined || num(v);
const optBool = (v: unknown) => v === undefined || typeof v === "boolean";
const optNullableStr = (v: unknown) => v === undefined || v === null || typeof v === "string";

function usage(v: unknown): boolean {
  if (v === undefined) return true;
  if (!isObj(v) || !num(v.input) || !num(v.output)) return false;
  if (!optNum(v.cacheRead) || !optNum(v.cacheWrite) || !optNum(v.totalTokens)) return false;
  const cost = v.cost;
  if (cost === undefined) return true;
  return isObj(cost) && optNum(cost.input) && optNum(cost.output) && optNum(cost.cacheRead) &&
    optNum(cost.cacheWrite) && optNum(cost.total);
}

function userBlock(b: unknown): boolean {
  if (!isObj(b)) return false;
  if (b.type === "text") return str(b.text);
  if (b.type === "image") return str(b.data) && str(b.mimeType);
  return false;
}

function assistantBlock(b: unknown): boolean {
  if (!isObj(b)) return false;
  switch (b.type) {
    case "text":
      return str(b.text);
    case "thinking":
      return str(b.thinking);
    case "toolCall":
      return str(b.id) && str(b.name) && isObj(b.arguments) &&
        Object.getPrototypeOf(b.arguments) === Object.prototype;
    default:
      return false;
  }
}

function every(list: unknown, check: (item: unknown) => boolean): boolean {
  if (!Array.isArray(list)) return false;
  for (let i = 0; i < list.length; i++) if (!check(list[i])) return false;
  return true;
}

const userContent = (c: unknown) => typeof c === "string" || every(c, userBlock);

function message(m: unknown): boolean {
  if (!isObj(m) || !optNum(m.timestamp)) return false;
  switch (m.role) {
    case "user":
      return userContent(m.content);
    case "assistant":
      return every(m.content, assistantBlock) && optStr(m.api) && optStr(m.provider) &&
        optStr(m.model) && usage(m.usage) && optStr(m.stopReason) && optStr(m.errorMessage);
    case "toolResult":
      return str(m.toolCallId) && optStr(m.toolName) && every(m.content, userBlock) &&
        usage(m.usage) && m.nestedCalls === undefined && optBool(m.isError);
    case "custom":
      return str(m.customType) && userContent(m.content) && optBool(m.display);
    case "branchSummary":
      return str(m.summary) && optNullableStr(m.fromId);
    default:
      return false; // system, bashExecution, compactionSummary, unknown roles: zod decides
  }
}

/**
 * `true`: the value is certainly a valid entry of a known type. `false`: not sure; ask the
 * zod schema (which also explains what is wrong).
 *
 * @example
 * ```ts
 * import { isCertainlyValidEntry } from "./validate_fast.ts";
 * isCertainlyValidEntry({ type: "label", id: "a", parentId: null, timestamp: "t", targetId: "b" }); // true
 * isCertainlyValidEntry({ type: "label", id: "a" }); // false: let zod decide
 * ```
 */
export function isCertainlyValidEntry(e: unknown): boolean {
  if (!isObj(e)) return false;
  if (!str(e.id) || e.id.length === 0 || !str(e.timestamp)) return false;
  if (e.parentId !== null && !str(e.parentId)) return false;
  switch (e.type) {
    case "message":
      return message(e.message);
    case "model_change":
      return str(e.provider) && str(e.modelId);
    case "thinking_level_change":
      return str(e.thinkingLevel);
    case "context_window_change":
      return num(e.contextWindow);
    case "compaction":
      return str(e.summary) && optNullableStr(e.firstKeptEntryId) && optNum(e.tokensBefore) &&
        e.systemMessage === undefined && usage(e.usage) && optBool(e.fromHook);
    case "context_edit":
      return str(e.targetId) &&
        (e.replacement === null ||
          (isObj(e.replacement) &&
            (str(e.replacement.content) ||
              every(e.replacement.content, (b) => userBlock(b) || assistantBlock(b)))));
    case "branch_summary":
      return str(e.summary) && optNullableStr(e.fromId) && optBool(e.fromHook) && usage(e.usage);
    case "custom":
      return str(e.customType);
    case "custom_message":
      return str(e.customType) && userContent(e.content) && optBool(e.display) &&
        optBool(e.excludeFromContext);
    case "label":
      return str(e.targetId) && optStr(e.label);
    case "session_info":
      return optStr(e.name);
    case "session_summary":
      return str(e.summary) && str(e.summarizedThroughId) &&
        (e.usage === undefined ||
          (isObj(e.usage) && optNum(e.usage.input) && optNum(e.usage.output)));
    default:
      return false; // usage, context_compaction, unknown types: zod decides
  }
}
