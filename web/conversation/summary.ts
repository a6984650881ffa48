/**
 * The summary block above a conversation (viewer and HTML export): date range, models,
 * messages by role, tool calls, tokens and cost of the branch, as a compact fact list.
 *
 * @module
 */
import { el, factList, formatCost, formatCount, formatDate, formatTokens } from "../dom.ts";
import type { BranchSummaryView } from "../worker/branch_summary.ts";

const ROLE_NAMES: Record<string, string> = {
  user: "user",
  assistant: "assistant",
  toolResult: "tool results",
  bashExecution: "bash",
  custom: "custom",
  branchSummary: "branch summaries",
  compactionSummary: "compaction summaries",
};

function when(first: string, last: string): string {
  const from = formatDate(Date.parse(first));
  const to = formatDate(Date.parse(last));
  return from === to ? from : `${from} – ${to}`;
}

/**
 * The block for one branch's summary.
 *
 * @example
 * ```ts
 * import { summaryBlock } from "./summary.ts";
 * import type { BranchSummaryView } from "../worker/branch_summary.ts";
 * declare const summary: BranchSummaryView;
 * document.body.append(summaryBlock(summary));
 * ```
 */
export function summaryBlock(summary: BranchSummaryView): HTMLElement {
  const messages = Object.values(summary.roles).reduce((sum, n) => sum + n, 0);
  const byRole = Object.entries(summary.roles)
    .sort((a, b) => b[1] - a[1])
    .map(([role, n]) => `${formatCount(n)} ${ROLE_NAMES[role] ?? role}`)
    .join(", ");
  const { usage } = summary;
  const facts: Array<[string, string]> = [
    ["date", when(summary.first, summary.last)],
    ["models", summary.models.join(", ") || "—"],
    ["messages", messages ? `${formatCount(messages)} (${byRole})` : "0"],
    ["tool calls", formatCount(summary.toolCalls)],
    [
      "tokens",
      `${formatTokens(usage.input)} in, ${formatTokens(usage.output)} out` +
      (usage.cacheRead || usage.cacheWrite
        ? `, ${formatTokens(usage.cacheRead)} cache read, ${
          formatTokens(usage.cacheWrite)
        } cache write`
        : ""),
    ],
    ["cost", formatCost(usage.cost)],
  ];
  return el(
    "section",
    { class: "conv-summary", attrs: { id: "conv-summary", "aria-label": "Summary" } },
    factList(facts, "facts conv-summary-facts"),
  );
}
