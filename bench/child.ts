/**
 * One benchmark child process (Deno, or Node via the bundle `bench/run_node.ts` builds).
 * A fresh process per measurement gives clean peak-memory numbers and keeps one case's
 * garbage out of the next. The parent passes a JSON job as the first argument; the child
 * prints one `@@BENCH <json>` line with the result.
 *
 * Modes:
 * - `time`: every function of the case runs `warmup + runs` rounds, round-robin, with a
 *   full GC before each call (unless the case says `collectBetween: false`); warm-up
 *   rounds are discarded.
 * - `mem`: one function runs once; its peak is the RSS high-water mark (reset just
 *   before) minus the RSS before the call.
 * - `prepare`: build a SQLite database for later jobs.
 * @module
 */
import process from "node:process";
import { openCase, type OpenParams } from "./cases/open.ts";
import { hugeCase } from "./cases/huge.ts";
import { contextCase } from "./cases/resume.ts";
import { serveCase, type ServeParams } from "./cases/serve.ts";
import { appendCostCase, type AppendCostParams } from "./cases/append_cost.ts";
import {
  appendCase,
  type AppendParams,
  importCase,
  listingCase,
  prepareSqlite,
} from "./cases/stores.ts";
import type { BenchCase, Facts } from "./cases/types.ts";
import { protoCase } from "./proto/case.ts";
import {
  searchAppendCase,
  type SearchAppendParams,
  searchCase,
  type SearchParams,
} from "./cases/search.ts";
import { collectGarbage, gcExposed, memoryStatus, resetPeak, runtimeName } from "./rt.ts";

/** What the parent asks for. */
export interface ChildJob {
  mode: "time" | "mem" | "prepare";
  case:
    | "open"
    | "listing"
    | "append"
    | "append-cost"
    | "import"
    | "prepare-sqlite"
    | "proto"
    | "search"
    | "search-append"
    | "huge"
    | "context"
    | "serve";
  params: Record<string, unknown>;
  warmup?: number;
  runs?: number;
  /** `mem` mode: the function to measure. */
  fn?: string;
}

/** One function's outcome. */
export interface FnResult {
  samples?: number[];
  facts?: Facts[];
  unavailable?: string;
  error?: string;
  peakBytes?: number;
  baseRssBytes?: number;
  /** False when the high-water mark could not be reset (the peak is then an upper bound). */
  peakReset?: boolean;
}

/** What the child prints. */
export interface ChildResult {
  runtime: string;
  gc: boolean;
  info?: Facts;
  fns: Record<string, FnResult>;
  hwmBytes?: number;
}

async function makeCase(job: ChildJob): Promise<BenchCase> {
  switch (job.case) {
    case "open":
      return await openCase(job.params as unknown as OpenParams);
    case "listing":
      return await listingCase(job.params as { folder: string; sqliteDb?: string });
    case "append":
      return await appendCase(job.params as unknown as AppendParams);
    case "append-cost":
      return await appendCostCase(job.params as unknown as AppendCostParams);
    case "import":
      return await importCase(job.params as { folder: string; tmpDir: string });
    case "proto":
      return await protoCase(job.params as unknown as OpenParams);
    case "search":
      return await searchCase(job.params as unknown as SearchParams);
    case "search-append":
      return await searchAppendCase(job.params as unknown as SearchAppendParams);
    case "huge":
      return await hugeCase(job.params as unknown as OpenParams);
    case "context":
      return await contextCase(job.params as unknown as OpenParams);
    case "serve":
      return await serveCase(job.params as unknown as ServeParams);
    default:
      throw new Error(`unknown case ${job.case}`);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

async function timeCase(
  bench: BenchCase,
  warmup: number,
  runs: number,
): Promise<ChildResult["fns"]> {
  const out: ChildResult["fns"] = {};
  const live: [string, () => Promise<Facts | void>][] = [];
  for (const [name, fn] of Object.entries(bench.fns)) {
    if (typeof fn === "string") out[name] = { unavailable: fn };
    else {
      out[name] = { samples: [], facts: [] };
      live.push([name, fn]);
    }
  }
  for (let round = 0; round < warmup + runs; round++) {
    for (const [name, fn] of live) {
      const result = out[name];
      if (result.error) continue;
      const warming = round < warmup && bench.warmup?.[name];
      const call = typeof warming === "function" ? warming : fn;
      await bench.before?.(name);
      if (bench.collectBetween !== false) collectGarbage();
      const start = performance.now();
      try {
        const facts = await call();
        const ms = performance.now() - start;
        if (round >= warmup) {
          result.samples!.push(ms);
          result.facts!.push(facts ?? {});
        }
      } catch (error) {
        result.error = describe(error);
      }
    }
  }
  return out;
}

async function memCase(bench: BenchCase, name: string): Promise<ChildResult["fns"]> {
  const fn = bench.fns[name];
  if (fn === undefined) return { [name]: { error: `no function ${name}` } };
  if (typeof fn === "string") return { [name]: { unavailable: fn } };
  collectGarbage();
  const reset = await resetPeak();
  const before = await memoryStatus();
  if (!Number.isFinite(before.rss)) {
    return { [name]: { error: "peak RSS unavailable: cannot read /proc/self/status" } };
  }
  const start = performance.now();
  try {
    const facts = await fn();
    const ms = performance.now() - start;
    const after = await memoryStatus();
    return {
      [name]: {
        samples: [ms],
        facts: [facts ?? {}],
        // Without a reset the high-water mark may predate the call; still an upper bound.
        peakBytes: after.hwm - before.rss,
        baseRssBytes: before.rss,
        peakReset: reset,
      },
    };
  } catch (error) {
    return { [name]: { error: describe(error) } };
  }
}

async function main(): Promise<void> {
  const job = JSON.parse(process.argv[2]) as ChildJob;
  const result: ChildResult = { runtime: runtimeName, gc: gcExposed(), fns: {} };
  if (job.mode === "prepare") {
    result.info = await prepareSqlite(job.params as { source: string; db: string });
  } else {
    const bench = await makeCase(job);
    result.info = bench.info;
    try {
      result.fns = job.mode === "mem"
        ? await memCase(bench, job.fn!)
        : await timeCase(bench, job.warmup ?? 1, job.runs ?? 3);
    } finally {
      await bench.teardown?.();
    }
  }
  result.hwmBytes = (await memoryStatus()).hwm;
  process.stdout.write(`\n@@BENCH ${JSON.stringify(result)}\n`);
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stdout.write(
      `\n@@BENCH ${JSON.stringify({ crash: describe(error), stack: (error as Error)?.stack })}\n`,
    );
    process.exit(1);
  },
);
