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
 * the id, parent and context flags the index gives it, and a message span it gives must be
 * exactly the line's `message` value (its bytes are then copied into the answer as the
 * whole-body answer would serialise them). The object changing between requests
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
  type LoadedContext,
  planContextLoad,
  projectLoadedContext,
} from "./context_load.ts";
import { concatBytes } from "./_bytes.ts";
import { EntryNotFoundError } from "./errors.ts";
import { validateEntry } from "./_entry_check.ts";
import {
  EXPORT_INDEX_FORMAT,
  ExportIndexError,
  type ExportIndexFacts,
  type ParsedExportIndex,
  parseExportIndex,
} from "./export_index.ts";
import {
  BlockCache,
  type BlockSource,
  RangeReadError,
  readAtMost,
  verifiedWhole,
  WholeBody,
} from "./_range_blocks.ts";

export { ExportChangedError, type RangeGet, RangeReadError } from "./_range_blocks.ts";
import { type ParsedSession, parseSessionJsonlSync } from "./jsonl.ts";
import { projectPath, type SessionProjection } from "./projection.ts";
import type { CompactionEntry, SessionEntry, SessionHeader } from "./schema.ts";

/** Where the export and its index are, and the caller's limits. */
export interface RangeReadRequest extends BlockSource {
  /** The index's URL; default `<url>.idx`, whose absence (404, 403, 410) means "no index". */
  indexUrl?: string;
  /** The leaf; default the last entry in file order. */
  leafId?: string;
}

/** The whole-body answer's fields, read through the index. */
export interface RangeAnswer {
  header: SessionHeader;
  sourceVersion: number;
  upgraded: boolean;
  missingParentIds: string[];
  projection: SessionProjection;
  /** The entries the projection was built from, as a store's context-only load answers them. */
  context: LoadedContext;
  /**
   * Stored messages of those entries whose JSON text the whole-body answer writes is known as
   * verified bytes of the export (the index's `messages` spans): an answer may copy them
   * instead of serialising the objects again. Weak, so an answer written element by element
   * can let each go once written.
   */
  raw: WeakMap<object, Uint8Array>;
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
  | { kind: "whole"; index: ExportIndexFacts; body: AsyncIterable<Uint8Array> }
  | { kind: "none" };

const decoder = /* @__PURE__ */ new TextDecoder();
const NEWLINE = 0x0a;
const CLOSE_BRACE = 0x7d;

/** The export index, fetched whole; `undefined` when the conventional `<url>.idx` is absent. */
async function fetchIndex(request: RangeReadRequest): Promise<ParsedExportIndex | undefined> {
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
  const text = decoder.decode(await readAtMost(response, request.maxBytes, true));
  // A host that answers 200 for any path (a single-page app's fallback) has no index there;
  // a torn or altered index still names its format, and is refused below.
  if (probe && !text.includes(`"${EXPORT_INDEX_FORMAT}"`)) return undefined;
  return parseExportIndex(text);
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
    return { kind: "whole", index, body: verifiedWhole(body, index) };
  }
}

