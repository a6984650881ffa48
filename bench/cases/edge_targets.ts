/**
 * The targets of issue 17 (the edge handler in workerd with a 128 MB heap), evaluated from
 * the rows of bench/cases/edge.ts.
 * @module
 */
import type { Row } from "../jobs.ts";
import type { Evaluation } from "../targets.ts";

const TARGETS: [name: string, label: string, target: string, met: (v: number) => boolean][] = [
  [
    "largest linear session MB",
    "Edge: largest linear session projected under a 128 MB heap (workerd)",
    ">= 40 MB",
    (v) => v >= 40,
  ],
  [
    "compact answer / body",
    "Edge: compact answer size / body size, linear session",
    "<= 1.2x",
    (v) => v <= 1.2,
  ],
  [
    "CPU ms per MB of body",
    "Edge: CPU per MB of body (workerd, less its own HTTP work)",
    "<= 15 ms",
    (v) => v <= 15,
  ],
  [
    "minified + gzip KB",
    "Edge: bundle of web/edge.ts, minified + gzip",
    "<= 40 KB",
    (v) => v <= 40,
  ],
  ["cold top-level eval", "Edge: bundle's cold top-level evaluation", "<= 20 ms", (v) => v <= 20],
  // Range reads of an indexed export (issue 30), `--only=edge-range`.
  [
    "range bytes fetched / file",
    "Edge range reads: bytes fetched for the 100k session's context / file size",
    "<= 5%",
    (v) => v <= 0.05,
  ],
  [
    "export index / JSONL",
    "Edge range reads: export index size / JSONL size, 100k session",
    "<= 3%",
    (v) => v <= 0.03,
  ],
  [
    "range answer wall / whole-body answer",
    "Edge range reads: wall time / whole-body answer, 100k session, local server (Deno)",
    "<= 0.3x",
    (v) => v <= 0.3,
  ],
  [
    "largest indexed session answered MB",
    "Edge range reads: largest indexed session answered under a 128 MB heap (workerd)",
    ">= the huge bench session (~1 GB)",
    (v) => v >= 950,
  ],
  [
    "handler CPU ms per range answer, index fetched",
    "Edge range reads: the handler's CPU per answer, 100k session, index fetched (in-process, no network)",
    "<= 30 ms",
    (v) => v <= 30,
  ],
  [
    "CPU ms per range answer, index fetched",
    "Edge range reads: CPU per answer, 100k session, index fetched (workerd process)",
    "<= 30 ms",
    (v) => v <= 30,
  ],
];

/** One evaluation per edge target that has a row (the largest session's ratio row). */
export function edgeTargets(rows: Row[]): Evaluation[] {
  const edge = rows.filter((row) => row.section === "edge");
  const out: Evaluation[] = [];
  for (const [name, label, target, met] of TARGETS) {
    const row = edge.filter((r) => r.name === name && r.medianMs !== undefined).at(-1);
    if (!row) continue;
    const value = row.medianMs!;
    out.push({
      id: `edge-${name}`,
      label,
      runtime: row.subject.startsWith("workerd")
        ? "workerd"
        : row.runtime === "deno" && row.subject.includes("entries")
        ? "deno"
        : "node",
      subject: row.subject,
      target,
      measured: value < 0.1 ? value.toFixed(4) : value.toFixed(value >= 10 ? 1 : 2),
      value,
      met: met(value),
    });
  }
  return out;
}
