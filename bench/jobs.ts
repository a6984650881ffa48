/**
 * Running benchmark children and turning their output into result rows. A child that
 * crashes or times out becomes a row with an `error`; a missing driver becomes a row
 * with `unavailable`. Only the parent's own failures end the run.
 * @module
 */
import type { ChildJob, ChildResult } from "./child.ts";
import type { Facts } from "./cases/types.ts";
import { median } from "./rt.ts";

export const REPO = new URL("../", import.meta.url).pathname;

/** One measured figure. */
export interface Row {
  section: string;
  runtime: "deno" | "node" | "chromium";
  /** What was measured on: "100000 entries", "2000 sessions", ... */
  subject: string;
  name: string;
  medianMs?: number;
  samples?: number[];
  /** Medians of the numeric facts the function reported. */
  facts?: Facts;
  peakBytes?: number;
  unavailable?: string;
  error?: string;
  info?: Facts;
}

/** How a job's child is started. */
export interface Launcher {
  runtime: "deno" | "node";
  command: string;
  args: (jobJson: string) => string[];
}

export const denoLauncher: Launcher = {
  runtime: "deno",
  command: Deno.execPath(),
  // --allow-all: Deno grants /proc/self/status (peak RSS) and /proc/self/clear_refs (its
  // reset) only to fully privileged processes. The parent already holds --allow-run, so
  // this grants nothing it could not do anyway.
  args: (job) => [
    "run",
    "--allow-all",
    "--v8-flags=--expose-gc",
    `${REPO}bench/child.ts`,
    job,
  ],
};

/** A launcher for the Node bundle built by `run_node.ts`. */
export function nodeLauncher(bundle: string): Launcher {
  return {
    runtime: "node",
    command: Deno.env.get("NODE_BINARY") ?? "node",
    args: (job) => ["--expose-gc", bundle, job],
  };
}

/** Run one child; never throws for the child's own failures. */
export async function runChild(
  launcher: Launcher,
  job: ChildJob,
  timeoutMs: number,
): Promise<ChildResult & { crash?: string }> {
  const started = performance.now();
  let output: Deno.CommandOutput;
  try {
    output = await new Deno.Command(launcher.command, {
      args: launcher.args(JSON.stringify(job)),
      cwd: REPO,
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(timeoutMs),
    }).output();
  } catch (error) {
    return crash(`could not run ${launcher.runtime}: ${(error as Error).message}`);
  }
  const stdout = new TextDecoder().decode(output.stdout);
  const marker = stdout.lastIndexOf("@@BENCH ");
  if (marker !== -1) {
    const parsed = JSON.parse(stdout.slice(marker + 8).split("\n")[0]);
    if (!parsed.crash) return parsed;
    return crash(parsed.crash);
  }
  const stderr = new TextDecoder().decode(output.stderr).trim().split("\n").slice(-6).join(" | ");
  const timedOut = performance.now() - started >= timeoutMs - 50;
  return crash(
    timedOut ? `timed out after ${timeoutMs / 1000} s` : `exit ${output.code}: ${stderr}`,
  );
}

function crash(message: string): ChildResult & { crash: string } {
  return { runtime: "?", gc: false, fns: {}, crash: message };
}

/** Median of every numeric fact across samples (strings: the first value). */
export function factMedians(list: Facts[] | undefined): Facts | undefined {
  if (!list?.length) return undefined;
  const out: Facts = {};
  for (const key of Object.keys(list[0])) {
    const values = list.map((facts) => facts[key]);
    out[key] = typeof values[0] === "number" ? median(values as number[]) : values[0];
  }
  return out;
}

/** Rows of a `time` or `mem` child's result. */
export function toRows(
  base: Pick<Row, "section" | "runtime" | "subject">,
  result: ChildResult & { crash?: string },
  names: string[] = [],
): Row[] {
  if (result.crash) {
    return (names.length ? names : ["(case)"]).map((name) => ({
      ...base,
      name,
      error: result.crash,
    }));
  }
  return Object.entries(result.fns).map(([name, fn]) => ({
    ...base,
    name,
    medianMs: fn.samples?.length ? median(fn.samples) : undefined,
    samples: fn.samples?.map((ms) => Math.round(ms * 100) / 100),
    facts: factMedians(fn.facts),
    peakBytes: fn.peakBytes,
    unavailable: fn.unavailable,
    error: fn.error,
    info: result.info,
  }));
}

/** Progress line for a finished job. */
export function logRows(rows: Row[]): void {
  for (const row of rows) {
    const what = row.error
      ? `ERROR ${row.error}`
      : row.unavailable
      ? row.unavailable
      : `${row.medianMs?.toFixed(1)} ms${
        row.peakBytes !== undefined ? `, peak +${(row.peakBytes / 1e6).toFixed(1)} MB` : ""
      }`;
    console.log(`  ${row.runtime} ${row.section} [${row.subject}] ${row.name}: ${what}`);
  }
}
