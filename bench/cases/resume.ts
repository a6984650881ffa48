/**
 * The context section (issue #12, `deno task bench --only=context`): resuming the 100k
 * session, the floor beside the context-only loads (`loadSessionProjection`) and what an
 * application calls, `SessionManager.open` + `buildSessionContext()` (lazy entries,
 * `src/lazy_index.ts`), per store; then each alone in a fresh process for its peak RSS
 * against the file's size.
 * @module
 */
import { stat } from "node:fs/promises";
import { jsonlDriver, sqliteDriver } from "../drivers.ts";
import type { Row } from "../jobs.ts";
import type { Evaluation } from "../targets.ts";
import { contextFns } from "./context.ts";
import { floorFn, type OpenParams } from "./open.ts";
import type { BenchCase } from "./types.ts";

/** The functions timed side by side. */
export const CONTEXT_FNS = [
  "floor",
  "jsonl context",
  "jsonl manager",
  "jsonl manager, first open",
  "sqlite context",
  "sqlite manager",
];
/** The functions whose peak RSS is measured, each in its own process. */
export const CONTEXT_MEM_FNS = CONTEXT_FNS.slice(1);

/** The case: the floor and the four ways to resume, with the file size as a fact. */
export async function contextCase(params: OpenParams): Promise<BenchCase> {
  const sqlite = params.sqliteDb ? await sqliteDriver() : "no SQLite database was prepared";
  const fns = {
    floor: floorFn(params.file),
    ...await contextFns(sqlite, await jsonlDriver(), params),
  };
  const { size } = await stat(params.file);
  return { fns, info: { fileBytes: size } };
}

const LIMITS: [name: string, time: number, memory: number][] = [
  ["jsonl context", 1.0, 1.0],
  ["jsonl manager", 1.0, 1.0],
  ["jsonl manager, first open", 1.0, 1.0],
  ["sqlite context", 0.2, 0.25],
  ["sqlite manager", 0.2, 0.25],
];

/** Time (against the floor of the same run) and peak RSS (against the file) per runtime. */
export function contextTargets(rows: Row[]): Evaluation[] {
  const out: Evaluation[] = [];
  const runtimes = [...new Set(rows.filter((r) => r.section === "context").map((r) => r.runtime))];
  for (const runtime of runtimes) {
    const of = (section: string, name: string) =>
      rows.find((r) => r.section === section && r.runtime === runtime && r.name === name);
    const floor = of("context", "floor");
    for (const [name, timeLimit, memoryLimit] of LIMITS) {
      const timed = of("context", name);
      if (timed) {
        const entry: Evaluation = {
          id: `context-${name}`,
          label: `Resume the 100k session: ${name} (open + context)`,
          runtime,
          subject: timed.subject,
          target: `≤ ${timeLimit.toFixed(2)}× floor`,
          measured: timed.error ?? timed.unavailable ?? "not measured",
          met: null,
        };
        if (timed.medianMs !== undefined && floor?.medianMs !== undefined) {
          entry.value = timed.medianMs / floor.medianMs;
          entry.measured = `${timed.medianMs.toFixed(0)} ms = ${entry.value.toFixed(2)}× floor ` +
            `(${floor.medianMs.toFixed(0)} ms)`;
          entry.met = entry.value <= timeLimit;
        }
        out.push(entry);
      }
      const mem = of("context memory", name);
      if (!mem) continue;
      const bytes = Number(mem.info?.fileBytes ?? timed?.info?.fileBytes);
      const entry: Evaluation = {
        id: `context-memory-${name}`,
        label: `Peak RSS resuming the 100k session: ${name}`,
        runtime,
        subject: mem.subject,
        target: `≤ ${memoryLimit}× file size`,
        measured: mem.error ?? mem.unavailable ?? "peak RSS not measured",
        met: null,
      };
      if (mem.peakBytes !== undefined && bytes) {
        entry.value = mem.peakBytes / bytes;
        entry.measured = `+${(mem.peakBytes / 1e6).toFixed(0)} MB = ${entry.value.toFixed(2)}× ` +
          `file (${(bytes / 1e6).toFixed(0)} MB)`;
        entry.met = entry.value <= memoryLimit;
      }
      out.push(entry);
    }
  }
  return out;
}
