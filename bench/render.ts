/**
 * Re-render `bench/README.md`'s table (and re-evaluate the targets) from
 * `bench/results/latest.json`, without measuring again: for changes to the table or the
 * target rules. `deno run --allow-read --allow-write --allow-run bench/render.ts`
 *
 * `--merge=<results.json>` (a `--only=...` run's `results/tmp/partial.json`) first replaces
 * the rows of `latest.json` of every (section, runtime) that file measured, so a section
 * rerun on its own updates the record without a full run; the file's start time and load
 * are kept in `merged` beside the full run's.
 * @module
 */
import type { SessionData } from "./generate.ts";
import { REPO } from "./jobs.ts";
import { type ResultsFile, updateReadme } from "./report.ts";
import { evaluate } from "./targets.ts";

const path = `${REPO}bench/results/latest.json`;
const file = JSON.parse(await Deno.readTextFile(path)) as ResultsFile;
const mergeFrom = Deno.args.find((arg) => arg.startsWith("--merge="))?.slice("--merge=".length);
if (mergeFrom) {
  const partial = JSON.parse(await Deno.readTextFile(mergeFrom)) as ResultsFile;
  const measured = new Set(partial.rows.map((row) => `${row.section}\n${row.runtime}`));
  file.rows = [
    ...file.rows.filter((row) => !measured.has(`${row.section}\n${row.runtime}`)),
    ...partial.rows,
  ];
  file.merged = [...file.merged ?? [], {
    startedAt: partial.startedAt,
    mode: partial.mode,
    sections: [...measured].map((key) => key.replace("\n", " on ")),
    machine: partial.machine,
  }];
}
file.evaluations = evaluate(file.rows, file.data.sessions as SessionData[]);
await Deno.writeTextFile(path, JSON.stringify(file, null, 1) + "\n");
console.log(await updateReadme(file) ? "bench/README.md updated" : "README markers missing");
