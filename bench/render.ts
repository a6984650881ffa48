/**
 * Re-render `bench/README.md`'s table (and re-evaluate the targets) from
 * `bench/results/latest.json`, without measuring again: for changes to the table or the
 * target rules. `deno run --allow-read --allow-write --allow-run bench/render.ts`
 * @module
 */
import type { SessionData } from "./generate.ts";
import { REPO } from "./jobs.ts";
import { type ResultsFile, updateReadme } from "./report.ts";
import { evaluate } from "./targets.ts";

const path = `${REPO}bench/results/latest.json`;
const file = JSON.parse(await Deno.readTextFile(path)) as ResultsFile;
file.evaluations = evaluate(file.rows, file.data.sessions as SessionData[]);
await Deno.writeTextFile(path, JSON.stringify(file, null, 1) + "\n");
console.log(await updateReadme(file) ? "bench/README.md updated" : "README markers missing");
