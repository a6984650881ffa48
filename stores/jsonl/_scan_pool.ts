/**
 * The checking pass over a large JSONL file on Deno and Node, in ranges side by side: the
 * calling thread and up to {@link MAX_SCAN_WORKERS} worker threads (`node:worker_threads`,
 * which Deno runs too; none on two cores, see {@link defaultScanWorkers}) take the ranges
 * from one queue, so a worker still loading (100-250 ms here) leaves its share to the
 * threads that are ready, and a slow thread simply takes fewer. One thread checks the 100k
 * session (231 MB) at 1.28× (Deno) and 1.14× (Node) the time of reading and `JSON.parse` of
 * every line, which is all the floor does (bench/README.md, round 8); only more threads get
 * a first open under it.
 *
 * The worker's module sits beside this one (`_scan_worker.ts` in the sources, `.js` in the
 * npm package, `.mjs` beside a test bundle). Where it cannot start (bundled without it, no
 * permission), the calling thread checks every range: slower, never different.
 *
 * @module
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { ParallelScan } from "../../src/parallel_scan.ts";
import type { RangeJob, RangeScan } from "../../src/range_scan.ts";
import type { ScanWorkerMessage } from "./_scan_worker.ts";

/** Most worker threads one pass uses (four threads in all). */
export const MAX_SCAN_WORKERS = 3;

const here = import.meta.url;
/** The worker's module, with this module's own extension (`.ts`, `.js`, `.mjs`). */
const WORKER_URL = new URL(`./_scan_worker${here.slice(here.lastIndexOf("."))}`, here);

/**
 * Worker threads for a pass: two fewer than the cores, at most {@link MAX_SCAN_WORKERS}, so
 * none on two cores. The calling thread's pass alone keeps about 1.2 cores busy (V8's
 * garbage collector and the read-ahead run beside it); on the 2-core benchmark machine a
 * worker beside it made the first open of the 100k session 2-3 times slower, not faster
 * (bench/README.md, round 7).
 *
 * @example
 * ```ts
 * import { defaultScanWorkers } from "./_scan_pool.ts";
 * defaultScanWorkers() >= 0; // true
 * ```
 */
export function defaultScanWorkers(): number {
  try {
    return Math.max(0, Math.min(MAX_SCAN_WORKERS, availableParallelism() - 2));
  } catch {
    return 0;
  }
}

/**
 * Options of {@link scanPool}.
 *
 * @example
 * ```ts
 * import type { ScanPoolOptions } from "./_scan_pool.ts";
 * const options: ScanPoolOptions = { workers: 2 };
 * ```
 */
export interface ScanPoolOptions {
  /** Worker threads (default {@link defaultScanWorkers}); below 1: none. */
  workers?: number;
  /** The worker's module (default: `_scan_worker` beside this module). */
  workerUrl?: URL;
  /** Told of every range a worker thread checked. */
  onWorkerScan?: (job: RangeJob) => void;
}

/**
 * The parallel pass over the file at `abs`, or `undefined` when there is no worker to use.
 *
 * @example
 * ```ts
 * import { scanPool } from "./_scan_pool.ts";
 * const parallel = scanPool("/tmp/sessions/a.jsonl", { workers: 1 }); // for the checking pass
 * ```
 */
export function scanPool(abs: string, options: ScanPoolOptions = {}): ParallelScan | undefined {
  const { workers = defaultScanWorkers(), workerUrl = WORKER_URL, onWorkerScan } = options;
  if (!(workers >= 1)) return undefined;
  const spec = { abs, workerUrl, onWorkerScan };
  return { run: (jobs, local) => runJobs(spec, jobs, local, workers) };
}

/** What a worker is started with. */
interface WorkerSpec {
  abs: string;
  workerUrl: URL;
  onWorkerScan?: (job: RangeJob) => void;
}

/** The shared queue of one pass. */
class JobQueue {
  readonly jobs: RangeJob[];
  readonly scans: RangeScan[];
  /** Jobs a worker could not run: the calling thread runs them first (and raises their error). */
  readonly failed: number[] = [];
  #next = 0;

  constructor(jobs: RangeJob[]) {
    this.jobs = jobs;
    this.scans = new Array(jobs.length);
  }

  take(): number | undefined {
    return this.#next < this.jobs.length ? this.#next++ : undefined;
  }

  /** Hand out nothing more: the pass failed, or is about to. */
  drain(): void {
    this.#next = this.jobs.length;
  }
}

async function runJobs(
  spec: WorkerSpec,
  jobs: RangeJob[],
  local: (job: RangeJob) => Promise<RangeScan>,
  workers: number,
): Promise<RangeScan[]> {
  const queue = new JobQueue(jobs);
  const helpers: Promise<void>[] = [];
  for (let i = 0; i < Math.min(workers, jobs.length - 1); i++) helpers.push(helper(spec, queue));
  try {
    for (let k = queue.take(); k !== undefined; k = queue.take()) {
      queue.scans[k] = await local(jobs[k]);
    }
  } catch (error) {
    queue.drain();
    await Promise.all(helpers);
    throw error;
  }
  await Promise.all(helpers);
  // A job a worker failed is run here first (its error is most likely the file's), then any
  // the queue held back after it (the worker's failure was its own).
  const missing = jobs.map((_, k) => k).filter((k) => !queue.scans[k]);
  missing.sort((a, b) => Number(queue.failed.includes(b)) - Number(queue.failed.includes(a)));
  for (const k of missing) queue.scans[k] = await local(jobs[k]);
  return queue.scans;
}

/** One worker thread taking jobs from `queue` until it is empty; never rejects. */
function helper(spec: WorkerSpec, queue: JobQueue): Promise<void> {
  return new Promise((resolve) => {
    let worker: Worker;
    try {
      worker = new Worker(spec.workerUrl, { workerData: { path: spec.abs } });
    } catch {
      resolve(); // no worker here: the calling thread takes every job
      return;
    }
    let current: number | undefined;
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      if (current !== undefined) queue.failed.push(current);
      current = undefined;
      worker.removeAllListeners();
      worker.on("error", () => {}); // late errors of a thread being stopped
      worker.terminate().then(() => resolve(), () => resolve());
    };
    const assign = () => {
      current = queue.take();
      if (current === undefined) finish();
      else worker.postMessage(queue.jobs[current]);
    };
    worker.on("message", (message: ScanWorkerMessage) => {
      if ("scan" in message && current !== undefined) {
        queue.scans[current] = message.scan;
        spec.onWorkerScan?.(queue.jobs[current]);
        assign();
      } else if ("ready" in message) assign();
      else {
        queue.drain(); // the range is bad: the file will not be accepted
        finish();
      }
    });
    worker.on("error", finish);
    worker.on("exit", finish);
  });
}
