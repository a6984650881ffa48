/**
 * The checking pass over one byte range of a JSONL session file: every line whose first
 * byte lies in the range is parsed and validated as the full parser does, and what the
 * context load and the lazy open need of it is kept in columns (id, parent, context flags,
 * byte offset), with the few entries a projection or the listing may need from anywhere.
 * What depends on the lines before the range (duplicate ids, parents written later, the
 * listing's order-dependent fields) is left to `ContextScanner.absorb` (`context_scan.ts`),
 * which takes the ranges in file order.
 *
 * A file is one range (the sequential pass), or several checked side by side: on Deno and
 * Node, by worker threads (`stores/jsonl/_scan_pool.ts`). Ranges need not start at a line:
 * a range owns the lines that start in it (a line starts at byte 0 or after a 0x0A), so a
 * line across a boundary is read by the range it starts in, and two ranges that meet at a
 * byte offset never both read, nor both miss, a line.
 *
 * Nothing here words an error: any doubt throws (`Unsure`, or the parse error), and the
 * store's full load then decides and words it.
 *
 * @module
 */
import {
  CONTEXT_SYSTEM,
  CONTEXT_THINKING,
  CONTEXT_VERBATIM,
  CONTEXT_WINDOW,
  contextFlags,
} from "./context_load.ts";
import { JsonlLineSplitter, type JsonlRecord } from "./_jsonl_lines.ts";
import { applyEntryToListing, emptyListingState, ORDER_DEPENDENT_TYPES } from "./listing.ts";
import { upgradeRecords } from "./migrate.ts";
import type { SessionEntry } from "./schema.ts";
import { validateEntry } from "./entry_check.ts";
import { BlockHasher, type Digest, type ScanColumns } from "./resume_index.ts";

/**
 * Thrown inside the pass to stop it; never escapes `scanContext` or the lazy scan.
 *
 * @example
 * ```ts
 * import { Unsure } from "./range_scan.ts";
 * new Unsure() instanceof Error; // true
 * ```
 */
export class Unsure extends Error {}

/** Entries kept whatever their position: few per session, and the plan may need any of them. */
const RARE = CONTEXT_THINKING | CONTEXT_WINDOW | CONTEXT_SYSTEM | CONTEXT_VERBATIM;

/**
 * One range of a file to check.
 *
 * @example
 * ```ts
 * import type { RangeJob } from "./range_scan.ts";
 * const whole: RangeJob = { start: 0 }; // the whole file, header first
 * const second: RangeJob = { start: 8 << 20, end: 16 << 20, blockBytes: 4 << 20 };
 * ```
 */
export interface RangeJob {
  /** Byte offset the range starts at. */
  start: number;
  /** Byte offset it ends at (exclusive); the file's end when absent. */
  end?: number;
  /** `start` is known to be a line start (a resumed pass); else the first line start from it. */
  aligned?: boolean;
  /** 1-based number of the line at `start` when `aligned` (error messages). */
  line?: number;
  /** Hash bytes `[start, end)` in blocks of this size (a resume index is to be written). */
  blockBytes?: number;
}

/**
 * What the pass found in one range, in columns (plain data: it crosses worker boundaries).
 *
 * @example
 * ```ts
 * import type { RangeScan } from "./range_scan.ts";
 * const empty: RangeScan = {
 *   start: 0, end: 0, lines: 0, newlineEnded: true, ids: [], parents: [], flags: [],
 *   offsets: [], labels: [], listing: { hasName: false, messageCount: 0, lastMessageMs: 0 },
 *   kept: [],
 * };
 * ```
 */
export interface RangeScan extends ScanColumns {
  /** Byte offset of the range's first line. */
  start: number;
  /** Byte offset after its last line: the next range's `start`. */
  end: number;
  /** Physical lines in `[start, end)`, blank ones included. */
  lines: number;
  /** Whether the range's bytes end with a line break (or it has none). */
  newlineEnded: boolean;
  /** The header record, for the range at byte 0. */
  header?: Record<string, unknown>;
  /** Entries kept whole, by position in this range (rare and listing-ordered ones). */
  kept: [number, SessionEntry][];
  /** SHA-256 (hex) of each `blockBytes` block of `[job.start, job.end)`, when asked. */
  digests?: string[];
  /** Bytes hashed into `digests`. */
  hashed?: number;
}

/** The per-line work of a range: parse, validate, keep the columns. */
class RangeScanner {
  readonly scan: RangeScan;
  #expectHeader: boolean;

  constructor(start: number, expectHeader: boolean) {
    this.#expectHeader = expectHeader;
    this.scan = {
      start,
      end: start,
      lines: 0,
      newlineEnded: true,
      ids: [],
      parents: [],
      flags: [],
      offsets: [],
      labels: [],
      listing: emptyListingState(),
      kept: [],
    };
  }

  readonly onRecord = (record: JsonlRecord): void => {
    const value = JSON.parse(record.text) as unknown; // a parse error: the full parser words it
    if (value === null || typeof value !== "object" || Array.isArray(value)) throw new Unsure();
    const scan = this.scan;
    if (this.#expectHeader) {
      const header = value as Record<string, unknown>;
      if (header.type !== "session") throw new Unsure();
      if (upgradeRecords(header, []).upgraded) throw new Unsure(); // older formats: full load
      scan.header = header;
      this.#expectHeader = false;
      return;
    }
    const entry = value as SessionEntry;
    if (validateEntry(entry)) throw new Unsure();
    const index = scan.ids.length;
    scan.ids.push(entry.id);
    scan.parents.push(entry.parentId);
    scan.offsets.push(record.byteOffset);
    const flags = contextFlags(entry);
    scan.flags.push(flags);
    if (entry.type === "label") scan.labels.push(index);
    applyEntryToListing(scan.listing, entry);
    // Nothing else is kept: holding even the entries since the last boundaries (5-10 % of
    // the 100k session) doubled the pass's time in garbage collection; the few entries a
    // context needs are read back by their offsets instead.
    if (flags & RARE || entry.type === "model_change" || ORDER_DEPENDENT_TYPES.has(entry.type)) {
      scan.kept.push([index, entry]);
    }
  };
}

