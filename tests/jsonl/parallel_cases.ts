/**
 * The parallel checking pass on worker threads (`stores/jsonl/_scan_pool.ts`), for Deno and
 * Node alike: a session file checked in ranges by worker threads and the calling thread
 * holds what one pass holds and leaves the same resume index; a worker that cannot start
 * leaves every range to the calling thread, with the same answer; an invalid entry in a
 * range a worker checks still declines the file (the full load then words the error), a file
 * renamed over during the pass is not trusted, and no worker outlives the pass (a test runner
 * would hang on one).
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { assert, assertEquals, assertRejects } from "../conformance/assert.ts";
import { removeDir, tempDir } from "./subjects.ts";
import { serializeSessionJsonl, SessionFormatError, SessionManager } from "../../core.ts";
import { JsonlSessionStore } from "../../stores/jsonl/store.ts";
import { type ParallelScan, scanContext, type ScanFile } from "../../src/context_scan.ts";
import { scanLazy } from "../../src/lazy_scan.ts";
import { NodeJsonlFolderFs } from "../../stores/jsonl/fs.ts";
import { resumeIndexPath, scanFileOf } from "../../stores/jsonl/_resume.ts";
import { scanPool } from "../../stores/jsonl/_scan_pool.ts";
import { decodeResumeIndex } from "../../src/resume_index.ts";
import { generatedSession } from "../unit/context_sessions.ts";

const NAME = "big.jsonl";
/** Ranges of 16 KiB: the 1,500-entry session is about 60 of them. */
const RANGE_BYTES = 16 << 10;
/** The longest the calling thread waits for a worker's first range. */
const WAIT_FOR_WORKER_MS = 30_000;

/**
 * A pool of `workers` over the file, counting the ranges each side checked. With `waitForWorker`,
 * the calling thread starts only once a worker has checked a range (or 30 s passed), so the
 * test sees workers at work however slowly they start (`deno test` type-checks their module).
 */
function counted(
  abs: string,
  workers: number,
  options: { workerUrl?: URL; waitForWorker?: boolean; beforeLocal?: () => void } = {},
) {
  const counts = { jobs: 0, local: 0, remote: 0 };
  let started: () => void;
  const workerStarted = new Promise<void>((resolve) => started = resolve);
  const timer = setTimeout(() => started(), options.waitForWorker ? WAIT_FOR_WORKER_MS : 0);
  const pool = scanPool(abs, {
    workers,
    workerUrl: options.workerUrl,
    onWorkerScan: () => (counts.remote++, started()),
  })!;
  const parallel: ParallelScan = {
    minBytes: 0,
    rangeBytes: RANGE_BYTES,
    async run(jobs, local) {
      counts.jobs = jobs.length;
      try {
        return await pool.run(jobs, async (job) => {
          options.beforeLocal?.();
          counts.local++;
          await workerStarted;
          return await local(job);
        });
      } finally {
        clearTimeout(timer);
      }
    },
  };
  return { parallel, counts };
}

/** The file as the store hands it to the pass, indexed however small, `parallel` if given. */
function fileOf(fs: NodeJsonlFolderFs, parallel?: ParallelScan): ScanFile {
  const file = scanFileOf(fs, NAME, true);
  return { ...file, index: { ...file.index!, minBytes: 0, blockBytes: 4096 }, parallel };
}

/** The resume index at `path`, but the file identity (recorded once the file is 2 s old). */
async function indexAt(path: string) {
  const index = await decodeResumeIndex(readFileSync(path));
  assert(index, "a valid index");
  return { ...index, identity: undefined };
}

/** Everything a lazy open of `file` holds (bodies read by offset), or undefined. */
async function holds(file: ScanFile, fs: NodeJsonlFolderFs) {
  const readSync = (start: number, end: number) => fs.readSync(NAME, start, end);
  const lazy = await scanLazy(file, { key: NAME, readSync });
  if (!lazy) return undefined;
  const s = lazy.session;
  const bodies = s.ids.map((_, i) => s.read(i));
  return [s.header, s.ids, s.parents, s.flags, s.listing, s.labelPositions(), bodies];
}

