/**
 * A worker thread of the parallel checking pass (`_scan_pool.ts`): checks the ranges of
 * one file it is handed, one at a time, reading the file itself (nothing of it crosses
 * threads but the compact columns of each range). It says `ready` once loaded, so ranges
 * go to threads that can start on them; a range it cannot check is reported, not retried:
 * the pool's own thread checks it again and raises the error.
 *
 * @module
 */
import { parentPort, workerData } from "node:worker_threads";
import { type RangeJob, runRangeJob } from "../../src/range_scan.ts";
import { readAhead } from "./_read_ahead.ts";
import { nodeDigest } from "./_digest.ts";
import { nodeByteText } from "./_byte_text.ts";

/** A message from a scan worker to its pool. */
export type ScanWorkerMessage =
  | { ready: true }
  | { scan: Awaited<ReturnType<typeof runRangeJob>> }
  | { failed: string };

const port = parentPort;
if (port) {
  const { path } = workerData as { path: string };
  const reply = (message: ScanWorkerMessage) => port.postMessage(message);
  port.on("message", async (job: RangeJob) => {
    try {
      const reader = { stream: (from: number) => readAhead(path, from), digest: nodeDigest };
      reply({ scan: await runRangeJob({ ...reader, text: nodeByteText }, job) });
    } catch (error) {
      reply({ failed: String(error) });
    }
  });
  reply({ ready: true });
}