/** `undefined`: a format-1 export, which only a whole read can upgrade. */
async function answerFromRanges(
  index: ParsedExportIndex,
  cache: BlockCache,
  leafId: string | undefined,
): Promise<RangeAnswer | undefined> {
  const { count, parents, flags, offsets, lengths } = index;
  const lineOf = (entry: number): [number, number] => [offsets[entry], lengths[entry]];
  // Duplicate ids: the later entry wins lookups, as in SessionIndex.
  const leaf = leafId === undefined ? count - 1 : index.positionOf(leafId);
  const path: number[] = [];
  for (let at = leaf; at >= 0; at = parents[at]) {
    if (path.length > count) throw new ExportIndexError("the index's parents form a cycle");
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
  const header = parsedLines([headerLine], "the header line the index points at");
  if (header.sourceVersion < 2) return undefined;
  const plan: ContextPlan = planContextLoad(
    path.length,
    (i) => flags[path[i]],
    (i) => index.idAt(path[i]),
    (i) =>
      parsedLines([headerLine, cache.line(...lineOf(path[i]))], "the boundary line")
        .entries[0] as CompactionEntry,
  );
  const wanted = [...plan.prefix.map((i) => path[i]), ...path.slice(plan.start)];
  await cache.ensure(wanted.map(lineOf));
  // An upgraded export's objects are not its lines: nothing of it is copied.
  const raw = header.upgraded ? undefined : new WeakMap<object, Uint8Array>();
  const entries = parsedEntries(index, cache, headerLine, wanted, raw);
  const prefixLength = plan.prefix.length;
  let context: LoadedContext = {
    header: header.header,
    prefix: entries.slice(0, prefixLength),
    entries: entries.slice(prefixLength),
  };
  let projection = projectLoadedContext(context);
  if (!projection) {
    // A kept-tail tool result answers a call from before the tail: only the path decides.
    await cache.ensure(path.map(lineOf));
    context = {
      header: header.header,
      prefix: [],
      entries: parsedEntries(index, cache, headerLine, path, raw),
    };
    projection = projectPath(context.entries);
  }
  return {
    header: header.header,
    sourceVersion: header.sourceVersion,
    upgraded: header.upgraded,
    missingParentIds: index.missing,
    projection,
    context,
    raw: raw ?? new WeakMap(),
    bytesFetched: cache.bytesFetched,
    requests: cache.requests,
  };
}

const lineDecoder = /* @__PURE__ */ new TextDecoder("utf-8", { ignoreBOM: true });
const strictDecoder = /* @__PURE__ */ new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Bytes decoded as the parser decodes a line: without `fatal` (faster), and again with it
 * when U+FFFD shows, so that a bad byte (never in a line the parser accepts) throws.
 */
function lineText(bytes: Uint8Array): string {
  const text = lineDecoder.decode(bytes);
  return text.includes("\ufffd") ? strictDecoder.decode(bytes) : text;
}

/**
 * A line of a current-format export parsed as the whole read parses it (its text decoded as
 * the parser decodes a line, `JSON.parse`, the parser's own entry check). With a `messages`
 * span at `at`, the line is parsed as two texts, the line without the span's value and the
 * span, and its message mapped to the span's bytes in `raw`: the first parses as an object
 * only if `"message":` at `at` is its last top-level key, the span only if it is one value,
 * so together they are the line (else the index lies about it: refused).
 */
function currentEntry(
  line: Uint8Array,
  at: number,
  raw: WeakMap<object, Uint8Array>,
): SessionEntry {
  const span = line.subarray(at, line.length - 1);
  let entry: SessionEntry & { message?: unknown };
  let problem;
  try {
    if (!at) entry = JSON.parse(lineText(line));
    else {
      entry = JSON.parse(lineText(line.subarray(0, at)) + "null}");
      entry.message = JSON.parse(lineText(span));
      if (line[line.length - 1] !== CLOSE_BRACE) problem = "no closing brace";
    }
    problem ??= validateEntry(entry);
  } catch (cause) {
    problem = cause;
  }
  if (problem) {
    throw new ExportIndexError("a line the index points at does not parse as the index says", {
      cause: problem,
    });
  }
  const { message } = entry!;
  if (at && message !== null && typeof message === "object") raw.set(message, span);
  return entry!;
}

/**
 * Lines parsed as the whole read parses them. The index builder only indexes files the parser
 * accepts, so a refusal here means the index points at the wrong bytes.
 */
function parsedLines(lines: Uint8Array[], what: string): ParsedSession {
  try {
    return parseSessionJsonlSync(concatBytes(lines, NEWLINE), { retainRaw: false });
  } catch (cause) {
    throw new ExportIndexError(`${what} does not parse as the index says`, { cause });
  }
}

/**
 * The entries at these positions, parsed as the whole read parses them and checked against
 * the index; with `raw` (a current-format export), line by line ({@link currentEntry}), each
 * message with a span mapped to its bytes.
 */
function parsedEntries(
  index: ParsedExportIndex,
  cache: BlockCache,
  headerLine: Uint8Array,
  positions: number[],
  raw?: WeakMap<object, Uint8Array>,
): SessionEntry[] {
  const lines = positions.map((i) => cache.line(index.offsets[i], index.lengths[i]));
  // An older format is upgraded as a whole session: the parser's work.
  const entries = raw === undefined
    ? parsedLines([headerLine, ...lines], "a line the index points at").entries
    : lines.map((line, i) => currentEntry(line, index.messages[positions[i]], raw));
  positions.forEach((at, i) => {
    const entry = entries[i];
    const parent = index.parents[at];
    const parentRight = parent >= 0
      ? entry.parentId === index.idAt(parent)
      : entry.parentId === null || index.positionOf(entry.parentId) < 0;
    if (entry.id !== index.idAt(at) || !parentRight || contextFlags(entry) !== index.flags[at]) {
      throw new ExportIndexError(
        `the index does not describe entry ${entry.id} as the export has it`,
      );
    }
  });
  return entries;
}