/**
 * Check the lines of `job`'s range of the file `stream` reads. `onBytes` sees the bytes
 * `[job.start, job.end)` exactly, in order (hashing, keeping), whatever lines they hold.
 * The pass at byte 0 expects the header first.
 *
 * @example
 * ```ts
 * import { scanRange } from "./range_scan.ts";
 * const bytes = new TextEncoder().encode(
 *   '{"type":"session","version":4,"id":"s","createdAt":"2026-01-01T00:00:00.000Z"}\n' +
 *     '{"type":"label","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","targetId":"a"}\n',
 * );
 * const stream = async function* (from: number) { yield bytes.subarray(from); };
 * const scan = await scanRange(stream, { start: 0 });
 * scan.ids; // ["a"]
 * ```
 */
export async function scanRange(
  stream: (from: number) => AsyncIterable<Uint8Array>,
  job: RangeJob,
  onBytes?: (chunk: Uint8Array) => void,
  source?: string,
): Promise<RangeScan> {
  const { start, end } = job;
  const aligned = start === 0 || job.aligned === true;
  const scanner = new RangeScanner(start, start === 0);
  const scan = scanner.scan;
  // A range not known to start at a line reads from the byte before it: a line break there
  // makes `start` itself a line start.
  let position = aligned ? start : start - 1;
  let splitter: JsonlLineSplitter | undefined;
  let firstLine = 0;
  const open = (at: number) => {
    scan.start = at;
    // Line numbers only word errors, which the full parser words; 1 is the header's line.
    firstLine = aligned ? (job.line ?? 1) : 2;
    splitter = new JsonlLineSplitter(scanner.onRecord, source, { byteOffset: at, line: firstLine });
  };
  if (aligned) open(start);
  let fed = false; // the range's last line was fed (its line break at or after `end - 1`)
  let last = 10;
  for await (const chunk of stream(position)) {
    const chunkEnd = position + chunk.length;
    if (onBytes) {
      const from = Math.max(start, position) - position;
      const to = end === undefined ? chunk.length : Math.min(end, chunkEnd) - position;
      if (to > from) onBytes(chunk.subarray(from, to));
    }
    let from = 0;
    if (!splitter) {
      const newline = chunk.indexOf(10);
      if (newline !== -1) {
        open(position + newline + 1);
        from = newline + 1;
        if (end !== undefined && scan.start >= end) fed = true; // no line starts in the range
      }
    }
    if (splitter && !fed) {
      let to = chunk.length;
      if (end !== undefined && end - 1 - position < chunk.length) {
        const newline = chunk.indexOf(10, Math.max(from, end - 1 - position));
        if (newline !== -1) {
          to = newline + 1;
          fed = true;
        }
      }
      if (to > from) {
        splitter.push(chunk.subarray(from, to));
        last = chunk[to - 1];
      }
    }
    position = chunkEnd;
    if (fed && position >= end!) break;
  }
  if (!splitter) open(position); // no line starts from here to the file's end
  splitter!.end();
  const after = splitter!.position;
  scan.end = after.byteOffset;
  scan.lines = after.line - firstLine;
  scan.newlineEnded = last === 10;
  return scan;
}

/**
 * {@link scanRange} with the range's bytes hashed in blocks when `job.blockBytes` asks
 * (into `digests`): how a job runs on any thread.
 *
 * @example
 * ```ts
 * import { runRangeJob } from "./range_scan.ts";
 * const bytes = new TextEncoder().encode(
 *   '{"type":"session","version":4,"id":"s","createdAt":"2026-01-01T00:00:00.000Z"}\n',
 * );
 * const stream = async function* (from: number) { yield bytes.subarray(from); };
 * (await runRangeJob(stream, { start: 0, blockBytes: 4 << 20 })).digests?.length; // 1
 * ```
 */
export async function runRangeJob(
  stream: (from: number) => AsyncIterable<Uint8Array>,
  job: RangeJob,
  digest?: Digest,
  source?: string,
): Promise<RangeScan> {
  const hasher = job.blockBytes ? new BlockHasher(job.blockBytes, digest) : undefined;
  const scan = await scanRange(stream, job, hasher && ((chunk) => hasher.push(chunk)), source);
  if (hasher) {
    scan.digests = await hasher.digests();
    scan.hashed = hasher.length;
  }
  return scan;
}

/**
 * A backend's way to check the ranges of a large file side by side.
 *
 * @example
 * ```ts
 * import type { ParallelScan } from "./range_scan.ts";
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
 * import type { Hashed } from "./range_scan.ts";
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
 * import { type ParallelScan, scanInRanges } from "./range_scan.ts";
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
  reader: {
    stream(from: number): AsyncIterable<Uint8Array>;
    digest?: Digest;
    source?: string;
  },
  parallel: ParallelScan,
  size: number,
  blockBytes: number | undefined,
  absorb: (scan: RangeScan) => void,
): Promise<{ newlineEnded: boolean; hashed?: Hashed }> {
  const jobs = planRanges(size, parallel.rangeBytes ?? RANGE_BYTES, blockBytes);
  const local = (job: RangeJob) =>
    runRangeJob((from) => reader.stream(from), job, reader.digest, reader.source);
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
