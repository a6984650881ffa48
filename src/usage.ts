/**
 * Session usage totals: tokens and cost over every entry that records model work.
 *
 * @module
 */
import type { SessionEntry, Usage } from "./schema.ts";

/**
 * Summed token counts and cost.
 *
 * @example
 * ```ts
 * import { SessionManager, usageTotals, type UsageTotals } from "@mu/sessions";
 * const manager = SessionManager.inMemory("/project");
 * const totals: UsageTotals = usageTotals(manager.getEntries());
 * console.log(totals.totalTokens, totals.cost); // 0 0
 * ```
 */
export interface UsageTotals {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  cost: number;
}

/** Zeroed totals. */
export function emptyUsageTotals(): UsageTotals {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: 0 };
}

const num = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : 0);

/** Add one usage record to `totals` (mutates and returns it). */
export function addUsage(totals: UsageTotals, usage: Partial<Usage> | undefined): UsageTotals {
  if (!usage || typeof usage !== "object") return totals;
  totals.input += num(usage.input);
  totals.output += num(usage.output);
  totals.cacheRead += num(usage.cacheRead);
  totals.cacheWrite += num(usage.cacheWrite);
  totals.totalTokens += num(usage.totalTokens) ||
    num(usage.input) + num(usage.output) + num(usage.cacheRead) + num(usage.cacheWrite);
  totals.cost += num(usage.cost?.total);
  return totals;
}

/** The usage record an entry carries, if any (assistant and tool-result messages, usage entries, summaries). */
export function entryUsage(entry: SessionEntry): Partial<Usage> | undefined {
  switch (entry.type) {
    case "message": {
      const message = entry.message;
      if (message.role === "assistant" || message.role === "toolResult") return message.usage;
      return undefined;
    }
    case "usage":
    case "compaction":
    case "branch_summary":
    case "session_summary":
      return entry.usage as Partial<Usage> | undefined;
    default:
      return undefined;
  }
}

/**
 * Usage totals over entries: assistant replies, tool results' own usage, `usage` entries
 * and generated summaries. Every branch counts: abandoned work was still billed.
 *
 * @example
 * ```ts
 * import { usageTotals } from "@mu/sessions";
 * usageTotals([]).totalTokens; // 0
 * ```
 */
export function usageTotals(entries: Iterable<SessionEntry>): UsageTotals {
  const totals = emptyUsageTotals();
  for (const entry of entries) addUsage(totals, entryUsage(entry));
  return totals;
}
