/**
 * The incremental push of 100 new entries across 10 sessions (JSONL -> PostgreSQL, the
 * 2,000-session folder), paired in one process: rounds alternate between the cursor as the
 * last run left it (new entries appended to the receiving copy the cursor shows held) and
 * the same cursor cut back to plain tokens (each changed session merged by reading both
 * sides), so both halves meet the same machine load. Not part of `deno task bench`; run by
 * hand (results: bench/results/sync-held-ab-<date>.json):
 *
 * ```sh
 * deno run -A bench/sync_held_ab.ts [--rounds 20]
 * ```
 */
import { parseArgs } from "node:util";
import { type SyncReport, syncStores } from "../sync.ts";
import { openJsonlFsStore } from "../stores/jsonl/fs.ts";
import { openPostgresStore } from "../stores/postgres/store.ts";
import { startCluster } from "../tests/postgres/cluster.ts";
import { ensureFolder } from "./generate.ts";
import { appendTenEach } from "./_sync_new_entries.ts";

const { values } = parseArgs({ args: Deno.args, options: { rounds: { type: "string" } } });
const rounds = Number(values.rounds ?? 20);
const folder = await ensureFolder(2_000);
const cluster = await startCluster();
const work = await Deno.makeTempDir({ prefix: "mu-bench-held-" });
const times = { held: [] as number[], plain: [] as number[] };
try {
  for await (const item of Deno.readDir(folder.dir)) {
    if (item.isFile && item.name.endsWith(".jsonl")) {
      await Deno.copyFile(`${folder.dir}/${item.name}`, `${work}/${item.name}`);
    }
  }
  const source = await openJsonlFsStore(work);
  const target = await openPostgresStore({ url: cluster.url, schema: "held" });
  try {
    let cursor: SyncReport["cursor"] = (await syncStores(source, target)).cursor;
    const sessions = (await source.list()).slice(0, 10);
    // Round 0 follows the creates (which kept no record before 2026-12-03); then pairs.
    for (let round = 0; round <= 2 * rounds; round++) {
      await appendTenEach(source, sessions.map(({ id }) => id), round, "held");
      const plain = round % 2 === 1;
      const push = plain
        ? Object.fromEntries(Object.entries(cursor.push).map(([k, v]) => [k, v.split("\n")[0]]))
        : cursor.push;
      const start = performance.now();
      const report = await syncStores(source, target, { cursor: { ...cursor, push } });
      const ms = performance.now() - start;
      if (report.entriesCopied !== 100) throw new Error(`copied ${report.entriesCopied}`);
      cursor = report.cursor;
      if (round > 0) times[plain ? "plain" : "held"].push(Math.round(ms));
    }
  } finally {
    await target.close();
    await source.close();
  }
} finally {
  await cluster.stop();
  await Deno.remove(work, { recursive: true });
}
const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const result = {
  date: new Date().toISOString(),
  load: (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(" "),
  heldMedianMs: median(times.held),
  plainMedianMs: median(times.plain),
  ...times,
};
console.log(JSON.stringify(result));
await Deno.writeTextFile(
  new URL(`./results/sync-held-ab-${result.date.slice(0, 10)}.json`, import.meta.url),
  JSON.stringify(result, null, 2) + "\n",
);
