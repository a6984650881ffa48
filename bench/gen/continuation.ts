/**
 * Entries that continue an existing session, for the append benchmarks. Pure (no runtime
 * API), so the Node build of the benchmark child can use it too.
 * @module
 */
import { SessionWriter } from "./session.ts";
import { Rng, TextPools } from "./text.ts";

/** Seed of the benchmark data (the generator's default). */
export const CONTINUATION_SEED = 20261129;

/**
 * `count` realistic turn entries chained from `parentId`, with ids not in `reserved`.
 * Deterministic for a given seed.
 */
export function continuationEntries(
  count: number,
  parentId: string | null,
  reserved: { has(id: string): boolean } = new Set(),
  seed = CONTINUATION_SEED,
): Record<string, unknown>[] {
  const writer = new SessionWriter(new Rng(seed ^ 0xa99e4d), new TextPools(new Rng(seed)), {
    entries: count,
    startMs: Date.UTC(2027, 0, 1),
    structure: false,
    named: false,
    imageEvery: 0,
    parentId,
    reserved,
  });
  return [...writer.run()];
}
