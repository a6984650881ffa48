/**
 * Issue 12's browser rows: the viewer imports the 231 MB session into OPFS SQLite at
 * ≥ 40 MB/s with no main-thread task ≥ 50 ms, and opening the imported session shows its
 * first context page in < 500 ms. Issue 15's: scrolling the opened session (context and
 * conversation tabs, down, up, "Jump to latest") with no main-thread task ≥ 50 ms. Issue
 * 31's: the first search after the import shows hits within a second.
 * @module
 */
import type { Row } from "../jobs.ts";
import type { Evaluation } from "../targets.ts";
import { PLACE_ROW, PLACE_STEPS, SCROLL_ROWS } from "./viewer_scroll.ts";

/** Evaluations of the viewer's browser rows (none when the section did not run). */
export function browserImportTargets(rows: Row[]): Evaluation[] {
  const out: Evaluation[] = [];
  const find = (name: string) => rows.find((r) => r.section === "browser" && r.name === name);
  const add = (
    row: Row | undefined,
    id: string,
    label: string,
    target: string,
    value: number | undefined,
    met: (value: number) => boolean,
    measured: (value: number) => string,
  ) => {
    if (!row) return;
    out.push({
      id,
      label,
      runtime: "chromium",
      subject: row.subject,
      target,
      value,
      measured: value === undefined
        ? row.error ?? row.unavailable ?? "not measured"
        : measured(value),
      met: value === undefined ? null : met(value),
    });
  };
  const imported = find("viewer import (web/, OPFS SQLite)");
  const mbPerS = typeof imported?.facts?.mbPerS === "number" ? imported.facts.mbPerS : undefined;
  add(
    imported,
    "viewer-import-rate",
    "Viewer import into OPFS SQLite (issue 12)",
    "≥ 40 MB/s",
    mbPerS,
    (v) => v >= 40,
    (v) => `${v.toFixed(1)} MB/s (${((imported?.medianMs ?? 0) / 1000).toFixed(1)} s)`,
  );
  const task = find("viewer: longest main-thread task");
  add(
    task,
    "viewer-import-task-50",
    "Viewer import: no main-thread task ≥ 50 ms (issue 12)",
    "< 50 ms",
    task?.medianMs,
    (v) => v < 50,
    (v) => v > 0 ? `${v.toFixed(0)} ms` : "no task ≥ 50 ms",
  );
  const opened = find("viewer: open the imported session, first context page");
  add(
    opened,
    "viewer-open-imported",
    "Viewer: open the imported 100k session, first context page (issue 12)",
    "< 500 ms",
    opened?.medianMs,
    (v) => v < 500,
    (v) => `${v.toFixed(0)} ms`,
  );
  for (const [key, name] of Object.entries(SCROLL_ROWS)) {
    const row = find(name);
    const count = typeof row?.facts?.longtasks === "number" ? row.facts.longtasks : 0;
    add(
      row,
      `viewer-scroll-${key}`,
      `Viewer: ${name.replace("viewer scroll: ", "")}, no main-thread task ≥ 50 ms (issue 15)`,
      "< 50 ms",
      row?.medianMs,
      (v) => v < 50,
      (v) => v > 0 ? `${v.toFixed(0)} ms (${count} tasks ≥ 50 ms)` : "no task ≥ 50 ms",
    );
  }
  // The first search after the import indexes the session's deferred search index as it
  // searches it, reporting hits as they are found: timed to its first hits.
  const searched = find("import into OPFS SQLite (worker)");
  const firstHits = typeof searched?.facts?.firstHitsMs === "number"
    ? searched.facts.firstHitsMs
    : undefined;
  const allHits = searched?.facts?.firstSearchMs;
  add(
    searched,
    "viewer-first-search",
    "Viewer: first search after the import, time to first hits (issue 31)",
    "≤ 1 s",
    firstHits,
    (v) => v <= 1000,
    (v) =>
      `${(v / 1000).toFixed(1)} s (all hits, the index built: ${
        typeof allHits === "number" ? (allHits / 1000).toFixed(1) : "?"
      } s)`,
  );
  const place = find(PLACE_ROW);
  const lost = typeof place?.facts?.stepsLost === "number" ? place.facts.stepsLost : undefined;
  add(
    place,
    "viewer-scroll-place",
    `Viewer: wheel up ${PLACE_STEPS} × 100 px after Jump to latest, steps where the message ` +
      "under the pointer moved more than the wheel (issue 31)",
    "0 steps",
    lost,
    (v) => v === 0,
    (v) => `${v} of ${PLACE_STEPS} steps (worst ${place?.facts?.worstMovePx ?? "?"} px)`,
  );
  return out;
}
