/**
 * PROTOTYPE (benchmark-only, not library code): a hand-written structural check that
 * proves the common entry shapes valid without zod, and answers "unsure" for everything
 * else so zod still decides (and words the error). Proposed for `validateEntry` in
 * `src/schema.ts`: call this first, fall back to the zod schema when it is not sure. It
 * mirrors the schemas there; it may only ever say "valid" for values zod accepts, which
 * `bench/proto/check_validate.ts` checks over the benchmark data and the fixtures.
 * @module
 */

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown) => typeof v === "string";
const optStr = (v: unknown) => v === undefined || typeof v === "string";
const optNum = (v: unknown) => v === undefined || typeof v === "number";
const optBool = (v: unknown) => v === undefined || typeof v === "boolean";

function usage(v: unknown): boolean {
  if (v === undefined) return true;
  if (!isObj(v) || typeof v.input !== "number" || typeof v.output !== "number") return false;
  if (!optNum(v.cacheRead) || !optNum(v.cacheWrite) || !optNum(v.totalTokens)) return false;
  const cost = v.cost;
  if (cost === undefined) return true;
  return isObj(cost) && optNum(cost.input) && optNum(cost.output) && optNum(cost.cacheRead) &&
    optNum(cost.cacheWrite) && optNum(cost.total);
}

/** Text or image block. */
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
      return str(m.summary) && (m.fromId === undefined || m.fromId === null || str(m.fromId));
    default:
      return false; // system, bashExecution, compactionSummary: rare, zod decides
  }
}

/** True: valid for sure. False: not sure (ask zod). */
export function fastValidEntry(e: unknown): boolean {
  if (!isObj(e)) return false;
  if (typeof e.id !== "string" || e.id.length === 0 || typeof e.timestamp !== "string") {
    return false;
  }
  if (e.parentId !== null && typeof e.parentId !== "string") return false;
  switch (e.type) {
    case "message":
      return message(e.message);
    case "model_change":
      return str(e.provider) && str(e.modelId);
    case "thinking_level_change":
      return str(e.thinkingLevel);
    case "context_window_change":
      return typeof e.contextWindow === "number";
    case "compaction":
      return str(e.summary) &&
        (e.firstKeptEntryId === undefined || e.firstKeptEntryId === null ||
          str(e.firstKeptEntryId)) &&
        optNum(e.tokensBefore) && e.systemMessage === undefined && usage(e.usage) &&
        optBool(e.fromHook);
    case "context_edit":
      return str(e.targetId) &&
        (e.replacement === null ||
          (isObj(e.replacement) &&
            (typeof e.replacement.content === "string" ||
              every(e.replacement.content, (b) => userBlock(b) || assistantBlock(b)))));
    case "branch_summary":
      return str(e.summary) && (e.fromId === undefined || e.fromId === null || str(e.fromId)) &&
        optBool(e.fromHook) && usage(e.usage);
    case "custom":
      return str(e.customType);
    case "custom_message":
      return str(e.customType) && userContent(e.content) && optBool(e.display);
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
