/**
 * The seeded fuzzer over parser, upgrade, projection and export (cases in
 * `fuzz_worker.ts`). The corpus is the format's fixtures plus generated sessions in
 * formats 4 and 3. A watchdog gives every case a budget: a worker whose case counter has
 * not moved for {@link CASE_BUDGET_MS} is terminated, the case is reported (with the seed
 * and case number to reproduce it: `--seed N --only fuzz`, `STRESS_FUZZ_FROM=i`) and the
 * run goes on after it.
 *
 * @module
 */
import { type Checks, ROOT } from "./_shared.ts";
import { exportText } from "./_sources.ts";
import type { FuzzJob, FuzzResult } from "./fuzz_worker.ts";

/** A case still running after this long counts as a hang (generous: a case takes ~1 ms). */
const CASE_BUDGET_MS = 20_000;
/** Corpus files larger than this are left out (they slow every case down, add little). */
const MAX_CORPUS_BYTES = 20_000;

/** Figures of the fuzz run. */
export interface FuzzFigures {
  cases: number;
  accepted: number;
  rejected: number;
  /** Of the rejected: nested past MAX_NESTING_DEPTH (a SessionFormatError at parse). */
  tooDeep: number;
  hangs: number;
}

async function loadCorpus(): Promise<Uint8Array[]> {
  const corpus: Uint8Array[] = [];
  for (const dir of ["fixtures/codec", "fixtures/projection", "fixtures/hostile"]) {
    const names: string[] = [];
    for await (const item of Deno.readDir(`${ROOT}${dir}`)) {
      if (item.isFile && item.name.endsWith(".jsonl")) names.push(item.name);
    }
    for (const name of names.sort()) {
      const bytes = await Deno.readFile(`${ROOT}${dir}/${name}`);
      if (bytes.length <= MAX_CORPUS_BYTES) corpus.push(bytes);
    }
  }
  const encoder = new TextEncoder();
  corpus.push(encoder.encode(exportText("gen4", 4, 40)), encoder.encode(exportText("gen3", 3, 40)));
  return corpus;
}

/** Run cases [from, total) in one worker; resolves with its result, or the hung case. */
function runWorker(job: FuzzJob): Promise<FuzzResult | { hung: number }> {
  const worker = new Worker(new URL("./fuzz_worker.ts", import.meta.url), { type: "module" });
  const current = new Int32Array(job.progress);
  return new Promise((resolve) => {
    let last = -1;
    let since = Date.now();
    const finish = (value: FuzzResult | { hung: number }) => {
      clearInterval(watchdog);
      worker.terminate();
      resolve(value);
    };
    const watchdog = setInterval(() => {
      const now = Atomics.load(current, 0);
      if (now !== last) {
        last = now;
        since = Date.now();
      } else if (Date.now() - since > CASE_BUDGET_MS) finish({ hung: now });
    }, 250);
    worker.onmessage = (event: MessageEvent<FuzzResult>) => finish(event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      finish({
        accepted: 0,
        rejected: 0,
        tooDeep: 0,
        failures: [{ message: `fuzz worker crashed near case ${last}: ${event.message}` }],
      });
    };
    worker.postMessage(job);
  });
}

export async function fuzzSection(checks: Checks, total: number): Promise<FuzzFigures> {
  const corpus = await loadCorpus();
  const figures: FuzzFigures = { cases: 0, accepted: 0, rejected: 0, tooDeep: 0, hangs: 0 };
  const started = performance.now();
  let from = Number(Deno.env.get("STRESS_FUZZ_FROM") ?? 0);
  const end = from + total;
  while (from < end) {
    const progress = new SharedArrayBuffer(4);
    new Int32Array(progress)[0] = from;
    const result = await runWorker({
      seed: checks.seed,
      from,
      count: end - from,
      corpus,
      progress,
    });
    if ("hung" in result) {
      figures.hangs++;
      checks.check(false, `fuzz case ${result.hung} ran over its ${CASE_BUDGET_MS} ms budget`);
      figures.cases += result.hung + 1 - from;
      from = result.hung + 1;
      continue;
    }
    for (const failure of result.failures) checks.check(false, failure.message);
    figures.accepted += result.accepted;
    figures.rejected += result.rejected;
    figures.tooDeep += result.tooDeep;
    figures.cases += end - from;
    from = end;
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `  ${figures.cases} cases from ${corpus.length} corpus files: ${figures.accepted} accepted, ` +
      `${figures.rejected} rejected (${figures.tooDeep} too deep), ${figures.hangs} over budget ` +
      `(${Math.round(figures.cases / seconds)} cases/s, information)`,
  );
  return figures;
}
