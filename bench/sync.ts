/**
 * `syncStores` into PostgreSQL: first pushes of the benchmark's 2,000-session folder and of
 * its 100k-entry session (MB/s of JSONL; the long push runs in a child process so its peak
 * RSS is its own), and incremental runs with the cursor over the 2,000 sessions, with
 * nothing new and after 100 new entries across 10 sessions. Data from the bench generator
 * (`bench/generate.ts`); a throwaway cluster (tests/postgres/cluster.ts). Not part of
 * `deno task bench`; run it by hand (results: bench/results/sync.json):
 *
 * ```sh
 * deno run -A bench/sync.ts            # --smoke: 200 sessions and a 10k-entry session
 * deno run -A bench/sync.ts --incremental  # the incremental rows only (no long push)
 * ```
 */
import { parseArgs } from "node:util";
import type { SessionStore } from "../core.ts";
import { type SyncReport, syncStores } from "../sync.ts";
import { openJsonlFsStore } from "../stores/jsonl/fs.ts";
import { openPostgresStore } from "../stores/postgres/store.ts";
import { startCluster } from "../tests/postgres/cluster.ts";
import { ensureFolder, ensureSession } from "./generate.ts";
import { appendTenEach } from "./_sync_new_entries.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    smoke: { type: "boolean", default: false },
    // The incremental rows only: the results file keeps its other rows.
    incremental: { type: "boolean", default: false },
    // Internal: the child that pushes one session folder and reports its peak RSS.
    child: { type: "string" },
  },
});

