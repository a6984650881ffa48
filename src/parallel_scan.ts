/**
 * The checking pass over a large file in ranges side by side (`range_scan.ts` checks one
 * range): where the file is cut, how a backend runs the ranges (on Deno and Node, worker
 * threads: `stores/jsonl/_scan_pool.ts`), and how the ranges' block digests join into one
 * resume index.
 *
 * @module
 */
import { type RangeJob, type RangeReader, type RangeScan, runRangeJob } from "./range_scan.ts";

/**
 * A backend's way to check the ranges of a large file side by side.
 *
 * @example
 * ```ts
 * import type { ParallelScan } from "./parallel_scan.ts";
 * // One thread, jobs in order: what a backend without threads would do.
 * const inOrder: ParallelScan = {
 *   run: async (jobs, local) => { const out = []; for (const job of jobs) out.push(await local(job)); return out; },
 * };
 * ```
 */
export interface ParallelScan {
  /** Files at least this large are checked in ranges (default {@link PARALLEL_MIN_BYTES}). */
  minBytes?: number;
  /** Bytes per range (default {@link RANGE_BYTES}; rounded to whole index blocks). */
  rangeBytes?: number;
  /**
   * Run every job, some on other threads, the rest as `local` runs them on this one;
   * resolves their scans in job order. Rejects with `local`'s error for a job that fails.
   */
  run(jobs: RangeJob[], local: (job: RangeJob) => Promise<RangeScan>): Promise<RangeScan[]>;
}

/** Files at least this large are checked in ranges side by side, where the backend can. */
export const PARALLEL_MIN_BYTES = 32 << 20;
/** Bytes per range of a parallel check (whole blocks of the index: their digests join). */
export const RANGE_BYTES = 8 << 20;

/** The ranges of a `size`-byte file, the last one open-ended (the file may grow). */
function planRanges(size: number, rangeBytes: number, blockBytes?: number): RangeJob[] {
  const step = blockBytes
    ? Math.max(1, Math.round(rangeBytes / blockBytes)) * blockBytes
    : rangeBytes;
  const count = Math.max(1, Math.floor(size / step));
  const jobs: RangeJob[] = [];
  for (let k = 0; k < count; k++) {
    jobs.push({ start: k * step, end: k === count - 1 ? undefined : (k + 1) * step, blockBytes });
  }
  return jobs;
}

/**
 * What a pass hashed, for the resume index (`resume_index.ts`'s `BlockHasher` is one).
 *
 * @example
 * ```ts
 * import type { Hashed } from "./parallel_scan.ts";
 * const none: Hashed = { blockBytes: 4096, length: 0, digests: () => Promise.resolve([]) };
 * ```
 */
export interface Hashed {
  readonly blockBytes: number;
  digests(): Promise<string[]>;
  /** Bytes hashed in total (from the file's start). */
  length: number;
}

/**
 * The whole file `reader` reads, checked in ranges side by side by `parallel`, each handed
 * to `absorb` in file order; the digests of its blocks when `blockBytes` asks.
 *
 * @example
 * ```ts
 * import { type ParallelScan, scanInRanges } from "./parallel_scan.ts";
 * const bytes = new TextEncoder().encode(
 *   '{"type":"session","version":4,"id":"s","createdAt":"2026-01-01T00:00:00.000Z"}\n',
 * );
 * const reader = { stream: async function* (from = 0) { yield bytes.subarray(from); } };
 * // Every range on this thread, all at once.
 * const parallel: ParallelScan = { run: (jobs, local) => Promise.all(jobs.map(local)) };
 * await scanInRanges(reader, parallel, bytes.length, undefined, (scan) => console.log(scan.header));
 * ```
 */
export async function scanInRanges(
  reader: RangeReader,
  parallel: ParallelScan,
  size: number,
  blockBytes: number | undefined,
  absorb: (scan: RangeScan) => void,
): Promise<{ newlineEnded: boolean; hashed?: Hashed }> {
  const jobs = planRanges(size, parallel.rangeBytes ?? RANGE_BYTES, blockBytes);
  const local = (job: RangeJob) => runRangeJob(reader, job);
  const scans = await parallel.run(jobs, local);
  let newlineEnded = true;
  for (const scan of scans) {
    absorb(scan);
    if (scan.end > scan.start) newlineEnded = scan.newlineEnded;
  }
  if (!blockBytes) return { newlineEnded };
  // Every range but the last hashed whole blocks, so their digests join.
  const whole = scans.slice(0, -1).every((scan, k) => scan.hashed === jobs[k].end! - jobs[k].start);
  const length = scans.reduce((sum, scan) => sum + (scan.hashed ?? 0), 0);
  const digests = scans.flatMap((scan) => scan.digests ?? []);
  const hashed = { blockBytes, length, digests: () => Promise.resolve(digests) };
  return { newlineEnded, hashed: whole ? hashed : undefined };
}
