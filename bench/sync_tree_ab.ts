/**
 * The incremental push of 100 new entries across 10 sessions (JSONL -> PostgreSQL, the
 * 2,000-session folder), this tree against another checkout of the package (`--base`, e.g.
 * a `git archive` of main with `node_modules` linked), paired in one process: each tree
 * syncs its own copy of the folder into its own schema, and rounds alternate which tree goes
 * first, so both meet the same machine load. The times include the listing cache file saved
 * after the appends. Not part of `deno task bench`; run by hand (results:
 * bench/results/sync-tree-ab-<date>.json):
 *
 * ```sh
 * git archive main | tar -x -C /tmp/base && ln -s "$PWD/node_modules" /tmp/base/
 * deno run -A bench/sync_tree_ab.ts --base /tmp/base [--rounds 15]
 * ```
 *
 * `--first`: instead, the folder's first push into a fresh schema, tree and base in turn
 * (results: bench/results/sync-tree-ab-first-<date>.json).
 */
import { parseArgs } from "node:util";
import { startCluster } from "../tests/postgres/cluster.ts";
import { ensureFolder } from "./generate.ts";
import { appendTenEach } from "./_sync_new_entries.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    base: { type: "string" },
    rounds: { type: "string" },
    first: { type: "boolean", default: false },
  },
});
if (!values.base) throw new Error("--base <checkout of the package to compare with>");
const rounds = Number(values.rounds ?? 15);
const roots = {
  base: `${values.base.replace(/\/$/, "")}/`,
  tree: new URL("../", import.meta.url).href,
};

/** One tree's side: its own modules, folder copy, stores and cursor. */
async function side(name: "base" | "tree", dir: string, url: string) {
  const root = roots[name].startsWith("file:") ? roots[name] : `file://${roots[name]}`;
  const { syncStores } = await import(`${root}sync.ts`);
  const { openJsonlFsStore } = await import(`${root}stores/jsonl/fs.ts`);
  const { openPostgresStore } = await import(`${root}stores/postgres/store.ts`);
  const source = await openJsonlFsStore(dir);
  let target = await openPostgresStore({ url, schema: name });
  let cursor = values.first ? undefined : (await syncStores(source, target)).cursor;
  let pushes = 0;
  return {
    source,
    /** A first push into a fresh schema. */
    async first(): Promise<number> {
      await target.close();
      target = await openPostgresStore({ url, schema: `${name}_${++pushes}` });
      const start = performance.now();
      const report = await syncStores(source, target);
      const ms = performance.now() - start;
      if (report.sessionsCreated !== 2_000) throw new Error(`${name} created too few`);
      return Math.round(ms);
    },
    async push(): Promise<number> {
      const start = performance.now();
      const report = await syncStores(source, target, { cursor });
      const ms = performance.now() - start;
      if (report.entriesCopied !== 100) throw new Error(`${name} copied ${report.entriesCopied}`);
      cursor = report.cursor;
      return Math.round(ms);
    },
    async close() {
      await target.close();
      await source.close();
    },
  };
}

const folder = await ensureFolder(2_000);
const cluster = await startCluster();
const work = await Deno.makeTempDir({ prefix: "mu-bench-tree-ab-" });
const times = { base: [] as number[], tree: [] as number[] };
try {
  const sides = [];
  for (const name of ["base", "tree"] as const) {
    const dir = `${work}/${name}`;
    await Deno.mkdir(dir);
    for await (const item of Deno.readDir(folder.dir)) {
      if (item.isFile && item.name.endsWith(".jsonl")) {
        await Deno.copyFile(`${folder.dir}/${item.name}`, `${dir}/${item.name}`);
      }
    }
    sides.push(await side(name, dir, cluster.url));
  }
  const [base, tree] = sides;
  for (let round = 0; values.first && round < rounds; round++) {
    const order = round % 2 === 0 ? [base, tree] : [tree, base];
    for (const s of order) times[s === base ? "base" : "tree"].push(await s.first());
  }
  const ids = (await tree.source.list()).slice(0, 10).map(({ id }: { id: string }) => id);
  try {
    // Round 0 only warms both up (in base, a session's first push after its create merges).
    for (let round = 0; !values.first && round <= rounds; round++) {
      for (const s of sides) await appendTenEach(s.source, ids, round, "ab");
      const order = round % 2 === 0 ? [base, tree] : [tree, base];
      const ms = [];
      for (const s of order) ms.push(await s.push());
      if (round === 0) continue;
      const [first, second] = ms;
      times.base.push(order[0] === base ? first : second);
      times.tree.push(order[0] === tree ? first : second);
    }
  } finally {
    for (const s of sides) await s.close();
  }
} finally {
  await cluster.stop();
  await Deno.remove(work, { recursive: true });
}
const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const ratios = times.tree.map((ms, i) => ms / times.base[i]);
const result = {
  date: new Date().toISOString(),
  load: (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(" "),
  baseMedianMs: median(times.base),
  treeMedianMs: median(times.tree),
  pairedRatioMedian: Number(median(ratios).toFixed(2)),
  ...times,
};
console.log(JSON.stringify(result));
await Deno.writeTextFile(
  new URL(
    `./results/sync-tree-ab-${values.first ? "first-" : ""}${result.date.slice(0, 10)}.json`,
    import.meta.url,
  ),
  JSON.stringify(result, null, 2) + "\n",
);