/** Peak resident set size of this process so far, in bytes (Linux). */
async function peakRss(): Promise<number> {
  const status = await Deno.readTextFile("/proc/self/status");
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

/** CPU seconds (user + system) a process has used so far (Linux, clock ticks of 10 ms). */
function cpuSeconds(pid: number | "self"): number {
  const fields = Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * CPU seconds used so far by the server listening on `port` and its backends: on a loaded
 * machine the wall time says little, the work each side did says more.
 */
function serverCpuSeconds(port: number): number {
  const ps = new Deno.Command("ps", { args: ["-eo", "pid=,ppid=,args="] }).outputSync();
  const rows = new TextDecoder().decode(ps.stdout).trim().split("\n")
    .map((line) => line.trim().split(/\s+/));
  const server = rows.find((row) => row.includes("-p") && row.includes(String(port)))?.[0];
  let total = 0;
  for (const [pid, parent] of rows) {
    if (pid !== server && parent !== server) continue;
    try {
      total += cpuSeconds(Number(pid));
    } catch { /* exited meanwhile */ }
  }
  return total;
}

/** Client and server CPU seconds spent in `work`. */
async function cpuOf(port: number, work: () => Promise<unknown>) {
  const [client, server] = [cpuSeconds("self"), serverCpuSeconds(port)];
  await work();
  return { client: cpuSeconds("self") - client, server: serverCpuSeconds(port) - server };
}

const cpuText = ({ client, server }: { client: number; server: number }) =>
  `CPU ${client.toFixed(1)} s client, ${server.toFixed(1)} s server`;

async function push(dir: string, url: string, schema: string) {
  const source = await openJsonlFsStore(dir);
  const target = await openPostgresStore({ url, schema });
  try {
    let report: SyncReport | undefined;
    // Measured before the close: the server's backends end with their connections.
    const cpu = await cpuOf(Number(new URL(url).port), async () => {
      report = await syncStores(source, target);
    });
    return { report: report!, cpu };
  } finally {
    await target.close();
    await source.close();
  }
}

if (values.child) {
  const { dir, url, schema } = JSON.parse(values.child);
  const start = performance.now();
  const { report, cpu } = await push(dir, url, schema);
  const ms = performance.now() - start;
  const peak = await peakRss();
  console.log(JSON.stringify({ ms, peakRss: peak, copied: report.entriesCopied, cpu }));
  Deno.exit(0);
}

async function median(runs: number, fn: () => Promise<number>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(await fn());
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

const MB = 1024 * 1024;
const sizes = values.smoke ? { sessions: 200, entries: 10_000 } : {
  sessions: 2_000,
  entries: 100_000,
};
const folder = await ensureFolder(sizes.sessions);
const big = await ensureSession(sizes.entries);
const cluster = await startCluster();
const rows: { measure: string; value: string; target: string }[] = [];
const work = await Deno.makeTempDir({ prefix: "mu-bench-sync-" });
try {
  // The folder is copied first: the incremental rows append to it.
  const local = `${work}/folder`;
  await Deno.mkdir(local);
  for await (const item of Deno.readDir(folder.dir)) {
    if (item.isFile && item.name.endsWith(".jsonl")) {
      await Deno.copyFile(`${folder.dir}/${item.name}`, `${local}/${item.name}`);
    }
  }
  const source = await openJsonlFsStore(local);
  const target = await openPostgresStore({ url: cluster.url, schema: "folder" });
  try {
    let cursor: SyncReport["cursor"] | undefined;
    let firstMs = 0;
    const firstCpu = await cpuOf(cluster.port, async () => {
      firstMs = await timed(async () => cursor = (await syncStores(source, target)).cursor);
    });
    rows.push({
      measure: `first push, ${sizes.sessions}-session folder (${
        (folder.bytes / MB).toFixed(0)
      } MB)`,
      value: `${(folder.bytes / MB / (firstMs / 1000)).toFixed(1)} MB/s (${
        firstMs.toFixed(0)
      } ms), ${cpuText(firstCpu)}`,
      target: ">= 20 MB/s",
    });
    const idle = await median(5, () =>
      timed(async () => {
        const report = await syncStores(source, target, { cursor });
        if (report.sessionsUnchanged !== sizes.sessions) throw new Error("read a session");
      }));
    rows.push({
      measure: `incremental push, nothing new, ${sizes.sessions} sessions`,
      value: `${idle.toFixed(0)} ms`,
      target: "<= 300 ms",
    });
    const both = await median(
      5,
      () =>
        timed(async () =>
          cursor = (await syncStores(source, target, { cursor, direction: "both" })).cursor
        ),
    );
    rows.push({
      measure: `incremental two-way sync, nothing new, ${sizes.sessions} sessions`,
      value: `${both.toFixed(0)} ms`,
      target: "(<= 300 ms)",
    });
    const sessions = (await source.list()).slice(0, 10);
    let round = 0;
    const fresh = await median(5, async () => {
      round++;
      await appendTenEach(source, sessions.map(({ id }) => id), round, "sync");
      return await timed(async () => {
        const report = await syncStores(source, target, { cursor });
        if (report.entriesCopied !== 100) throw new Error(`copied ${report.entriesCopied}`);
        cursor = report.cursor;
      });
    });
    rows.push({
      measure: "incremental push, 100 new entries across 10 sessions",
      value: `${fresh.toFixed(0)} ms`,
      target: "<= 300 ms",
    });
  } finally {
    await target.close();
    await (source as SessionStore).close();
  }

  if (values.incremental) rows.splice(0, 1); // the folder's first push only set them up
  const child = values.incremental ? undefined : await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      new URL(import.meta.url).pathname,
      `--child=${JSON.stringify({ dir: big.dir, url: cluster.url, schema: "big" })}`,
    ],
    stderr: "inherit",
  }).output();
  if (child && !child.success) throw new Error("the long-session push failed");
  const result = child &&
    JSON.parse(new TextDecoder().decode(child.stdout).trim().split("\n").at(-1)!);
  if (result) {
    rows.push({
      measure: `first push, ${sizes.entries}-entry session (${(big.bytes / MB).toFixed(0)} MB)`,
      value: `${(big.bytes / MB / (result.ms / 1000)).toFixed(1)} MB/s (${
        result.ms.toFixed(0)
      } ms), peak RSS ${(result.peakRss / MB).toFixed(0)} MB = ${
        (result.peakRss / big.bytes).toFixed(2)
      }x the file, ${cpuText(result.cpu)}`,
      target: ">= 20 MB/s, peak RSS <= 0.5x",
    });
  }
} finally {
  await cluster.stop();
  await Deno.remove(work, { recursive: true });
}
console.log("| measure | result | target |\n| --- | --- | --- |");
for (const row of rows) console.log(`| ${row.measure} | ${row.value} | ${row.target} |`);
if (!values.smoke) {
  const out = new URL("./results/sync.json", import.meta.url);
  let kept = rows;
  if (values.incremental) {
    const measured = new Map(rows.map((row) => [row.measure, row]));
    const before = JSON.parse(await Deno.readTextFile(out)).rows as typeof rows;
    kept = before.map((row) => measured.get(row.measure) ?? row);
  }
  await Deno.writeTextFile(
    out,
    JSON.stringify({ date: new Date().toISOString(), rows: kept }, null, 2) + "\n",
  );
}
