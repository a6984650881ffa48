/**
 * `mu sync --watch` figures (issue 29's targets), against a throwaway cluster it starts
 * (tests/postgres/cluster.ts), with a real `mu sync --to postgres --watch` process over a
 * SQLite agent folder:
 *
 * - lag: one local append -> visible on the server (its change token moves), median and
 *   p95 over `--appends-lag` appends, one at a time;
 * - append cost: a block of `--appends-block` local appends (durable SQLite, one session)
 *   back to back, and a block of `--paced` appends `--gap-ms` apart (an agent's pace; only
 *   the appends are timed), each with the watcher running and without it, in ABBA order
 *   so drift on the shared machine hits both alike; the ratio of the medians.
 *
 * Not part of `deno task bench`; run it by hand, then copy the printed rows into
 * bench/README.md and the JSON it writes to bench/results/:
 *
 * ```sh
 * deno run -A bench/sync_watch.ts --appends-lag=40 --appends-block=200 --blocks=4
 * ```
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import type { SessionEntry, SessionStore } from "../core.ts";
import { openPostgresStore } from "../stores/postgres/store.ts";
import { openSqliteStore } from "../stores/sqlite/file.ts";
import { startCluster } from "../tests/postgres/cluster.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    "appends-lag": { type: "string", default: "40" },
    "appends-block": { type: "string", default: "200" },
    blocks: { type: "string", default: "4" },
    paced: { type: "string", default: "40" },
    "gap-ms": { type: "string", default: "50" },
    out: { type: "string" },
  },
});
const LAG_APPENDS = Number(values["appends-lag"]);
const BLOCK = Number(values["appends-block"]);
const BLOCKS = Number(values.blocks);
const PACED = Number(values.paced);
const GAP_MS = Number(values["gap-ms"]);
const root = new URL("../", import.meta.url).pathname;
const schema = "bench_watch";

let counter = 0;
const entry = (parentId: string | null): SessionEntry => {
  const n = counter++;
  return {
    type: "message",
    id: `e${n.toString(16).padStart(7, "0")}`,
    parentId,
    timestamp: new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString(),
    message: { role: "user", content: `append ${n} ${"lorem ipsum ".repeat(20)}`, timestamp: n },
  };
};

const header = (id: string) => ({
  type: "session" as const,
  version: 4 as const,
  id,
  createdAt: "2026-01-01T00:00:00.000Z",
  cwd: "/bench",
});

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const quantile = (values: number[], q: number) =>
  sorted(values)[Math.min(values.length - 1, Math.floor(values.length * q))];

/**
 * Appends `count` entries one at a time onto the session's last entry, `gapMs` apart (an
 * agent's pace) or back to back; returns the ms spent in the appends alone.
 */
async function appendBlock(
  store: SessionStore,
  id: string,
  tip: { id: string | null },
  count: number,
  gapMs = 0,
) {
  let spent = 0;
  for (let i = 0; i < count; i++) {
    const next = entry(tip.id);
    const start = performance.now();
    await store.append(id, [next]);
    spent += performance.now() - start;
    tip.id = next.id;
    if (gapMs) await new Promise((resolve) => setTimeout(resolve, gapMs));
  }
  return spent;
}

/** The blocks with and without the watcher, and the ratio of their medians. */
const costOf = (watched: number[], alone: number[]) => ({
  blocks: watched.length,
  withWatchMs: sorted(watched).map(Math.round),
  withoutMs: sorted(alone).map(Math.round),
  ratio: Number((quantile(watched, 0.5) / quantile(alone, 0.5)).toFixed(2)),
  target: "<= 1.10x",
});

const cluster = await startCluster();
const home = await Deno.makeTempDir({ prefix: "mu-bench-watch-" });
const agentDir = join(home, "agent");
await Deno.mkdir(agentDir, { recursive: true });
let watcher: Deno.ChildProcess | undefined;
const startWatcher = () =>
  new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", join(root, "cli/mu.ts"), "sync", "--to", "postgres", "--watch"],
    cwd: home,
    env: {
      PI_CODING_AGENT_DIR: agentDir,
      HOME: home,
      MU_SESSIONS_POSTGRES_URL: cluster.url,
      MU_SESSIONS_POSTGRES_SCHEMA: schema,
    },
    stdout: "null",
    stderr: "null",
  }).spawn();
const stopWatcher = async () => {
  watcher?.kill("SIGINT");
  await watcher?.status;
  watcher = undefined;
};
try {
  const local = await openSqliteStore(join(agentDir, "sessions.db"));
  const first = entry(null);
  await local.create(header("lag"), [first]);
  await local.create(header("cost"), [entry(null)]);
  const server = await openPostgresStore({ url: cluster.url, schema, max: 1 });
  watcher = startWatcher();
  while (!(await server.has("lag").catch(() => false))) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }

  // Lag: the server's token for the session moves once the append arrived.
  const lags: number[] = [];
  const tip = { id: first.id as string | null };
  for (let i = 0; i < LAG_APPENDS; i++) {
    const before = await server.changeToken("lag").catch(() => "");
    const start = performance.now();
    await appendBlock(local, "lag", tip, 1);
    while ((await server.changeToken("lag").catch(() => before)) === before) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    lags.push(performance.now() - start);
    await new Promise((resolve) => setTimeout(resolve, 50 + (i * 37) % 200)); // off the poll beat
  }

  // Append cost: alternate blocks with and without the watcher, back to back and paced.
  const costTip = { id: (await local.load("cost")).entries.at(-1)!.id as string | null };
  const watched: number[] = [];
  const alone: number[] = [];
  const pacedWatched: number[] = [];
  const pacedAlone: number[] = [];
  for (let b = 0; b < BLOCKS; b++) {
    // ABBA: with the watcher first in even blocks, last in odd ones, so neither side
    // always runs on the longer session or right after the watcher stopped.
    for (const watching of b % 2 === 0 ? [true, false] : [false, true]) {
      if (watching && !watcher) {
        watcher = startWatcher();
        await new Promise((resolve) => setTimeout(resolve, 1500)); // its start and first round
      }
      if (!watching) await stopWatcher();
      (watching ? watched : alone).push(await appendBlock(local, "cost", costTip, BLOCK));
      (watching ? pacedWatched : pacedAlone).push(
        await appendBlock(local, "cost", costTip, PACED, GAP_MS),
      );
    }
  }
  await stopWatcher();
  await server.close();
  await local.close();

  const result = {
    date: new Date().toISOString(),
    runtime: `deno ${Deno.version.deno}`,
    lag: {
      appends: LAG_APPENDS,
      medianMs: Math.round(quantile(lags, 0.5)),
      p95Ms: Math.round(quantile(lags, 0.95)),
      target: "<= 1000 ms median",
    },
    appendCost: { appendsPerBlock: BLOCK, ...costOf(watched, alone) },
    pacedAppendCost: { appendsPerBlock: PACED, gapMs: GAP_MS, ...costOf(pacedWatched, pacedAlone) },
  };
  console.log(JSON.stringify(result, null, 2));
  if (values.out) await Deno.writeTextFile(values.out, JSON.stringify(result, null, 2) + "\n");
} finally {
  await stopWatcher();
  await cluster.stop();
  await Deno.remove(home, { recursive: true });
}
