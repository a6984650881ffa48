/**
 * Markdown tables of a results file (what `bench/README.md` shows between its markers).
 * Every time figure carries its ratio to the floor of the same run.
 * @module
 */
import type { Row } from "./jobs.ts";
import type { ResultsFile } from "./report.ts";
import { SEARCH_TABLE_HEAD, searchTable } from "./search_targets.ts";

const fmtMs = (value: number | undefined) =>
  value === undefined ? "–" : value >= 100 ? `${value.toFixed(0)} ms` : `${value.toFixed(1)} ms`;
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(bytes >= 1e7 ? 0 : 1)} MB`;

function cell(row: Row | undefined, base?: number): string {
  if (!row) return "–";
  if (row.error) return "crashed";
  if (row.unavailable) return "n/a yet";
  const ratio = base && row.medianMs !== undefined ? ` (${(row.medianMs / base).toFixed(2)}×)` : "";
  return `${fmtMs(row.medianMs)}${ratio}`;
}

function table(head: string[], body: string[][]): string {
  return [
    `| ${head.join(" | ")} |`,
    `|${head.map(() => "---").join("|")}|`,
    ...body.map((cells) => `| ${cells.join(" | ")} |`),
  ].join("\n");
}

/** All tables for one results file. */
export function renderTables(file: ResultsFile): string {
  const rows = file.rows;
  const out: string[] = [];
  const m = file.machine;
  out.push(
    `Run ${
      file.startedAt.slice(0, 16).replace("T", " ")
    } UTC, ${file.mode}, ${file.durationS} s; ` +
      `${m.cores} cores (${m.cpu}), ${m.memGiB} GiB; Deno ${m.deno}, Node ${m.node ?? "–"}; ` +
      `load average at end ${m.loadAverageAtEnd}. Medians; ratios are to the floor of the same process.`,
  );
  for (const merged of file.merged ?? []) {
    out.push(
      "",
      `Rows of ${merged.sections.join(", ")} from a later run: ${
        merged.startedAt.slice(0, 16).replace("T", " ")
      } UTC, ${merged.mode}, load average at end ${merged.machine.loadAverageAtEnd}.`,
    );
  }
  out.push("", "**Targets**", "");
  out.push(table(
    ["Target", "Runtime", "Measured", "Target", "Anchors", "Status"],
    file.evaluations.map((e) => [
      e.label + (e.note ? ` — ${e.note}` : ""),
      e.runtime,
      e.measured,
      e.target,
      e.anchors ?? "",
      e.met === null ? "not measured" : e.met ? "met" : "**missed**",
    ]),
  ));
  const runtimes = [...new Set(rows.map((r) => r.runtime))].filter((r) => r !== "chromium");
  const sized = (section: string, runtime: string) =>
    [
      ...new Set(
        rows.filter((r) => r.section === section && r.runtime === runtime).map((r) => r.subject),
      ),
    ]
      .sort((a, b) => parseInt(a) - parseInt(b));
  const get = (section: string, runtime: string, subject: string, name: string) =>
    rows.find((r) =>
      r.section === section && r.runtime === runtime && r.subject === subject && r.name === name
    );
  const bytesOf = (subject: string) =>
    file.data.sessions.find((s) => `${s.entries} entries` === subject)?.bytes ?? 0;
  const openNames = [
    "jsonl core",
    "jsonl store",
    "jsonl context",
    "sqlite load",
    "sqlite context",
  ];
  for (const runtime of runtimes) {
    const sizes = sized("open", runtime);
    if (sizes.length) {
      out.push(
        "",
        `**Open + project, ${runtime}** (floor = stream bytes, split, decode, JSON.parse each line)`,
        "",
      );
      out.push(table(
        ["Session", "File", "floor", "floor + keep objects", ...openNames],
        sizes.map((s) => {
          const floor = get("open", runtime, s, "floor")?.medianMs;
          return [
            s,
            mb(bytesOf(s)),
            cell(get("open", runtime, s, "floor")),
            cell(get("open", runtime, s, "floor+retain"), floor),
            ...openNames.map((n) => cell(get("open", runtime, s, n), floor)),
          ];
        }),
      ));
      const phases = sizes.map((s) => {
        const f = (name: string, key: string) =>
          fmtMs(get("open", runtime, s, name)?.facts?.[key] as number | undefined);
        return [
          s,
          f("jsonl core", "parseMs"),
          f("jsonl core", "indexMs"),
          f("jsonl core", "projectMs"),
          f("jsonl store", "loadMs"),
          f("sqlite load", "loadMs"),
          f("sqlite load", "projectMs"),
        ];
      });
      out.push("", "Phases (medians):", "");
      out.push(
        table([
          "Session",
          "core parse",
          "core index",
          "core project",
          "jsonl store load",
          "sqlite load",
          "sqlite project",
        ], phases),
      );
    }
    const memSizes = sized("memory", runtime);
    if (memSizes.length) {
      out.push(
        "",
        `**Peak RSS while opening, ${runtime}** (high-water mark minus RSS before; × file size)`,
        "",
      );
      out.push(table(
        ["Session", "File", "floor", ...openNames],
        memSizes.map((s) => [
          s,
          mb(bytesOf(s)),
          ...["floor", ...openNames].map((n) => {
            const row = get("memory", runtime, s, n);
            if (!row || row.peakBytes === undefined) {
              return row?.unavailable ? "n/a yet" : row?.error ? "crashed" : "–";
            }
            return `+${mb(row.peakBytes)} (${(row.peakBytes / bytesOf(s)).toFixed(2)}×)`;
          }),
        ]),
      ));
    }
    const lists = sized("listing", runtime);
    if (lists.length) {
      const names = [
        "sqlite",
        "sqlite open+list",
        "jsonl cold",
        "jsonl cold, no cache",
        "jsonl warm",
      ];
      out.push(
        "",
        `**Listing, ${runtime}** (cold = fresh store instance, as a new process: with the ` +
          "folder's persisted listing cache, or with none; OS page cache warm)",
        "",
      );
      out.push(
        table(
          ["Folder", ...names],
          lists.map((s) => [s, ...names.map((n) => cell(get("listing", runtime, s, n)))]),
        ),
      );
    }
    const appends = sized("append", runtime).filter((s) => !s.startsWith("jsonl cost"));
    const cost = sized("append", runtime).find((s) => s.startsWith("jsonl cost"));
    if (cost) {
      const names = [
        "raw write+fsync",
        "jsonl durable",
        "jsonl 8 in flight",
        "raw write",
        "jsonl relaxed",
        "pi append",
      ];
      const n = parseInt(cost.split(", ")[1]);
      const us = (row?: Row) =>
        row?.medianMs === undefined ? cell(row) : `${((row.medianMs / n) * 1000).toFixed(0)} µs`;
      out.push("", `**Per-append cost, ${runtime}** (${cost}, one entry each; median)`, "");
      out.push(table(names, [names.map((name) => us(get("append", runtime, cost, name)))]));
    }
    if (appends.length) {
      out.push(
        "",
        `**Appends, ${runtime}** (one entry per call, awaited; onto = the large session, opened first)`,
        "",
      );
      out.push(table(
        [
          "Store, durability",
          "new session",
          "onto large",
          "onto / new",
          "per append (new → onto)",
          "What the store does",
        ],
        appends.map((s) => {
          const fresh = get("append", runtime, s, "new");
          const onto = rows.find((r) =>
            r.section === "append" && r.runtime === runtime && r.subject === s &&
            r.name.startsWith("onto")
          );
          const n = parseInt(s.split(", ")[1] ?? "1000");
          const per = (row?: Row) =>
            row?.medianMs === undefined ? "–" : `${((row.medianMs / n) * 1000).toFixed(0)} µs`;
          const ratio = fresh?.medianMs && onto?.medianMs
            ? `${(onto.medianMs / fresh.medianMs).toFixed(2)}×`
            : "–";
          return [
            s,
            cell(fresh),
            cell(onto),
            ratio,
            `${per(fresh)} → ${per(onto)}`,
            String(fresh?.info?.durability ?? fresh?.unavailable ?? ""),
          ];
        }),
      ));
    }
    const imports = sized("import", runtime);
    if (imports.length) {
      out.push("", `**Import of a folder into SQLite, ${runtime}**`, "");
      out.push(table(
        ["Folder", "time", "sessions/s", "MB/s"],
        imports.map((s) => {
          const row = get("import", runtime, s, "sqlite import");
          const folder = file.data.folders.find((f) => `${f.sessions} sessions` === s);
          if (!row?.medianMs || !folder) return [s, cell(row), "–", "–"];
          const secs = row.medianMs / 1000;
          return [
            s,
            cell(row),
            (folder.sessions / secs).toFixed(0),
            (folder.bytes / 1e6 / secs).toFixed(1),
          ];
        }),
      ));
    }
  }
  for (
    const subject of [...new Set(rows.filter((r) => r.section === "proto").map((r) => r.subject))]
  ) {
    const inSection = rows.filter((r) => r.section === "proto" && r.subject === subject);
    const floor = inSection.find((r) => r.name === "floor")?.medianMs;
    const bytes = bytesOf(subject);
    out.push("", `**Prototypes (bench/proto/), deno, ${subject}**: open + index + project`, "");
    out.push(
      table(
        ["Variant", "time (× floor)", "parse phase", "zod calls", "peak RSS (× file)"],
        inSection.map((r) => {
          const mem = rows.find((m) =>
            m.section === "proto memory" && m.subject === subject && m.name === r.name
          );
          const peak = mem?.peakBytes === undefined
            ? "–"
            : `+${mb(mem.peakBytes)} (${(mem.peakBytes / bytes).toFixed(2)}×)`;
          return [
            r.name,
            cell(r, floor),
            fmtMs(r.facts?.parseMs as number | undefined),
            String(r.facts?.zodCalls ?? "–"),
            peak,
          ];
        }),
      ),
    );
  }
  const search = searchTable(rows);
  if (search.length) {
    out.push(
      "",
      "**Search (SQLite FTS5 index; JSONL scan for comparison), deno** (p50 per kind)",
      "",
    );
    out.push(table(SEARCH_TABLE_HEAD, search));
  }
  const browser = rows.filter((r) => r.section === "browser");
  if (browser.length) {
    out.push("", "**Browser (Chromium, OPFS SQLite in a worker)**", "");
    out.push(table(
      ["Measure", "Subject", "Value", "Notes"],
      browser.map((r) => [
        r.name,
        r.subject,
        r.error ? `crashed: ${r.error}` : r.unavailable ?? fmtMs(r.medianMs),
        String(r.facts?.note ?? ""),
      ]),
    ));
  }
  return out.join("\n");
}
