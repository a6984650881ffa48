/**
 * `deno task bench`: generates (or reuses) the benchmark data, runs every measurement in
 * child processes, and writes `bench/results/latest.json`, a dated copy and the table in
 * `bench/README.md`. Benchmarks never gate CI: missed targets are reported, and the exit
 * code is non-zero only when something crashed.
 *
 * Flags: `--smoke` (smallest sizes, seconds; results go to bench/results/tmp/),
 * `--only=open,listing,append,import,memory,search,browser,bundles,edge` (sections; also results to tmp/;
 * with `--smoke`, `browser` is only the viewer case on 10k entries, `--viewer-entries=N`),
 * `--runtimes=deno,node` (default both in a full run, deno for smoke), `--no-browser`,
 * `--write` (write latest.json/README even with --only), `--seed=N`. `--only=huge` (never in the
 * default run: a ~1 GB session, generated and imported once, minutes) measures context-only
 * opens of it; with `--smoke`, on the 10k session. `--only=context` (not in the default run)
 * times resuming the 100k session: context-only loads and SessionManager.open +
 * buildSessionContext() per store beside the floor, then each alone for its peak RSS.
 * `--only=serve` (not in the default run) reads the 100k session through `mu serve`'s API
 * as the viewer does (`bench/cases/serve.ts`).
 * @module
 */
import type { ChildJob } from "./child.ts";
import {
  DEFAULT_SEED,
  ensureFolder,
  ensureSession,
  type FolderData,
  GENERATOR_VERSION,
  type SessionData,
} from "./generate.ts";
import {
  denoLauncher,
  type Launcher,
  logRows,
  nodeLauncher,
  REPO,
  type Row,
  runChild,
  toRows,
} from "./jobs.ts";
import { writeResults } from "./report.ts";
import { runBrowserBench, runViewerOnly } from "./browser/run_browser.ts";
import { buildNodeChild } from "./run_node.ts";

const flag = (name: string) => Deno.args.includes(`--${name}`);
const option = (name: string) =>
  Deno.args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);

// `--help` prints the flags above (this file's own doc comment) instead of starting a run
// that takes many minutes of both cores.
if (flag("help") || Deno.args.includes("-h")) {
  const doc = Deno.readTextFileSync(new URL(import.meta.url)).split("*/")[0];
  console.log(doc.replace(/^\/\*\*\n/, "").replace(/^ \* ?/gm, "").replace(/@module\s*$/, ""));
  Deno.exit(0);
}

const smoke = flag("smoke");
const seed = Number(option("seed") ?? DEFAULT_SEED);
const only = option("only")?.split(",").filter(Boolean);
const runtimes = (option("runtimes") ?? (smoke ? "deno" : "deno,node")).split(",");
const wants = (section: string) => !only || only.includes(section);
/** `--only=edge`, `--only=huge` and `--only=bundles` need none of the default sessions. */
const edgeOnly =
  only?.every((section) =>
    ["edge", "edge-range", "edge-range-huge", "huge", "bundles"].includes(section)
  ) ??
    false;

/** Sizes: the full run's and the smoke run's (smallest sizes only). */
const SIZES = smoke
  ? { open: [1000], folders: [200], big: 1000, appends: 50, importFolder: 200 }
  : {
    open: [1000, 10000, 100000],
    folders: [2000, 10000],
    big: 100000,
    appends: 1000,
    importFolder: 2000,
  };
/** Rounds per size: [warm-up, measured]. Bigger inputs get fewer rounds to fit 10 minutes. */
const ROUNDS = (entries: number): [number, number] =>
  smoke ? [1, 2] : entries >= 100000 ? [1, 3] : entries >= 10000 ? [1, 3] : [1, 5];

const startedAt = new Date();
const t0 = performance.now();
const rows: Row[] = [];
let crashed = false;

/**
 * Prepared databases are valid while the store's schema version is the same (the SQLite
 * store never edits a published schema step), so they survive unrelated edits of
 * stores/sqlite/; the data part of the key is the generator version and seed.
 */
