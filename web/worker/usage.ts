/**
 * Usage and cost for the viewer: totals over the whole session (every branch was billed)
 * and over the active branch, plus one bar per billed step on the branch (bucketed when
 * there are more than the chart can show).
 *
 * @module
 */
import type { SessionEntry } from "../../src/schema.ts";
import { addUsage, emptyUsageTotals, entryUsage } from "../../src/usage.ts";
import type { UsageBar, UsageTotals, UsageView } from "../types.ts";

/** Most bars sent to the page; longer branches are summed into buckets. */
export const MAX_BARS = 240;

type Json = Record<string, unknown>;

/** Zeroed totals. */
export function emptyTotals(): UsageTotals {
  return { ...emptyUsageTotals(), calls: 0 };
}

/** The usage record an entry carries (the library's rule: what counts toward totals). */
export const usageOf = entryUsage;

/** Add one billed step to `totals`. */
export function add(
  totals: UsageTotals,
  usage: NonNullable<ReturnType<typeof entryUsage>>,
): void {
  addUsage(totals, usage);
  totals.calls++;
}

function modelOf(entry: SessionEntry): string {
  const e = entry as unknown as Json;
  const source = entry.type === "message" ? e.message as Json : e;
  const provider = typeof source.provider === "string" ? source.provider : "";
  const model = typeof source.model === "string" ? source.model : "";
  if (provider || model) return [provider, model].filter(Boolean).join("/");
  return entry.type === "message" ? "(unknown model)" : `(${entry.type})`;
}

/** Usage of all `entries` and of the branch `path`. */
export function computeUsage(
  entries: readonly SessionEntry[],
  path: readonly SessionEntry[],
): UsageView {
  const session = emptyTotals();
  const byModel = new Map<string, UsageTotals>();
  for (const entry of entries) {
    const usage = usageOf(entry);
    if (!usage) continue;
    add(session, usage);
    const key = modelOf(entry);
    let totals = byModel.get(key);
    if (!totals) byModel.set(key, totals = emptyTotals());
    add(totals, usage);
  }
  const branch = emptyTotals();
  const steps: UsageBar[] = [];
  for (const entry of path) {
    const usage = usageOf(entry);
    if (!usage) continue;
    add(branch, usage);
    const { input, output, cacheRead, cacheWrite, cost } = addUsage(emptyUsageTotals(), usage);
    steps.push({
      turn: steps.length + 1,
      turns: 1,
      input,
      output,
      cacheRead,
      cacheWrite,
      cost,
      entryId: entry.id,
    });
  }
  return {
    session,
    branch,
    bars: bucket(steps, MAX_BARS),
    byModel: [...byModel].map(([model, totals]) => ({ model, totals }))
      .sort((a, b) => b.totals.cost - a.totals.cost || b.totals.totalTokens - a.totals.totalTokens),
  };
}

/** Sum consecutive bars so at most `max` remain. */
export function bucket(bars: UsageBar[], max: number): UsageBar[] {
  if (bars.length <= max) return bars;
  const size = Math.ceil(bars.length / max);
  const out: UsageBar[] = [];
  for (let i = 0; i < bars.length; i += size) {
    const group = bars.slice(i, i + size);
    const sum = { ...group[0], turns: group.length };
    for (const bar of group.slice(1)) {
      sum.input += bar.input;
      sum.output += bar.output;
      sum.cacheRead += bar.cacheRead;
      sum.cacheWrite += bar.cacheWrite;
      sum.cost += bar.cost;
    }
    out.push(sum);
  }
  return out;
}
