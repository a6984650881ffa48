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
      runtime: row.subject.startsWith("workerd") ? "workerd" : "node",
      subject: row.subject,
      target,
      measured: value.toFixed(value >= 10 ? 1 : 2),
      value,
      met: met(value),
    });
  }
  return out;
}
