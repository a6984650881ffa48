/**
 * The range reader: the projection of one leaf of an exported session read over HTTP Range
 * requests, guided by its export index (`export_index.ts`), so a reader with little memory
 * answers for a session of any size by fetching the index and the few blocks the context
 * needs. Only `fetch`-shaped calls, `Response` and WebCrypto: it runs in edge isolates,
 * browsers, Deno and Node alike.
 *
 * The index is trusted for nothing by itself. Every byte read is used only after the 64 KiB
 * block holding it hashed to the index's digest; every Content-Range must name the length the
 * index describes; every line read must sit between newlines where the index says and carry
 * the id, parent and context flags the index gives it. The object changing between requests
 * is caught by its ETag (compared on every response, sent as If-Match once known) and, when
 * a server sends none, by the digests. What the reader cannot check without reading the whole
 * file is what the index says about lines it did not read; the index is bound to the file by
 * its digests, so that is the publisher's word about its own file, never a mix of two files.
 *
 * Errors: {@link ExportIndexError} when the index or the bytes do not describe one file,
 * {@link ExportChangedError} when the object changed between requests, {@link RangeReadError}
 * for a server that misbehaves or a context over the byte limit.
 *
 * @module
 */
import {
  CONTEXT_VERBATIM,
  contextFlags,
  type ContextPlan,
  planContextLoad,
  projectLoadedContext,
} from "./context_load.ts";
import { EntryNotFoundError } from "./errors.ts";
import {
  checkExportBlock,
  type ExportIndex,
  ExportIndexError,
  parseExportIndex,
} from "./export_index.ts";
import { parseSessionJsonlSync } from "./jsonl.ts";
import { projectPath, type SessionProjection } from "./projection.ts";
import type { CompactionEntry, SessionEntry, SessionHeader } from "./schema.ts";

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

/** Where the export and its index are, and the caller's limits. */
export interface RangeReadRequest {
  url: string;
  /** The index's URL; default `<url>.idx`, whose absence (404, 403, 410) means "no index". */
  indexUrl?: string;
  /** The leaf; default the last entry in file order. */
  leafId?: string;
  get: RangeGet;
  /** Largest index, and most bytes of the export fetched for one answer. */
  maxBytes: number;
  signal: AbortSignal;
  /** Range requests in flight at once. */
  parallel?: number;
}

/** The whole-body answer's fields, read through the index. */
export interface RangeAnswer {
  header: SessionHeader;
  sourceVersion: number;
  upgraded: boolean;
  missingParentIds: string[];
  projection: SessionProjection;
  /** Bytes of the export fetched (the index not counted), and the requests that fetched them. */
  bytesFetched: number;
  requests: number;
}

/**
 * What {@link readExportContext} found: the answer; or `whole`, the server ignored Range and
 * sent the whole export, whose chunks are yielded only after their block hashed right; or
 * `none`, no index (or a format-1 export, whose ids exist only after reading all of it).
 */
export type RangeRead =
  | { kind: "answer"; answer: RangeAnswer }
  | { kind: "whole"; index: ExportIndex; body: AsyncIterable<Uint8Array> }
  | { kind: "none" };

/** Blocks further apart than this many are fetched by separate requests. */
const GAP_BLOCKS = 2;
const NEWLINE = 0x0a;
const decoder = new TextDecoder();

/** A whole-export body passed on when the server ignores Range. */
class WholeBody {
  constructor(readonly response: Response) {}
}

/** Verified blocks of one export, fetched by coalesced range requests. */
class BlockCache {
  readonly blocks = new Map<number, Uint8Array>();
  etag: string | undefined;
  bytesFetched = 0;
  requests = 0;
  constructor(readonly index: ExportIndex, readonly request: RangeReadRequest) {}

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
    if (response.status !== 206) {
      await response.body?.cancel();
      if (response.status === 412) {
        throw new ExportChangedError("the export changed while it was read (If-Match failed)");
      }
      if (response.status === 416) {
        throw new ExportIndexError("the export is shorter than its index describes");
      }
      throw new RangeReadError(false, `a range of the export answered HTTP ${response.status}`);
    }
    this.#checkEtag(response.headers.get("etag"));
    const range = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(
      response.headers.get("content-range")?.trim() ?? "",
    );
    if (!range) {
      await response.body?.cancel();
      throw new RangeReadError(false, "a 206 answer without a single Content-Range");
    }
    if (range[3] !== "*" && Number(range[3]) !== this.index.length) {
      await response.body?.cancel();
      throw new ExportIndexError(
        `the export has ${range[3]} bytes, its index describes ${this.index.length}`,
      );
    }
    if (Number(range[1]) !== start || Number(range[2]) !== end - 1) {
      await response.body?.cancel();
      throw new RangeReadError(
        false,
        `asked for bytes ${start}-${end - 1}, got ${range[1]}-${range[2]}`,
      );
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

  #checkEtag(etag: string | null) {
    if (etag === null) return;
    if (this.etag === undefined) this.etag = etag;
    else if (this.etag !== etag) {
      throw new ExportChangedError("the export changed while it was read (its ETag changed)");
    }
  }

