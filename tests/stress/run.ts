/**
 * The stress suite: `deno task test:stress` (full, a few minutes) or
 * `deno task test:stress:ci` (the slice inside `deno task test`). Options: `--seed N` (or
 * `STRESS_SEED`) reproduces a run (the CI slice defaults to a fixed seed, the full run to a new
 * one), `--only kill,writers,fuzz,hostile` runs some sections.
 * Prints the figures; exits 1 when a check failed (each failure names its seed).
 *
 * The tasks run it with `--unsafe-proto`: Deno removes `Object.prototype.__proto__`, which
 * would hide the classic pollution path (`target[a][b] = v` with `a = "__proto__"`) that
 * Node and browsers have; the fuzzer's prototype check must see it.
 *
 * Every check fails both the full run and the CI slice; the checks that guard the fixed
 * findings of issue 11 (and later ones, see RESULTS.md) name them.
 *
 * @module
 */
import { Checks, parseStressArgs } from "./_shared.ts";
import { killSection } from "./kill.ts";
import { writersSection } from "./writers.ts";
import { fuzzSection } from "./fuzz.ts";
import { hostileSection } from "./hostile.ts";

const options = parseStressArgs(Deno.args);
const checks = new Checks(options.ci, options.seed);
const size = options.ci
  ? { kills: 5, writes: 25, fuzzCases: 3_000, timeoutMinutes: 15 }
  : { kills: 50, writes: 1_000, fuzzCases: 100_000, timeoutMinutes: 90 };
// The one wall-clock bound: generous, so only a hang trips it (it names the seed).
const overall = setTimeout(() => {
  console.error(`stress suite: no end after ${size.timeoutMinutes} min; seed ${options.seed}`);
  Deno.exit(1);
}, size.timeoutMinutes * 60_000);
Deno.unrefTimer(overall);
const wanted = (name: string) => !options.only || options.only.includes(name);
console.log(`stress suite (${options.ci ? "CI slice" : "full"}), seed ${options.seed}`);

const summary: string[] = [];
const started = performance.now();
let sectionStart = started;
/** Seconds since the previous call: printed as information, never asserted. */
const lap = () => {
  const now = performance.now();
  const seconds = ((now - sectionStart) / 1000).toFixed(1);
  sectionStart = now;
  return `${seconds} s`;
};
if (wanted("kill")) {
  console.log("SIGKILL during writes:");
  const figures = await killSection(checks, size.kills);
  const kills = figures.reduce((sum, f) => sum + f.kills, 0);
  const acked = figures.reduce((sum, f) => sum + f.acknowledged, 0);
  const lost = figures.reduce((sum, f) => sum + f.lost, 0);
  summary.push(
    `kills: ${kills} (${figures.length} series), ${acked} acknowledged, ${lost} lost (${lap()})`,
  );
}
if (wanted("writers")) {
  console.log("Concurrent writer processes:");
  const figures = await writersSection(checks, size.writes);
  const lost = figures.reduce((sum, f) => sum + f.lost, 0);
  summary.push(
    `writers: ${figures.length} runs (2 and 4 processes), ${lost} entries lost (${lap()})`,
  );
}
if (wanted("fuzz")) {
  console.log("Fuzzer:");
  const figures = await fuzzSection(checks, size.fuzzCases);
  summary.push(
    `fuzz: ${figures.cases} cases, ${figures.accepted} accepted, ${figures.rejected} rejected ` +
      `(${figures.tooDeep} nested too deep) (${lap()})`,
  );
}
if (wanted("hostile")) {
  console.log("Hostile ids, cwd values and symlinks:");
  const figures = await hostileSection(checks);
  summary.push(
    `hostile: ${figures.cases} cases, ${figures.outside} paths written outside (${lap()})`,
  );
}

console.log(
  `\nsummary (seed ${options.seed}, ${((performance.now() - started) / 1000).toFixed(0)} s):`,
);
for (const line of summary) console.log(`  ${line}`);
if (checks.failures.length) {
  console.error(
    `\n${checks.failures.length} check(s) failed; reproduce with --seed ${options.seed}:`,
  );
  for (const failure of checks.failures.slice(0, 50)) console.error(`  ${failure}`);
  Deno.exit(1);
}
console.log("all checks passed");
// Explicit: a case that never settles (reported above) must not keep the process alive.
Deno.exit(0);
