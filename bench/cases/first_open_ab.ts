/**
 * First open of a JSONL session by this tree's code and by other trees' (another git ref,
 * and that ref without one of its paths), in one process (Deno, or Node through one bundle
 * of every tree): `SessionManager.open` + `buildSessionContext()` with no resume index
 * (removed, untimed, before each call), beside the floor of `open.ts`. The calls alternate,
 * the order rotating every round, with a full GC before each, so the ratios of the trees
 * share the machine's noise; {@link FirstOpenAbResult.pairRatios} keeps them per round, and
 * `cpuPairRatios` the same of CPU time (a busy machine stretches the wall clock more). Each
 * tree opens its own folder holding a hard link of the same file, so none reads another's
 * side files. Driven by `bench/first_open_ab.ts`.
 * @module
 */
import { rmSync } from "node:fs";
import { cpuUsage } from "node:process";
import { join } from "node:path";
import { collectGarbage, median, runtimeName } from "../rt.ts";
import { floorFn } from "./open.ts";

/** What one tree offers for the measurement (both trees' exports have these shapes). */
export interface FirstOpenTree {
  openJsonlFsStore(dir: string): Promise<{ close(): Promise<void> }>;
  SessionManager: {
    open(
      store: never,
      sessionId: string,
    ): Promise<{ buildSessionContext(): { messages: unknown[] } }>;
  };
}

/** The session, the folders holding it (one per tree), and how many rounds. */
export interface FirstOpenAbParams {
  file: string;
  sessionId: string;
  /** Per tree name: a folder with a link of `file` (`current`, `ref`, and any other tree). */
  dirs: Record<string, string>;
  rounds: number;
}

/** Per function: every sample (ms), its median, and the messages it projected. */
export interface FirstOpenAbResult {
  runtime: string;
  samplesMs: Record<string, number[]>;
  medianMs: Record<string, number>;
  /**
   * The same calls' CPU time (ms, every thread of the process): what the code costs, less
   * swayed than the wall clock by other processes waiting for the same cores.
   */
  cpuSamplesMs: Record<string, number[]>;
  cpuMedianMs: Record<string, number>;
  messages: Record<string, number>;
  /**
   * Per tree other than `ref`: its time over the ref's in each round (`"current/ref"`), and
   * `"current/<tree>"` for every further tree; the median of these is the row (a round's two
   * calls share its noise, where two medians each take their own).
   */
  pairRatios: Record<string, number[]>;
  /** {@link pairRatios} of the CPU times. */
  cpuPairRatios: Record<string, number[]>;
}

function firstOpen(tree: FirstOpenTree, dir: string, sessionId: string) {
  return async () => {
    rmSync(join(dir, ".mu-index"), { recursive: true, force: true });
    const store = await tree.openJsonlFsStore(dir);
    try {
      const manager = await tree.SessionManager.open(store as never, sessionId);
      return manager.buildSessionContext().messages.length;
    } finally {
      await store.close();
    }
  };
}

/** Measure `rounds` alternated rounds of the floor, this tree's first open and the ref's. */
export async function firstOpenAb(
  params: FirstOpenAbParams,
  trees: Record<string, FirstOpenTree>,
): Promise<FirstOpenAbResult> {
  const floor = floorFn(params.file);
  const fns: [string, () => Promise<number>][] = [
    ["floor", async () => Number((await floor())?.records ?? 0)],
    ...Object.entries(trees).map(([name, tree]): [string, () => Promise<number>] => [
      name,
      firstOpen(tree, params.dirs[name], params.sessionId),
    ]),
  ];
  const samplesMs: Record<string, number[]> = Object.fromEntries(fns.map(([name]) => [name, []]));
  const cpuSamplesMs: Record<string, number[]> = Object.fromEntries(
    fns.map(([name]) => [name, []]),
  );
  const messages: Record<string, number> = {};
  // One warm-up round (discarded), then the measured ones, the order rotating each round.
  for (let round = -1; round < params.rounds; round++) {
    const shift = Math.max(0, round) % fns.length;
    for (const [name, fn] of [...fns.slice(shift), ...fns.slice(0, shift)]) {
      collectGarbage();
      const cpuStart = cpuUsage();
      const start = performance.now();
      const count = await fn();
      const ms = performance.now() - start;
      const cpu = cpuUsage(cpuStart);
      if (round < 0) continue;
      samplesMs[name].push(Math.round(ms * 10) / 10);
      cpuSamplesMs[name].push(Math.round((cpu.user + cpu.system) / 100) / 10);
      messages[name] = count;
    }
  }
  const medians = (samples: Record<string, number[]>) =>
    Object.fromEntries(Object.entries(samples).map(([name, all]) => [name, median(all)]));
  return {
    runtime: runtimeName,
    samplesMs,
    medianMs: medians(samplesMs),
    cpuSamplesMs,
    cpuMedianMs: medians(cpuSamplesMs),
    messages,
    pairRatios: pairRatios(samplesMs),
    cpuPairRatios: pairRatios(cpuSamplesMs),
  };
}

/** Each tree against the ref, and this tree against every other, round by round. */
function pairRatios(samplesMs: Record<string, number[]>): Record<string, number[]> {
  const others = Object.keys(samplesMs).filter((name) => name !== "floor" && name !== "ref");
  const pairs: [string, string][] = [
    ...others.map((name): [string, string] => [name, "ref"]),
    ...others.filter((name) => name !== "current").map((
      name,
    ): [string, string] => ["current", name]),
  ];
  return Object.fromEntries(pairs.map(([a, b]) => [
    `${a}/${b}`,
    samplesMs[a].map((ms, round) => Math.round((ms / samplesMs[b][round]) * 1000) / 1000),
  ]));
}