  /** A verified line's bytes, checked to sit between newlines where the index says. */
  line(offset: number, size: number): Uint8Array {
    const out = new Uint8Array(size);
    const { blockSize, length } = this.index;
    for (let at = offset; at < offset + size;) {
      const block = this.blocks.get(Math.floor(at / blockSize))!;
      const from = at % blockSize;
      const take = Math.min(block.length - from, offset + size - at);
      out.set(block.subarray(from, from + take), at - offset);
      at += take;
    }
    const byteAt = (at: number) => this.blocks.get(Math.floor(at / blockSize))![at % blockSize];
    const before = offset === 0 || byteAt(offset - 1) === NEWLINE;
    const after = offset + size === length || byteAt(offset + size) === NEWLINE;
    if (!before || !after || out.includes(NEWLINE)) {
      throw new ExportIndexError(`the index's line at byte ${offset} is not a line of the export`);
    }
    return out;
  }
}

/** A body read whole, failing once it passes `limit` bytes (`tooLarge`: a limit of ours, not the server's promise). */
async function readAtMost(
  response: Response,
  limit: number,
  tooLarge: boolean,
): Promise<Uint8Array> {
  const reader = response.body!.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel();
      throw new RangeReadError(tooLarge, `an answer passed ${limit} bytes`);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) out.set(chunk, at), at += chunk.length;
  return out;
}

/**
 * The chunks of a whole-export body, each passed on only after every byte in it belongs to a
 * block that hashed right, and the total length checked at the end.
 */
