/**
 * The range reader's byte layer (`_range_reader.ts` plans what to read): the export's 64 KiB
 * blocks fetched by coalesced, parallel HTTP Range requests, each block used only after it
 * hashed to the export index's digest, with the checks that tell a changed object (ETag,
 * If-Match), a file the index does not describe (Content-Range length, digests, line
 * boundaries) and a server that misbehaves apart. Only `fetch`-shaped calls and WebCrypto.
 *
 * @module
 */
import { concatBytes } from "./_bytes.ts";
import { checkExportBlock, ExportIndexError, type ExportIndexFacts } from "./export_index.ts";
import { readableChunks } from "./jsonl.ts";

/** The export changed between two of the reader's requests (answer 409: retry). */
export class ExportChangedError extends ExportIndexError {
  override name = "ExportChangedError";
}

/** The server answered a range request wrongly, or the context needs more than the byte limit. */
export class RangeReadError extends ExportIndexError {
  override name = "RangeReadError";
  constructor(readonly tooLarge: boolean, message: string) {
    super(message);
  }
}

/**
 * A GET through the caller's policy (URL allowlist, no redirects, time limit): the reader
 * never fetches any other way.
 */
export type RangeGet = (
  url: string,
  headers: Record<string, string>,
  signal: AbortSignal,
) => Promise<Response>;

/** Where the export's bytes come from, and the caller's limits. */
export interface BlockSource {
  url: string;
  get: RangeGet;
  /** Most bytes of the export fetched for one answer (also the largest index). */
  maxBytes: number;
  signal: AbortSignal;
  /** Range requests in flight at once. */
  parallel?: number;
}

/** Blocks further apart than this many are fetched by separate requests. */
const GAP_BLOCKS = 2;
const NEWLINE = 0x0a;

/** A whole-export body passed on when the server ignores Range. */
export class WholeBody {
  constructor(readonly response: Response) {}
}

/** Verified blocks of one export, fetched by coalesced range requests. */
export class BlockCache {
  readonly blocks = new Map<number, Uint8Array>();
  etag: string | undefined;
  bytesFetched = 0;
  requests = 0;
  constructor(readonly index: ExportIndexFacts, readonly request: BlockSource) {}

  /** Fetch and verify every block holding these lines and the newlines around them. */
  async ensure(lines: Array<[number, number]>): Promise<void> {
    const { blockSize, length } = this.index;
    const wanted = new Set<number>();
    for (const [offset, size] of lines) {
      const first = Math.floor(Math.max(0, offset - 1) / blockSize);
      const last = Math.floor(Math.min(length - 1, offset + size) / blockSize);
      for (let block = first; block <= last; block++) {
        if (!this.blocks.has(block)) wanted.add(block);
      }
    }
    const sorted = [...wanted].sort((a, b) => a - b);
    const runs: Array<[number, number]> = [];
    for (const block of sorted) {
      const run = runs[runs.length - 1];
      if (run && block - run[1] <= GAP_BLOCKS) run[1] = block;
      else runs.push([block, block]);
    }
    let bytes = 0;
    for (const [first, last] of runs) bytes += this.#end(last) - first * blockSize;
    if (this.bytesFetched + bytes > this.request.maxBytes) {
      throw new RangeReadError(
        true,
        `the context needs more than ${this.request.maxBytes} bytes of the export`,
      );
    }
    const queue = runs.slice();
    const failures: unknown[] = [];
    const worker = async () => {
      for (let run = queue.shift(); run && !failures.length; run = queue.shift()) {
        await this.#fetchRun(run[0], run[1]).catch((error) => failures.push(error));
      }
    };
    const workers = Math.min(queue.length, this.request.parallel ?? 4);
    await Promise.all(Array.from({ length: workers }, worker));
    if (!failures.length) return;
    // A change seen on any answer explains every other failure of the round (a digest that
    // no longer matches, a new length), whichever answer arrived first.
    const whole = failures.filter((f) => f instanceof WholeBody);
    for (const extra of whole.slice(1)) await extra.response.body?.cancel();
    throw failures.find((f) => f instanceof ExportChangedError) ?? whole[0] ?? failures[0];
  }

