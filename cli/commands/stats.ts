/**
 * `mu stats [--cwd DIR] [--all]`: sessions, entries, bytes, tokens and cost, in total and
 * by model and by month.
 *
 * @module
 */
import type { Command } from "../args.ts";
import { resolvePath } from "../context.ts";
import { addUsage, emptyUsageTotals, entryUsage, type UsageTotals } from "../../src/usage.ts";
import { exportSessionJsonl } from "../../src/store.ts";
import { byteSize, count, table } from "../format.ts";
import { openStore } from "../target.ts";
import { canonicalDir } from "../../stores/default/trust.ts";

interface Bucket extends UsageTotals {
  sessions: Set<string>;
  entries: number;
}

const bucket = (): Bucket => ({ ...emptyUsageTotals(), sessions: new Set(), entries: 0 });

function row(name: string, b: Bucket): string[] {
  return [name, count(b.sessions.size), count(b.entries), count(b.totalTokens), dollars(b.cost)];
}

/** Cost in dollars to the cent, as people read it. */
const dollars = (cost: number) => `$${cost.toFixed(2)}`;

/** Cost for JSON: summed floats carry noise (72.92610520000002); micro-dollars are plenty. */
const roundedCost = <T extends { cost: number }>(value: T): T => ({
  ...value,
  cost: Math.round(value.cost * 1e6) / 1e6,
});

export const stats: Command = {
  name: "stats",
  summary: "Totals of sessions, entries, bytes, tokens and cost, by model and by month.",
  operands: "",
  arity: [0, 0],
  flags: {
    cwd: { type: "string", value: "DIR", help: "only sessions of DIR" },
    internal: { type: "boolean", help: "include workflow (internal) sessions" },
  },
  async run(invocation, cli) {
    const store = await openStore(invocation, cli);
    try {
      const cwd = invocation.flags.cwd === undefined
        ? undefined
        : await canonicalDir(resolvePath(cli, invocation.flags.cwd as string));
      const sessions = await store.list({
        cwd,
        includeInternal: invocation.flags.internal === true,
      });
      const total = bucket();
      const byModel = new Map<string, Bucket>();
      const byMonth = new Map<string, Bucket>();
      let bytes = 0;
      for (const info of sessions) {
        bytes += new TextEncoder().encode(await exportSessionJsonl(store, info.id)).length;
        const { entries } = await store.load(info.id);
        total.sessions.add(info.id);
        total.entries += entries.length;
        for (const entry of entries) {
          const usage = entryUsage(entry);
          addUsage(total, usage);
          const message = entry.type === "message"
            ? entry.message as { provider?: string; model?: string }
            : undefined;
          const model = message?.model ? `${message.provider ?? "?"}/${message.model}` : undefined;
          const month = entry.timestamp.slice(0, 7);
          for (const [map, key] of [[byModel, model], [byMonth, month]] as const) {
            if (key === undefined || (!usage && map === byModel)) continue;
            const b = map.get(key) ?? map.set(key, bucket()).get(key)!;
            b.sessions.add(info.id);
            b.entries++;
            addUsage(b, usage);
          }
        }
      }
      const plain = (m: Map<string, Bucket>) =>
        Object.fromEntries(
          [...m].map(([k, b]) => [k, roundedCost({ ...b, sessions: b.sessions.size })]),
        );
      if (invocation.json) {
        cli.out(
          JSON.stringify(
            {
              sessions: sessions.length,
              entries: total.entries,
              bytes,
              usage: roundedCost({ ...total, sessions: undefined }),
              byModel: plain(byModel),
              byMonth: plain(byMonth),
            },
            null,
            2,
          ) + "\n",
        );
        return 0;
      }
      cli.out(
        `${count(sessions.length)} sessions  ${count(total.entries)} entries  ${byteSize(bytes)}  ${
          count(total.totalTokens)
        } tokens  ${dollars(total.cost)}\n\n`,
      );
      // By model counts the assistant turns that carry usage; by month counts every entry.
      const modelHead = ["", "sessions", "assistant turns", "tokens", "cost"];
      const monthHead = ["", "sessions", "entries", "tokens", "cost"];
      cli.out(
        "by model\n" + table([modelHead, ...[...byModel].sort().map(([k, b]) => row(k, b))]) +
          "\n",
      );
      cli.out(
        "by month\n" + table([monthHead, ...[...byMonth].sort().map(([k, b]) => row(k, b))]),
      );
      return 0;
    } finally {
      await store.close();
    }
  },
};