async function sqliteKey(): Promise<string> {
  try {
    const mod = await import(new URL("stores/sqlite/_schema.ts", `file://${REPO}`).href);
    return `schema${mod.SQLITE_SCHEMA_VERSION ?? "x"}-g${GENERATOR_VERSION}`;
  } catch {
    return `schemaX-g${GENERATOR_VERSION}`;
  }
}

/** A SQLite database holding `source` (file or folder), cached per data set and store code. */
async function prepared(
  name: string,
  source: string,
  key: string,
  timeoutMs = 900_000, // 100k entries on a busy machine
): Promise<string | undefined> {
  const dir = `${REPO}dist/bench-data/prepared`;
  const db = `${dir}/${name}-s${seed}-${key}.db`;
  if (await Deno.stat(db).catch(() => null)) return db;
  await Deno.mkdir(dir, { recursive: true });
  for await (const item of Deno.readDir(dir)) {
    if (item.name.startsWith(`${name}-s${seed}-`)) await Deno.remove(`${dir}/${item.name}`);
  }
  const job: ChildJob = {
    mode: "prepare",
    case: "prepare-sqlite",
    params: { source, db: `${db}.tmp` },
  };
  const result = await runChild(denoLauncher, job, timeoutMs);
  if (result.crash || result.info?.unavailable) {
    console.log(
      `  SQLite database for ${name} not prepared: ${result.crash ?? result.info?.unavailable}`,
    );
    if (result.crash) crashed = true;
    return undefined;
  }
  await Deno.rename(`${db}.tmp`, db);
  console.log(
    `  prepared ${name} in SQLite (${((result.info?.importMs as number) / 1000).toFixed(1)} s)`,
  );
  return db;
}

async function run(
  launcher: Launcher,
  section: string,
  subject: string,
  job: ChildJob,
  timeoutMs = 240_000,
): Promise<Row[]> {
  const t = performance.now();
  const result = await runChild(launcher, job, timeoutMs);
  if (result.crash) crashed = true;
  const out = toRows(
    { section, runtime: launcher.runtime, subject },
    result,
    job.fn ? [job.fn] : [],
  );
  if (out.some((row) => row.error)) crashed = true;
  rows.push(...out);
  logRows(out);
  console.log(`    (${((performance.now() - t) / 1000).toFixed(1)} s)`);
  return out;
}

// ---------------------------------------------------------------- data
console.log(`mu-sessions bench (${smoke ? "smoke" : "full"}, seed ${seed})`);
const sessions = new Map<number, SessionData>();
for (const n of edgeOnly ? [] : new Set([...SIZES.open, SIZES.big])) {
  sessions.set(n, await ensureSession(n, seed));
}
const folders = new Map<number, FolderData>();
for (const n of edgeOnly ? [] : new Set([...SIZES.folders, SIZES.importFolder])) {
  folders.set(n, await ensureFolder(n, seed));
}
console.log(`data ready (${((performance.now() - t0) / 1000).toFixed(1)} s)`);

const key = await sqliteKey();
const sessionDbs = new Map<number, string | undefined>();
for (const [n, data] of sessions) sessionDbs.set(n, await prepared(`session-${n}`, data.file, key));
const folderDbs = new Map<number, string | undefined>();
// Only listing and search read the folders' databases.
for (const n of wants("listing") || wants("search") ? SIZES.folders : []) {
  folderDbs.set(n, await prepared(`folder-${n}`, folders.get(n)!.dir, key));
}

const launchers: Launcher[] = [];
for (const runtime of runtimes) {
  if (runtime === "deno") launchers.push(denoLauncher);
  else if (runtime === "node") {
    const bundle = await buildNodeChild();
    if (typeof bundle === "string" && bundle.endsWith(".mjs")) launchers.push(nodeLauncher(bundle));
    else console.log(`  node: not available (${bundle})`);
  }
}

// ---------------------------------------------------------------- measurements
function openParams(n: number) {
  const data = sessions.get(n)!;
  const { file, dir, sessionId, lastEntryId } = data;
  return { file, dir, sessionId, lastEntryId, sqliteDb: sessionDbs.get(n) };
}