  #end(block: number): number {
    return Math.min(this.index.length, (block + 1) * this.index.blockSize);
  }

  async #fetchRun(first: number, last: number): Promise<void> {
    const start = first * this.index.blockSize, end = this.#end(last);
    const headers: Record<string, string> = { range: `bytes=${start}-${end - 1}` };
    // If-Match takes strong validators only; a weak one is compared, never sent.
    if (this.etag && !this.etag.startsWith("W/")) headers["if-match"] = this.etag;
    this.requests++;
    const response = await this.request.get(this.request.url, headers, this.request.signal);
    if (response.status === 200) throw new WholeBody(response);
    const refusal = this.#refusal(response, start, end);
    if (refusal) {
      await response.body?.cancel();
      throw refusal;
    }
    const bytes = await readAtMost(response, end - start, false);
    this.bytesFetched += bytes.length;
    if (bytes.length !== end - start) {
      throw new RangeReadError(false, `a range of ${end - start} bytes brought ${bytes.length}`);
    }
    for (let block = first; block <= last; block++) {
      const at = (block - first) * this.index.blockSize;
      const data = bytes.subarray(at, at + this.index.blockSize);
      if (!this.blocks.has(block)) {
        await checkExportBlock(this.index, block, data);
        this.blocks.set(block, data);
      }
    }
  }

  /** What is wrong with a range answer's status and headers, if anything. */
  #refusal(response: Response, start: number, end: number): ExportIndexError | undefined {
    const { status, headers } = response;
    if (status === 412) {
      return new ExportChangedError("the export changed while it was read (If-Match failed)");
    }
    if (status === 416) {
      return new ExportIndexError("the export is shorter than its index describes");
    }
    if (status !== 206) {
      return new RangeReadError(false, `a range of the export answered HTTP ${status}`);
    }
    const etag = headers.get("etag");
    if (etag !== null && etag !== (this.etag ??= etag)) {
      return new ExportChangedError("the export changed while it was read (its ETag changed)");
    }
    const range = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(headers.get("content-range")?.trim() ?? "");
    if (!range) return new RangeReadError(false, "a 206 answer without a single Content-Range");
    if (range[3] !== "*" && Number(range[3]) !== this.index.length) {
      return new ExportIndexError(
        `the export has ${range[3]} bytes, its index describes ${this.index.length}`,
      );
    }
    if (Number(range[1]) !== start || Number(range[2]) !== end - 1) {
      return new RangeReadError(
        false,
        `asked for bytes ${start}-${end - 1}, got ${range[1]}-${range[2]}`,
      );
    }
  }

  /** A verified line's bytes, checked to sit between newlines where the index says. */
  line(offset: number, size: number): Uint8Array {
    const { blockSize, length } = this.index;
    const blockAt = (at: number) => this.blocks.get(Math.floor(at / blockSize))!;
    const parts: Uint8Array[] = [];
    for (let at = offset; at < offset + size;) {
      const from = at % blockSize;
      const part = blockAt(at).subarray(from, from + offset + size - at);
      parts.push(part);
      at += part.length;
    }
    const out = concatBytes(parts);
    const byteAt = (at: number) => blockAt(at)[at % blockSize];
    const before = offset === 0 || byteAt(offset - 1) === NEWLINE;
    const after = offset + size === length || byteAt(offset + size) === NEWLINE;
    if (!before || !after || out.includes(NEWLINE)) {
      throw new ExportIndexError(`the index's line at byte ${offset} is not a line of the export`);
    }
    return out;
  }
}

/** A body read whole, failing once it passes `limit` bytes (`tooLarge`: a limit of ours, not the server's promise). */
export async function readAtMost(
  response: Response,
  limit: number,
  tooLarge: boolean,
): Promise<Uint8Array> {
  const body = response.body!;
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of readableChunks(body)) {
    size += chunk.length;
    if (size > limit) break;
    chunks.push(chunk);
  }
  if (size > limit) {
    await body.cancel(); // the loop above has let go of it
    throw new RangeReadError(tooLarge, `an answer passed ${limit} bytes`);
  }
  return concatBytes(chunks);
}

/**
 * The chunks of a whole-export body, each passed on only after every byte in it belongs to a
 * block that hashed right, and the total length checked at the end.
 */
export async function* verifiedWhole(
  body: ReadableStream<Uint8Array>,
  index: ExportIndexFacts,
): AsyncGenerator<Uint8Array> {
  try {
    yield* verifiedBlocks(readableChunks(body), index);
  } finally {
    body.cancel().catch(() => {}); // stopped early: download no more of it
  }
}

async function* verifiedBlocks(
  chunks: AsyncIterable<Uint8Array>,
  index: ExportIndexFacts,
): AsyncGenerator<Uint8Array> {
  let block = 0;
  let pending: Uint8Array[] = [];
  let size = 0;
  const flush = async () => {
    const bytes = concatBytes(pending);
    await checkExportBlock(index, block++, bytes);
    pending = [];
    size = 0;
    return bytes;
  };
  for await (let chunk of chunks) {
    while (chunk.length) {
      const take = Math.min(chunk.length, index.blockSize - size);
      pending.push(chunk.subarray(0, take));
      size += take;
      chunk = chunk.subarray(take);
      if (size === index.blockSize) yield await flush();
    }
  }
  if (size) yield await flush();
  if (block !== index.blocks.length) {
    throw new ExportIndexError(`the export ended after ${block} of ${index.blocks.length} blocks`);
  }
}