/** Register the cases with `register` (Deno.test or node:test), names prefixed. */
export function parallelScanCases(
  register: (name: string, fn: () => Promise<void>) => void,
  prefix: string,
): void {
  register(`${prefix}: worker threads check a file as one pass does`, async () => {
    const dir = await tempDir();
    try {
      const { header, entries } = generatedSession(1_500, 91);
      writeFileSync(join(dir, NAME), serializeSessionJsonl(header, entries));
      const fs = new NodeJsonlFolderFs(dir);
      const indexPath = join(dir, resumeIndexPath(NAME));
      const expected = await holds(fileOf(fs), fs);
      assert(expected, "one pass accepts the file");
      const singleIndex = await indexAt(indexPath);
      rmSync(indexPath);

      const { parallel, counts } = counted(join(dir, NAME), 2, { waitForWorker: true });
      assertEquals(await holds(fileOf(fs, parallel), fs), expected);
      assert(counts.jobs > 40, `checked in ranges (${counts.jobs})`);
      assert(counts.remote > 0, `workers checked some ranges (${JSON.stringify(counts)})`);
      assertEquals(counts.local + counts.remote, counts.jobs, "every range once");
      assertEquals(await indexAt(indexPath), singleIndex, "the same resume index");
    } finally {
      await removeDir(dir);
    }
  });

  register(`${prefix}: a worker that cannot start leaves its ranges to this thread`, async () => {
    const dir = await tempDir();
    try {
      const { header, entries } = generatedSession(600, 92);
      writeFileSync(join(dir, NAME), serializeSessionJsonl(header, entries));
      const fs = new NodeJsonlFolderFs(dir);
      const expected = await holds(scanFileOf(fs, NAME, false), fs);
      const missing = new URL("./no_such_scan_worker.mjs", import.meta.url);
      const { parallel, counts } = counted(join(dir, NAME), 2, { workerUrl: missing });
      const file = { ...scanFileOf(fs, NAME, false), parallel };
      assertEquals(await holds(file, fs), expected);
      assertEquals(counts.local, counts.jobs, "every range was checked here");
    } finally {
      await removeDir(dir);
    }
  });

  register(`${prefix}: an invalid entry in a worker's range declines the file`, async () => {
    const dir = await tempDir();
    try {
      const { header, entries } = generatedSession(1_500, 93);
      const lines = serializeSessionJsonl(header, entries).trimEnd().split("\n");
      const at = lines.length - 3; // near the end: a range the calling thread is slow to reach
      lines[at] = JSON.stringify({ ...JSON.parse(lines[at]), timestamp: 7 });
      writeFileSync(join(dir, NAME), lines.join("\n") + "\n");
      const fs = new NodeJsonlFolderFs(dir);
      const { parallel } = counted(join(dir, NAME), 2, { waitForWorker: true });
      const file = { ...scanFileOf(fs, NAME, true), parallel };
      assertEquals(await scanContext(file, undefined), undefined);
      assertEquals(await scanContext(scanFileOf(fs, NAME, false), undefined), undefined);
    } finally {
      await removeDir(dir);
    }
  });

  register(`${prefix}: a file renamed over during the pass is not trusted`, async () => {
    const dir = await tempDir();
    try {
      const { header, entries } = generatedSession(1_500, 94);
      const text = serializeSessionJsonl(header, entries);
      writeFileSync(join(dir, NAME), text);
      const fs = new NodeJsonlFolderFs(dir);
      let replaced = false;
      const beforeLocal = () => {
        if (replaced) return;
        replaced = true; // the same bytes, a new file: ranges may come from either
        writeFileSync(join(dir, "next.jsonl"), text);
        renameSync(join(dir, "next.jsonl"), join(dir, NAME));
      };
      const { parallel } = counted(join(dir, NAME), 1, { beforeLocal });
      assertEquals(await scanContext(fileOf(fs, parallel), undefined), undefined);
      assert(replaced);
      assert(await scanContext(fileOf(fs, counted(join(dir, NAME), 1).parallel), undefined));
    } finally {
      await removeDir(dir);
    }
  });

  register(
    `${prefix}: through the store, a bad line a worker found is the full parser's error`,
    async () => {
      const dir = await tempDir();
      try {
        const { header, entries } = generatedSession(1_500, 95);
        const lines = serializeSessionJsonl(header, entries).trimEnd().split("\n");
        const at = lines.length - 5;
        lines[at] = JSON.stringify({ ...JSON.parse(lines[at]), parentId: 42 });
        const text = lines.join("\n") + "\n";
        writeFileSync(join(dir, NAME), text);
        /** The folder backend with workers for any file, in small ranges. */
        class WorkerFs extends NodeJsonlFolderFs {
          override parallelScan(path: string): ParallelScan | undefined {
            const pool = scanPool(join(dir, path), { workers: 1 })!;
            return { ...pool, minBytes: 0, rangeBytes: RANGE_BYTES };
          }
        }
        const store = new JsonlSessionStore(new WorkerFs(dir));
        try {
          const error = await assertRejects(
            () => SessionManager.open(store, header.id),
            SessionFormatError,
          );
          assertEquals(error.line, at + 1, "the line the full parser names");
        } finally {
          await store.close();
        }
        assertEquals(readFileSync(join(dir, NAME), "utf8"), text, "the file is untouched");
      } finally {
        await removeDir(dir);
      }
    },
  );
}