const MEM_FNS = [
  "floor",
  "jsonl core",
  "jsonl store",
  "jsonl context",
  "sqlite load",
  "sqlite context",
];
/**
 * Node runs a documented subset to fit the 10-minute budget: open + project of the 10k
 * and 100k sessions, memory of the two main paths on the 100k session, listing, and
 * appends to the better-sqlite3 store in its default durability. Import is skipped: the
 * same code as Deno's, bound by one fsync per session.
 */
const NODE_SUBSET = {
  openSizes: SIZES.open.filter((n) => n >= 10000 || smoke),
  memFns: ["jsonl core", "jsonl context", "sqlite load", "sqlite context"],
  appendStores: ["sqlite"],
  imports: false,
};

for (const launcher of edgeOnly ? [] : launchers) {
  const isNode = launcher.runtime === "node";
  for (const n of isNode ? NODE_SUBSET.openSizes : SIZES.open) {
    const params = openParams(n);
    const subject = `${n} entries`;
    const [warmup, runs] = ROUNDS(n);
    if (wants("open")) {
      // The largest session warms up on the next size down (same code paths, a tenth of the time).
      const smaller = SIZES.open.filter((m) => m < n).pop();
      const warmupWith = n >= 100000 && smaller ? openParams(smaller) : undefined;
      // Nine paths side by side at 100k entries: more than the default 4 minutes when busy.
      await run(launcher, "open", subject, {
        mode: "time",
        case: "open",
        params: { ...params, warmupWith },
        warmup,
        runs,
      }, n >= 100000 ? 600_000 : undefined);
    }
    if (wants("memory") && !(isNode && n !== SIZES.big)) {
      for (const fn of smoke ? ["jsonl core"] : isNode ? NODE_SUBSET.memFns : MEM_FNS) {
        await run(launcher, "memory", subject, { mode: "mem", case: "open", params, fn });
      }
    }
  }
  if (wants("listing")) {
    for (const n of SIZES.folders) {
      const params = { folder: folders.get(n)!.dir, sqliteDb: folderDbs.get(n) };
      const job: ChildJob = {
        mode: "time",
        case: "listing",
        params,
        warmup: 1,
        runs: smoke ? 2 : n >= 10000 ? 3 : 5,
      };
      await run(launcher, "listing", `${n} sessions`, job);
    }
  }
  if (wants("append")) {
    const big = sessions.get(SIZES.big)!;
    // SQLite's default (synchronous=FULL in WAL) already syncs every commit; NORMAL shows
    // what that costs; the JSONL store's relaxed durability is measured in its cost case below.
    const variants = [["sqlite", "default"], ["sqlite", "relaxed"], ["jsonl", "default"]];
    const kept = isNode
      ? variants.filter(([store, durability]) =>
        durability === "default" && NODE_SUBSET.appendStores.includes(store)
      )
      : variants;
    for (const [store, durability] of kept) {
      // 1,000 appends warm themselves up; the rounds are for stable medians.
      const [warmup, runs] = smoke ? [1, 2] : [0, 3];
      const params = {
        store,
        durability,
        appends: SIZES.appends,
        rounds: warmup + runs,
        tmpDir: `${REPO}dist/bench-data/tmp-append-${launcher.runtime}`,
        big: { ...big, sqliteDb: sessionDbs.get(SIZES.big) },
      };
      const job: ChildJob = { mode: "time", case: "append", params, warmup, runs };
      // 6,000 commits, each fsynced by default: more than the default 4 minutes when busy.
      const subject = `${store} ${durability}, ${SIZES.appends} appends`;
      await run(launcher, "append", subject, job, 600_000);
    }
    // Per-append cost against raw write(+fsync) of the same bytes (issue 12).
    const n = smoke ? 20 : 200;
    // Many short rounds: on a shared machine a single round's median moves by 2x.
    const [warmup, runs] = smoke ? [1, 2] : [2, 15];
    const params = {
      appends: n,
      rounds: warmup + runs,
      tmpDir: `${REPO}dist/bench-data/tmp-cost-${launcher.runtime}`,
    };
    const job: ChildJob = { mode: "time", case: "append-cost", params, warmup, runs };
    await run(launcher, "append", `jsonl cost, ${n} appends`, job);
  }
  if (wants("import") && !(isNode && !NODE_SUBSET.imports)) {
    const folder = folders.get(SIZES.importFolder)!;
    const params = {
      folder: folder.dir,
      tmpDir: `${REPO}dist/bench-data/tmp-import-${launcher.runtime}`,
    };
    await run(launcher, "import", `${folder.sessions} sessions`, {
      mode: "time",
      case: "import",
      params,
      warmup: 0, // I/O-bound (one fsync per session): nothing to warm up
      runs: smoke ? 1 : 2,
    });
  }
}

