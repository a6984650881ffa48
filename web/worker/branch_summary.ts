/**
 * The summary shown above a branch's conversation (the viewer's tab and the HTML export):
 * when it ran, which models answered, how many messages of each role, how many tool
 * calls, and the branch's tokens and cost (the library's usage rule, as the Usage tab).
 *
 * @module
 */
import type { SessionEntry } from "../../src/schema.ts";
import type { UsageTotals } from "../types.ts";
import { add, emptyTotals, usageOf } from "./usage.ts";

/** What the summary block shows of one branch. */
export interface BranchSummaryView {
  /** ISO timestamps of the branch's first and last entries ("" when empty). */
  first: string;
  last: string;
  /** `provider/model` of the replies, in the order first seen. */
  models: string[];
  /** Messages per role (`user`, `assistant`, `toolResult`, `bashExecution`, ...). */
  roles: Record<string, number>;
  /** Tool calls the assistant made on the branch. */
  toolCalls: number;
  /** Tokens and cost of the branch's billed steps. */
  usage: UsageTotals;
}

type Json = Record<string, unknown>;

/**
 * Summarise the entries of one branch, root first.
 *
 * @example
 * ```ts
 * import { branchSummary } from "./branch_summary.ts";
 * branchSummary([]); // { first: "", last: "", models: [], roles: {}, toolCalls: 0, usage: {...} }
 * ```
 */
export function branchSummary(path: readonly SessionEntry[]): BranchSummaryView {
  const roles: Record<string, number> = {};
  const models: string[] = [];
  let toolCalls = 0;
  const usage = emptyTotals();
  for (const entry of path) {
    const billed = usageOf(entry);
    if (billed) add(usage, billed);
    if (entry.type !== "message") continue;
    const message = entry.message as unknown as Json;
    const role = typeof message.role === "string" ? message.role : "message";
    roles[role] = (roles[role] ?? 0) + 1;
    if (role !== "assistant") continue;
    const model = [message.provider, message.model].filter((v) => typeof v === "string")
      .join("/");
    if (model && !models.includes(model)) models.push(model);
    if (Array.isArray(message.content)) {
      for (const block of message.content as Json[]) {
        if (block && typeof block === "object" && block.type === "toolCall") toolCalls++;
      }
    }
  }
  return {
    first: String(path[0]?.timestamp ?? ""),
    last: String(path.at(-1)?.timestamp ?? ""),
    models,
    roles,
    toolCalls,
    usage,
  };
}
