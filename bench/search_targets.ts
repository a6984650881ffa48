/**
 * Issue 14's search targets and table, from the `search` section's rows: SQLite search
 * p50 < 20 ms and p95 < 100 ms at 10,000 sessions (the largest folder run, noted when
 * smaller), appends with the index at most 1.3x without it; the index's share of the
 * database is reported.
 * @module
 */
import type { Row } from "./jobs.ts";
import type { Evaluation } from "./targets.ts";

const ms = (value: number) => `${value >= 100 ? value.toFixed(0) : value.toFixed(1)} ms`;
const num = (value: unknown) => typeof value === "number" ? value : undefined;

/** The search rows' evaluations (none when the section did not run). */
export function searchTargets(rows: Row[]): Evaluation[] {
  const out: Evaluation[] = [];
  const search = rows.filter((r) => r.section === "search");
  const folders = search.filter((r) => r.name === "sqlite fts" && r.subject.endsWith("sessions"))
    .sort((a, b) => parseInt(b.subject) - parseInt(a.subject));
  const largest = folders[0];
  if (largest) {
    const note = parseInt(largest.subject) < 10000
      ? `measured at ${largest.subject} (target is for 10000 sessions)`
      : undefined;
    for (const [key, limit] of [["p50", 20], ["p95", 100]] as const) {
      const value = num(largest.facts?.[key]);
      out.push({
        id: `search-${key}`,
        label: `Search ${key}, SQLite FTS, 100 queries`,
        runtime: largest.runtime,
        subject: largest.subject,
        target: `< ${limit} ms`,
        measured: value === undefined
          ? largest.error ?? largest.unavailable ?? "not measured"
          : `${ms(value)} (common words p50 ${ms(num(largest.facts?.["p50 common"]) ?? NaN)})`,
        value,
        met: value === undefined ? null : value < limit,
        note,
      });
    }
  }
  for (
    const subject of new Set(search.filter((r) => r.name === "index on").map((r) => r.subject))
  ) {
    const on = search.find((r) => r.subject === subject && r.name === "index on");
    const off = search.find((r) => r.subject === subject && r.name === "index off");
    const indexed = search.find((r) => r.subject === subject && r.name === "index on + indexed");
    const value = on?.medianMs !== undefined && off?.medianMs !== undefined
      ? on.medianMs / off.medianMs
      : undefined;
    // The indexing appends leave for later (idle time, the next search), shown beside.
    const later = indexed?.medianMs !== undefined && off?.medianMs !== undefined
      ? `; then indexed by a search: ${ms(indexed.medianMs)} = ${
        (indexed.medianMs / off.medianMs).toFixed(2)
      }×`
      : "";
    out.push({
      id: `search-append-${subject}`,
      label: `Appends with the search index vs without (${subject})`,
      runtime: on!.runtime,
      subject,
      target: "≤ 1.30×",
      measured: value === undefined
        ? on?.error ?? off?.error ?? "not measured"
        : `${ms(on!.medianMs!)} vs ${ms(off!.medianMs!)} = ${value.toFixed(2)}×${later}`,
      value,
      met: value === undefined ? null : value <= 1.3,
    });
  }
  return out;
}

/** Markdown rows of the search table: per subject, FTS and scan quantiles, index share. */
export function searchTable(rows: Row[]): string[][] {
  const search = rows.filter((r) => r.section === "search" && !r.subject.includes(" appends"));
  const subjects = [...new Set(search.map((r) => r.subject))];
  const cell = (row: Row | undefined, key: string) => {
    const value = num(row?.facts?.[key]);
    return value === undefined ? row?.error ? "crashed" : "–" : ms(value);
  };
  return subjects.map((subject) => {
    const fts = search.find((r) => r.subject === subject && r.name === "sqlite fts");
    const scan = search.find((r) => r.subject === subject && r.name === "jsonl scan");
    const share = num(fts?.info?.indexShare);
    return [
      subject,
      cell(fts, "p50"),
      cell(fts, "p95"),
      ...["common", "rare", "phrase", "cjk", "identifier", "prefix"].map((k) =>
        cell(fts, `p50 ${k}`)
      ),
      `${cell(scan, "p50")} / ${cell(scan, "max")} (${scan?.facts?.queries ?? 0} queries)`,
      share === undefined
        ? "–"
        : `${(share * 100).toFixed(0)} % of ${(Number(fts!.info!.dbBytes) / 1e6).toFixed(0)} MB`,
    ];
  });
}

/** Header of {@link searchTable}. */
export const SEARCH_TABLE_HEAD = [
  "Data",
  "FTS p50",
  "FTS p95",
  "common",
  "rare",
  "phrase",
  "CJK",
  "identifier",
  "prefix",
  "JSONL scan p50 / max",
  "index share",
];