// Search (issue 14, Deno only): the index over each folder and the large session, the scan
// over the same files for comparison (one query per kind: a scan of 10,000 files is slow),
// and appends with the index on vs off.
if (wants("search") && runtimes.includes("deno")) {
  type Target = [subject: string, source: string, sqliteDb: string | undefined];
  const targets: Target[] = [
    ...SIZES.folders.map((n): Target => [`${n} sessions`, folders.get(n)!.dir, folderDbs.get(n)]),
    [`${SIZES.big} entries`, sessions.get(SIZES.big)!.dir, sessionDbs.get(SIZES.big)],
  ];
  for (const [subject, source, sqliteDb] of targets) {
    // One measured round of 100 queries (the case warms up on one query per kind).
    const params = { source, sqliteDb, mode: "fts" };
    const fts: ChildJob = { mode: "time", case: "search", params, warmup: 0, runs: 1 };
    await run(denoLauncher, "search", subject, fts, 900_000);
    const scan: ChildJob = { mode: "time", case: "search", params: { source, mode: "scan" } };
    await run(denoLauncher, "search", subject, { ...scan, warmup: 0, runs: 1 }, 900_000);
  }
  const baseDb = folderDbs.get(SIZES.folders[0]);
  for (const durability of baseDb ? ["default", "relaxed"] : []) {
    const [warmup, runs] = smoke ? [1, 2] : [1, 3];
    const tmpDir = `${REPO}dist/bench-data/tmp-search-append`;
    const params = { baseDb, tmpDir, appends: SIZES.appends, rounds: warmup + runs, durability };
    const job: ChildJob = { mode: "time", case: "search-append", params, warmup, runs };
    await run(denoLauncher, "search", `${SIZES.appends} appends, ${durability}`, job);
  }
}

// Prototypes of proposed fixes (bench/proto/): only on request, they are not library code.
if (only?.includes("proto")) {
  const { PROTO_VARIANTS } = await import("./proto/case.ts");
  for (const n of SIZES.open.filter((m) => m >= 10000 || smoke)) {
    const subject = `${n} entries`;
    const smaller = SIZES.open.filter((m) => m < n).pop();
    const warmupWith = n >= 100000 && smaller ? openParams(smaller) : undefined;
    const [warmup, runs] = ROUNDS(n);
    const params = { ...openParams(n), warmupWith };
    const job: ChildJob = { mode: "time", case: "proto", params, warmup, runs };
    await run(denoLauncher, "proto", subject, job, 900_000);
    if (n !== SIZES.big) continue;
    const names = [
      "floor+retain",
      "library today",
      ...Object.keys(PROTO_VARIANTS).map((v) => `proto ${v}`),
    ];
    for (const fn of names) {
      const memParams = { ...params, skipChecks: true };
      await run(denoLauncher, "proto memory", subject, {
        mode: "mem",
        case: "proto",
        params: memParams,
        fn,
      });
    }
  }
}

// Resuming the 100k session (issue 12), only on request: the floor, the context-only loads
// and SessionManager.open + buildSessionContext() side by side, then each alone for its RSS.
if (only?.includes("context")) {
  const { CONTEXT_MEM_FNS } = await import("./cases/resume.ts");
  const params = openParams(SIZES.big);
  const subject = `${SIZES.big} entries`;
  for (const launcher of launchers) {
    const job: ChildJob = { mode: "time", case: "context", params, warmup: 1, runs: 3 };
    await run(launcher, "context", subject, job, 600_000);
    for (const fn of smoke ? [] : CONTEXT_MEM_FNS) {
      await run(launcher, "context memory", subject, { ...job, mode: "mem", fn });
    }
  }
}

