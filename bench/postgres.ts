/**
 * PostgreSQL store figures beside SQLite's, measured the same way on the same machine in one
 * run (issue 16): appends per second from 1 and from 4 processes, listing N small sessions,
 * and open + context of one large session (whole load, and the context-only load).
 * Starts its own throwaway cluster (tests/postgres/cluster.ts). Not part of `deno task
 * bench`; run it by hand:
 *
 * ```sh
 * deno run -A bench/postgres.ts --sessions=10000 --entries=100000 --appends=1000
 * ```
 */
import { parseArgs } from "node:util";
import {
  buildSessionContext,
  loadSessionContext,
  type SessionEntry,
  type SessionStore,
} from "../core.ts";
import { openPostgresStore } from "../stores/postgres/store.ts";
import { openSqliteStore } from "../stores/sqlite/file.ts";
import { startCluster } from "../tests/postgres/cluster.ts";
import { goId, markerHeader, readyId } from "../tests/sqlite/append_worker_core.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    sessions: { type: "string", default: "2000" },
    entries: { type: "string", default: "10000" },
    appends: { type: "string", default: "500" },
  },
});
const SESSIONS = Number(values.sessions);
const ENTRIES = Number(values.entries);
const APPENDS = Number(values.appends);
const root = new URL("../", import.meta.url).pathname;

const entry = (i: number, parentId: string | null): SessionEntry => ({
  type: "message",
  id: `e${i.toString(16).padStart(7, "0")}`,
  parentId,
  timestamp: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
  message: i % 2
    ? { role: "user", content: `question ${i} ${"lorem ipsum ".repeat(20)}`, timestamp: i }
    : {
      role: "assistant",
      content: [{ type: "text", text: `answer ${i} ${"dolor sit amet ".repeat(40)}` }],
      api: "x",
      provider: "x",
      model: "x",
      usage: {
        input: 1,
        output: 1,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 2,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      },
      stopReason: "stop",
      timestamp: i,
    },
});

const chain = (n: number) => {
  const out: SessionEntry[] = [];
  for (let i = 0; i < n; i++) out.push(entry(i, i ? out[i - 1].id : null));
  return out;
};

const header = (id: string) => ({
  type: "session" as const,
  version: 4 as const,
  id,
  createdAt: "2026-01-01T00:00:00.000Z",
  cwd: "/bench",
});

async function median(runs: number, fn: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
}

/** One writer process per session, released together; appends per second over all. */
async function parallelAppends(
  store: SessionStore,
  worker: Worker,
  n: number,
) {
  const jobs = Array.from({ length: n }, (_, i) => ({ sessionId: `par${n}-${i}`, prefix: "p" }));
  for (const job of jobs) await store.create(header(job.sessionId));
  const children = jobs.map((job) =>
    new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        worker.script,
        JSON.stringify({ ...worker.args, ...job, count: APPENDS }),
      ],
      cwd: root,
      stdout: "inherit",
      stderr: "inherit",
    }).output()
  );
  for (const job of jobs) {
    while (!(await store.has(readyId(job)))) await new Promise((r) => setTimeout(r, 20));
  }
  const start = performance.now();
  for (const job of jobs) await store.create(markerHeader(goId(job.sessionId)));
  for (const child of await Promise.all(children)) if (!child.success) throw new Error("worker");
  return (n * APPENDS) / ((performance.now() - start) / 1000);
}

/** A writer script and the arguments that name its storage. */
interface Worker {
  script: string;
  args: Record<string, string>;
}

async function measure(name: string, store: SessionStore, worker: Worker) {
  const row: Record<string, string> = { store: name };
  await store.create(header("one"));
  let parent: string | null = null;
  const start = performance.now();
  for (let i = 0; i < APPENDS; i++) {
    const e = entry(i, parent);
    await store.append("one", [e]);
    parent = e.id;
  }
  row["appends/s, 1 process"] = String(Math.round(APPENDS / ((performance.now() - start) / 1000)));
  row["appends/s, 4 processes"] = String(Math.round(await parallelAppends(store, worker, 4)));
  for (let i = 0; i < SESSIONS; i++) {
    await store.create(
      { ...header(`s${i}`), createdAt: new Date(i * 1000).toISOString() },
      chain(4),
    );
  }
  row[`list ${SESSIONS} sessions, ms`] = (await median(5, () => store.list())).toFixed(0);
  await store.create(header("big"), chain(ENTRIES));
  row[`open + context ${ENTRIES}, ms`] = (await median(3, async () => {
    const { entries } = await store.load("big");
    buildSessionContext(entries, entries.at(-1)!.id);
  })).toFixed(0);
  row[`loadContext + context ${ENTRIES}, ms`] = (await median(3, async () => {
    await loadSessionContext(store, "big");
  })).toFixed(0);
  return row;
}

const cluster = await startCluster();
const dir = await Deno.makeTempDir({ prefix: "mu-bench-pg-" });
const rows: Record<string, string>[] = [];
try {
  const pg = await openPostgresStore({ url: cluster.url, schema: "bench" });
  try {
    const args = { url: cluster.url, schema: "bench", path: "" };
    rows.push(await measure("postgres", pg, { script: "tests/postgres/writer.ts", args }));
  } finally {
    await pg.close();
  }
  const path = `${dir}/sessions.db`;
  const sqlite = await openSqliteStore(path);
  try {
    const worker = { script: "tests/sqlite/append_worker.ts", args: { path } };
    rows.push(await measure("sqlite", sqlite, worker));
  } finally {
    await sqlite.close();
  }
} finally {
  await cluster.stop();
  await Deno.remove(dir, { recursive: true });
}
const columns = Object.keys(rows[0]);
console.log(`| ${columns.join(" | ")} |\n|${columns.map(() => " --- ").join("|")}|`);
for (const row of rows) console.log(`| ${columns.map((c) => row[c]).join(" | ")} |`);
