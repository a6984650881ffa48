/**
 * The ~1 GB session (issue #12, `deno task bench --only=huge`, not in the default run): does
 * a context-only open complete, and what peak memory does it take against the file's size?
 * Three of the open case's functions on the huge session: the floor (read + `JSON.parse`
 * every line), `"jsonl context"` and `"sqlite context"` (`loadSessionProjection` over each
 * store). The whole-session loads are left out: they hold every entry as an object, several
 * times the file, which is what the context-only loads exist to avoid.
 * @module
 */
import { stat } from "node:fs/promises";
import { openCase, type OpenParams } from "./open.ts";
import type { BenchCase } from "./types.ts";
import type { Evaluation } from "../targets.ts";
import type { Row } from "../jobs.ts";

/** Entries of the huge session: about 1 GB at the generator's mix (100k entries = 231 MB). */
export const HUGE_ENTRIES = 430_000;
/** The functions measured on it, each also alone in a fresh process for its peak RSS. */
export const HUGE_FNS = ["floor", "jsonl context", "sqlite context"];

/** The huge case: the open case's floor and context-only loads, with the file size as a fact. */
export async function hugeCase(params: OpenParams): Promise<BenchCase> {
  const open = await openCase(params);
  const fns = Object.fromEntries(HUGE_FNS.map((name) => [name, open.fns[name]]));
  const { size } = await stat(params.file);
  return { fns, info: { fileBytes: size } };
}

const MEMORY_LIMITS: [name: string, kind: string, limit: number][] = [
  ["jsonl context", "JSONL", 1.0],
  ["sqlite context", "SQLite", 0.25],
];

/**
 * The huge session's targets: each context-only open completes (time against the floor of
 * the same process, reported, not judged) and its peak RSS stays within the file's share.
 */
export function hugeTargets(rows: Row[]): Evaluation[] {
  const out: Evaluation[] = [];
  const of = (section: string, name: string) =>
    rows.find((r) => r.section === section && r.runtime === "deno" && r.name === name);
  for (const [name, kind, limit] of MEMORY_LIMITS) {
    const timed = of("huge", name);
    const mem = of("huge memory", name);
    if (!timed && !mem) continue;
    const floor = of("huge", "floor");
    const bytes = Number(mem?.info?.fileBytes ?? timed?.info?.fileBytes);
    const entry: Evaluation = {
      id: `huge-${name}`,
      label: `Huge session: ${kind} open + context (${name}) completes, peak RSS`,
      runtime: "deno",
      subject: (mem ?? timed)!.subject,
      target: `completes; RSS ≤ ${limit}× file`,
      measured: "",
      met: null,
    };
    const failed = [timed, mem].find((row) => row?.error || row?.unavailable);
    if (failed) entry.measured = failed.error ? `error: ${failed.error}` : failed.unavailable!;
    else if (mem?.peakBytes === undefined || !bytes) entry.measured = "peak RSS not measured";
    else {
      entry.value = mem.peakBytes / bytes;
      const time = timed?.medianMs !== undefined && floor?.medianMs !== undefined
        ? `; ${timed.medianMs.toFixed(0)} ms = ${(timed.medianMs / floor.medianMs).toFixed(2)}× ` +
          `floor (${floor.medianMs.toFixed(0)} ms)`
        : "";
      entry.measured = `+${(mem.peakBytes / 1e6).toFixed(0)} MB = ${entry.value.toFixed(2)}× ` +
        `file (${(bytes / 1e6).toFixed(0)} MB)${time}`;
      entry.met = entry.value <= limit;
    }
    out.push(entry);
  }
  return out;
}