// The 100k session through `mu serve`'s API, only on request (Deno: the server's runtime in
// `npm start`): the viewer's first conversation page, first entries page and every page.
if (only?.includes("serve") && runtimes.includes("deno")) {
  const params = openParams(SIZES.big);
  const job: ChildJob = { mode: "time", case: "serve", params, warmup: 1, runs: 3 };
  await run(denoLauncher, "serve", `${SIZES.big} entries`, job, 900_000);
}

// The ~1 GB session (issue 12), only on request: each function once in one process (ratios
// to its floor), then each alone in a fresh process for its peak RSS.
if (only?.includes("huge") && runtimes.includes("deno")) {
  const { HUGE_ENTRIES, HUGE_FNS } = await import("./cases/huge.ts");
  const n = smoke ? 10000 : HUGE_ENTRIES;
  const data = await ensureSession(n, seed);
  const params = { ...data, sqliteDb: await prepared(`session-${n}`, data.file, key, 3_600_000) };
  const subject = `${n} entries`;
  const job: ChildJob = { mode: "time", case: "huge", params, warmup: 0, runs: 1 };
  await run(denoLauncher, "huge", subject, job, 1_800_000);
  for (const fn of HUGE_FNS) {
    await run(denoLauncher, "huge memory", subject, { ...job, mode: "mem", fn }, 1_800_000);
  }
}

// A smoke run does the browser only when asked (`--smoke --only=browser`): then just the
// viewer case (import, open, scroll) on the 10k session, about a tenth of the full one, or
// on `--viewer-entries=100000` (the full session without the worker-only import first).
if (wants("browser") && !flag("no-browser") && (!smoke || only?.includes("browser"))) {
  const t = performance.now();
  const browserRows = smoke
    ? await runViewerOnly(await ensureSession(Number(option("viewer-entries") ?? 10000), seed))
    : await runBrowserBench(sessions.get(SIZES.big)!);
  rows.push(...browserRows);
  logRows(browserRows);
  if (browserRows.some((row) => row.error)) crashed = true;
  console.log(`    (${((performance.now() - t) / 1000).toFixed(1)} s)`);
}

if (wants("bundles") && !smoke) {
  const { runBundleBench } = await import("./cases/bundles.ts");
  const bundleRows = await runBundleBench();
  rows.push(...bundleRows);
  logRows(bundleRows);
}

if (wants("edge") && !smoke) {
  const { runEdgeBench } = await import("./cases/edge.ts");
  const edgeRows = await runEdgeBench();
  rows.push(...edgeRows);
  logRows(edgeRows);
}

// The edge handler reading the 100k session by HTTP Range (issue 30), only on request.
if (only?.includes("edge-range")) {
  const { runEdgeRangeBench } = await import("./cases/edge_range.ts");
  const rangeRows = await runEdgeRangeBench(smoke ? 10_000 : SIZES.big, seed);
  rows.push(...rangeRows);
  logRows(rangeRows);
}
// The same on the ~1 GB session (minutes; build its index needs a large heap, see bench/README.md).
if (only?.includes("edge-range-huge")) {
  const { runEdgeRangeBench } = await import("./cases/edge_range.ts");
  const { HUGE_ENTRIES } = await import("./cases/huge.ts");
  const hugeRows = await runEdgeRangeBench(smoke ? 10_000 : HUGE_ENTRIES, seed, true);
  rows.push(...hugeRows);
  logRows(hugeRows);
}

// ---------------------------------------------------------------- results
const durationS = (performance.now() - t0) / 1000;
const official = !smoke && (!only || flag("write"));
const written = await writeResults({
  startedAt,
  durationS,
  mode: smoke ? "smoke" : only ? `only:${only.join(",")}` : "full",
  seed,
  sessions: [...sessions.values()],
  folders: [...folders.values()],
  rows,
  official,
});
console.log(`done in ${durationS.toFixed(0)} s; results: ${written.join(", ")}`);
if (crashed) {
  console.log("some measurements crashed (see ERROR above); exiting with status 1");
  Deno.exit(1);
}