async function* verifiedWhole(
  chunks: AsyncIterable<Uint8Array>,
  index: ExportIndex,
): AsyncGenerator<Uint8Array> {
  let block = 0;
  let pending: Uint8Array[] = [];
  let size = 0;
  const flush = async () => {
    const bytes = new Uint8Array(size);
    let at = 0;
    for (const chunk of pending) bytes.set(chunk, at), at += chunk.length;
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

/** The export index, fetched whole; `undefined` when the conventional `<url>.idx` is absent. */
async function fetchIndex(request: RangeReadRequest): Promise<ExportIndex | undefined> {
  const probe = request.indexUrl === undefined;
  const response = await request.get(request.indexUrl ?? `${request.url}.idx`, {}, request.signal);
  // S3 answers 403 for a missing key when listing is not public.
  if (probe && [403, 404, 410].includes(response.status)) {
    await response.body?.cancel();
    return undefined;
  }
  if (response.status !== 200) {
    await response.body?.cancel();
    throw new RangeReadError(false, `the export index answered HTTP ${response.status}`);
  }
  const bytes = await readAtMost(response, request.maxBytes, true);
  return parseExportIndex(decoder.decode(bytes));
}

/** Joins lines into JSONL text for the parser, header first. */
function jsonlOf(lines: Uint8Array[]): Uint8Array {
  let size = 0;
  for (const line of lines) size += line.length + 1;
  const out = new Uint8Array(size);
  let at = 0;
  for (const line of lines) {
    out.set(line, at), out[at + line.length] = NEWLINE, at += line.length + 1;
  }
  return out;
}

/**
 * Read the projection of `leafId` from an export and its index by HTTP Range requests (see
 * the module comment for what is checked). An unknown leaf is an `EntryNotFoundError`.
 *
 * @example
 * ```ts
 * import { readExportContext } from "./_range_reader.ts";
 * const read = await readExportContext({
 *   url: "https://exports.example.com/s1.jsonl",
 *   get: (url, headers, signal) => fetch(url, { headers, signal, redirect: "manual" }),
 *   maxBytes: 32 << 20,
 *   signal: AbortSignal.timeout(10_000),
 * });
 * if (read.kind === "answer") console.log(read.answer.projection.messages.length);
 * ```
 */
export async function readExportContext(request: RangeReadRequest): Promise<RangeRead> {
  const index = await fetchIndex(request);
  if (!index) return { kind: "none" };
  const cache = new BlockCache(index, request);
  try {
    const answer = await answerFromRanges(index, cache, request.leafId);
    return answer ? { kind: "answer", answer } : { kind: "none" };
  } catch (error) {
    if (!(error instanceof WholeBody)) throw error;
    const body = error.response.body;
    if (!body) throw new RangeReadError(false, "the export answered 200 without a body");
    if (index.length > request.maxBytes) {
      await body.cancel();
      throw new RangeReadError(
        true,
        `the server ignores Range requests and the export is larger than ${request.maxBytes} bytes`,
      );
    }
    return { kind: "whole", index, body: verifiedWhole(chunksOf(body), index) };
  }
}

async function* chunksOf(body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

/** `undefined`: a format-1 export, which only a whole read can upgrade. */
async function answerFromRanges(
  index: ExportIndex,
  cache: BlockCache,
  leafId: string | undefined,
): Promise<RangeAnswer | undefined> {
  const { ids, parents, flags, offsets, lengths } = index;
  const lineOf = (entry: number): [number, number] => [offsets[entry], lengths[entry]];
  // Duplicate ids: the later entry wins lookups, as in SessionIndex.
  const leaf = leafId === undefined ? ids.length - 1 : ids.lastIndexOf(leafId);
  const path: number[] = [];
  for (let at = leaf; at >= 0; at = parents[at]) {
    if (path.length > ids.length) throw new ExportIndexError("the index's parents form a cycle");
    path.push(at);
  }
  path.reverse();
  let boundary = -1;
  for (let i = path.length - 1; i >= 0 && boundary < 0; i--) {
    if (flags[path[i]] & CONTEXT_VERBATIM) boundary = i;
  }
  // First round: the header and the path from the last boundary (all of it without one).
  const tail = path.slice(Math.max(0, boundary));
  await cache.ensure([index.header, ...tail.map(lineOf)]);
  const headerLine = cache.line(index.header[0], index.header[1]);
  if (leafId !== undefined && leaf < 0) throw new EntryNotFoundError(leafId);
  const header = parseSessionJsonlSync(jsonlOf([headerLine]), { retainRaw: false });
  if (header.sourceVersion < 2) return undefined;
  const plan: ContextPlan = planContextLoad(
    path.length,
    (i) => flags[path[i]],
    (i) => ids[path[i]],
    (i) => JSON.parse(decoder.decode(cache.line(...lineOf(path[i])))) as CompactionEntry,
  );
  const wanted = [...plan.prefix.map((i) => path[i]), ...path.slice(plan.start)];
  await cache.ensure(wanted.map(lineOf));
  const entries = parsedEntries(index, cache, headerLine, wanted);
  const prefixLength = plan.prefix.length;
  let projection = projectLoadedContext({
    header: header.header,
    prefix: entries.slice(0, prefixLength),
    entries: entries.slice(prefixLength),
  });
  if (!projection) {
    // A kept-tail tool result answers a call from before the tail: only the path decides.
    await cache.ensure(path.map(lineOf));
    projection = projectPath(parsedEntries(index, cache, headerLine, path));
  }
  return {
    header: header.header,
    sourceVersion: header.sourceVersion,
    upgraded: header.upgraded,
    missingParentIds: index.missing,
    projection,
    bytesFetched: cache.bytesFetched,
    requests: cache.requests,
  };
}

/** The entries at these positions, parsed as the whole read parses them and checked against the index. */
function parsedEntries(
  index: ExportIndex,
  cache: BlockCache,
  headerLine: Uint8Array,
  positions: number[],
): SessionEntry[] {
  const lines = positions.map((i) => cache.line(index.offsets[i], index.lengths[i]));
  let entries: SessionEntry[];
  try {
    entries = parseSessionJsonlSync(jsonlOf([headerLine, ...lines]), { retainRaw: false }).entries;
  } catch (cause) {
    throw new ExportIndexError("a line the index points at does not parse", { cause });
  }
  positions.forEach((at, i) => {
    const entry = entries[i];
    const parent = index.parents[at];
    const parentRight = parent >= 0
      ? entry.parentId === index.ids[parent]
      : entry.parentId === null || !index.ids.includes(entry.parentId);
    if (entry.id !== index.ids[at] || !parentRight || contextFlags(entry) !== index.flags[at]) {
      throw new ExportIndexError(
        `the index does not describe entry ${entry.id} as the export has it`,
      );
    }
  });
  return entries;
}
