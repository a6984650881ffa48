/**
 * First open of a JSONL session by this tree's code and by another git ref's, in one process
 * (Deno, or Node through one bundle of both trees): `SessionManager.open` +
 * `buildSessionContext()` with no resume index (removed, untimed, before each call), beside
 * the floor of `open.ts`. The calls alternate, the order rotating every round, with a full GC
 * before each, so the ratio of the two trees shares the machine's noise. Each tree opens its
 * own folder holding a hard link of the same file, so neither reads the other's side files.
 * Driven by `bench/first_open_ab.ts`.
 * @module
 */
import { rmSync } from "node:fs";
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

/** The session, the two folders holding it, and how many rounds. */
export interface FirstOpenAbParams {
  file: string;
  sessionId: string;
  /** Folders with a link of `file`: this tree's and the ref's. */
  dirs: { current: string; ref: string };
  rounds: number;
}

/** Per function: every sample (ms), its median, and the messages it projected. */
export interface FirstOpenAbResult {
  runtime: string;
  samplesMs: Record<string, number[]>;
  medianMs: Record<string, number>;
  messages: Record<string, number>;
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
  trees: { current: FirstOpenTree; ref: FirstOpenTree },
): Promise<FirstOpenAbResult> {
  const floor = floorFn(params.file);
  const fns: [string, () => Promise<number>][] = [
    ["floor", async () => Number((await floor())?.records ?? 0)],
    ["current", firstOpen(trees.current, params.dirs.current, params.sessionId)],
    ["ref", firstOpen(trees.ref, params.dirs.ref, params.sessionId)],
  ];
  const samplesMs: Record<string, number[]> = { floor: [], current: [], ref: [] };
  const messages: Record<string, number> = {};
  // One warm-up round (discarded), then the measured ones, the order rotating each round.
  for (let round = -1; round < params.rounds; round++) {
    const shift = Math.max(0, round) % fns.length;
    for (const [name, fn] of [...fns.slice(shift), ...fns.slice(0, shift)]) {
      collectGarbage();
      const start = performance.now();
      const count = await fn();
      const ms = performance.now() - start;
      if (round < 0) continue;
      samplesMs[name].push(Math.round(ms * 10) / 10);
      messages[name] = count;
    }
  }
  const medianMs = Object.fromEntries(
    Object.entries(samplesMs).map(([name, samples]) => [name, median(samples)]),
  );
  return { runtime: runtimeName, samplesMs, medianMs, messages };
}
