/**
 * The export index: a small sidecar (`<file>.jsonl.idx`) that travels with an exported session
 * to object storage so a reader holding only HTTP Range access can plan a context-only load
 * (which lines the projection of a leaf needs) and fetch just those bytes.
 *
 * A sidecar, not a trailer: the export stays plain JSONL that every other reader (pi, older mu,
 * `jq`) takes unchanged, and the index is one small object fetched whole before any range.
 *
 * The index cannot be trusted on its own (it is public, unkeyed data that sits next to the file
 * in a bucket). Its trust comes from what it says about the JSONL: the total length, the SHA-256
 * of the whole file, and SHA-256 digests of fixed-size blocks. A reader uses a byte only after
 * the block holding it hashed right, so a stale, swapped or foreign index can cost a refused
 * answer but never a wrong one. Every refusal is an {@link ExportIndexError}.
 *
 * Format (version 3) is one JSON object, documented in docs/edge.md and written and read by
 * `_export_index_wire.ts`: `format`, `version`, `length`, `digest`, `blockSize`, `blocks`
 * (hex SHA-256 per block), `header` ([offset, length] of the header line), and per entry in
 * file order `ids` (joined by newlines: an id the parser accepts holds no control character),
 * `parents` (how many entries back the parent is, 0 for a root or a parent not in the file),
 * `flags` (`contextFlags`), `gaps` (bytes skipped after the previous line's newline, 0 unless
 * blank lines sit between), `lengths` (the entry's line, without its newline), `messages`
 * (where the `message` value starts in a line that is exactly `JSON.stringify` of its entry
 * with `message` last, else 0: a reader copies that span into its answer instead of
 * serialising the message again) and `missing` (the session's `missingParentIds`, which no
 * subset of its lines can tell). Parsed, it becomes the absolute form {@link ExportIndex}
 * (positions and offsets).
 *
 * Only a session the full parser accepts is indexed (its lines valid, its parents acyclic),
 * so a reader that uses the index answers exactly what a whole-file read answers; a file the
 * parser refuses gets no index and is read whole, refused there with its own error.
 *
 * @module
 */
import { contextFlags } from "./context_load.ts";
import { SessionError, SessionFormatError } from "./errors.ts";
import { parseSessionJsonlSync } from "./jsonl.ts";
import { SessionIndex } from "./tree.ts";
import { sha256Hex } from "./_hex.ts";

export {
  type ParsedExportIndex,
  parseExportIndex,
  serializeExportIndex,
} from "./_export_index_wire.ts";

/** The `format` tag of an export index. */
export const EXPORT_INDEX_FORMAT = "mu-export-index";
/** The index version this code writes (1 had per-entry id strings and offsets; 2 no `messages`). */
export const EXPORT_INDEX_VERSION = 3;
/** Bytes per digested block: small enough that a context read fetches little beyond it. */
export const EXPORT_INDEX_BLOCK_SIZE = 64 * 1024;

/**
 * An export index is torn, foreign, of another version, internally inconsistent, or does not
 * describe the bytes it was checked against.
 *
 * @example
 * ```ts
 * import { ExportIndexError, parseExportIndex } from "./export_index.ts";
 * try { parseExportIndex("{"); } catch (e) { if (e instanceof ExportIndexError) console.log(e.message); }
 * ```
 */
export class ExportIndexError extends SessionError {
  override name = "ExportIndexError";
}

/**
 * A parsed, self-consistent export index: the sidecar's fields with each entry's id, parent
 * position (-1 for none) and line offset spelled out.
 */
export interface ExportIndex {
  format: typeof EXPORT_INDEX_FORMAT;
  version: number;
  length: number;
  digest: string;
  blockSize: number;
  blocks: string[];
  header: [number, number];
  ids: string[];
  parents: IndexNumbers;
  flags: IndexNumbers;
  offsets: IndexNumbers;
  lengths: IndexNumbers;
  /**
   * Byte offset of the `message` value inside the entry's line when the line is exactly
   * `JSON.stringify` of the entry and `message` is its last key (the value runs to the line's
   * closing brace), else 0.
   */
  messages: IndexNumbers;
  missing: string[];
}

/** What every index says, built or parsed (a parsed one looks its ids up in place). */
export type ExportIndexFacts = Omit<ExportIndex, "ids">;

/** Per-entry numbers: arrays when built, `Float64Array`s when parsed (off the heap). */
export type IndexNumbers = ArrayLike<number> & Iterable<number>;

// Pure: a reader that never builds an index (the edge handler) drops it.
const encoder = /* @__PURE__ */ new TextEncoder();

/**
 * Build the export index of an exported session's JSONL bytes.
 *
 * @example
 * ```ts
 * import { buildExportIndex } from "./export_index.ts";
 * const index = await buildExportIndex('{"type":"session","version":3,"id":"s"}\n');
 * index.ids.length; // 0
 * ```
 */
export async function buildExportIndex(jsonl: string | Uint8Array): Promise<ExportIndex> {
  const bytes = typeof jsonl === "string" ? encoder.encode(jsonl) : jsonl;
  const lines: Array<[number, number]> = [];
  for (let start = 0; start < bytes.length;) {
    let end = bytes.indexOf(0x0a, start);
    if (end < 0) end = bytes.length;
    if (end > start) lines.push([start, end - start]);
    start = end + 1;
  }
  if (lines.length === 0) throw new ExportIndexError("an export without a header line");
  let parsed;
  let tree;
  try {
    parsed = parseSessionJsonlSync(bytes, { retainRaw: false });
    tree = SessionIndex.build(parsed.entries);
  } catch (cause) {
    if (!(cause instanceof SessionFormatError)) throw cause;
    throw new ExportIndexError(`an export the parser refuses cannot be indexed: ${cause.message}`, {
      cause,
    });
  }
  const { entries } = parsed;
  if (entries.length !== lines.length - 1) {
    throw new ExportIndexError("an export with blank-looking lines cannot be indexed");
  }
  const position = new Map(entries.map((entry, i) => [entry.id, i]));
  const lineOf = (i: number) => lines[i + 1];
  const blocks: string[] = [];
  for (let at = 0; at < bytes.length; at += EXPORT_INDEX_BLOCK_SIZE) {
    blocks.push(await sha256Hex(bytes.subarray(at, at + EXPORT_INDEX_BLOCK_SIZE)));
  }
  return {
    format: EXPORT_INDEX_FORMAT,
    version: EXPORT_INDEX_VERSION,
    length: bytes.length,
    digest: await sha256Hex(bytes),
    blockSize: EXPORT_INDEX_BLOCK_SIZE,
    blocks,
    header: lines[0],
    ids: entries.map((entry) => entry.id),
    // A parent that is not in the file ends the path there, exactly like a root.
    parents: entries.map((entry) => position.get(entry.parentId ?? "") ?? -1),
    flags: entries.map(contextFlags),
    offsets: entries.map((_, i) => lineOf(i)[0]),
    lengths: entries.map((_, i) => lineOf(i)[1]),
    messages: entries.map((entry, i) => {
      const [offset, length] = lineOf(i);
      return messageOffset(entry, bytes.subarray(offset, offset + length));
    }),
    missing: tree.missingParentIds(),
  };
}

const MESSAGE_KEY = ',"message":';

/**
 * Where a line's `message` value starts, if a reader may copy it: the line is exactly what
 * `JSON.stringify` writes for the parsed entry (so the span is what the whole-body answer
 * writes for the message), and `message` is the last key (so the span ends at the line's
 * closing brace); else 0.
 */
function messageOffset(entry: object, line: Uint8Array): number {
  const keys = Object.keys(entry);
  if (
    keys[keys.length - 1] !== "message" ||
    typeof (entry as { message?: unknown }).message !== "object"
  ) {
    return 0;
  }
  const text = JSON.stringify(entry);
  const encoded = encoder.encode(text);
  if (encoded.length !== line.length || encoded.some((byte, i) => byte !== line[i])) return 0;
  // The last key's `,"message":` is the last occurrence: the value's own text escapes quotes.
  const value = JSON.stringify((entry as { message: unknown }).message);
  const at = text.length - 1 - value.length - MESSAGE_KEY.length;
  if (text.slice(at, at + MESSAGE_KEY.length) !== MESSAGE_KEY) return 0;
  // A byte offset: the text before the value may hold characters past ASCII.
  return encoder.encode(text.slice(0, at + MESSAGE_KEY.length)).length;
}

/**
 * Check one block's bytes against the index before using them.
 *
 * @example
 * ```ts
 * import { checkExportBlock, type ExportIndex } from "./export_index.ts";
 * declare const index: ExportIndex; declare const bytes: Uint8Array;
 * await checkExportBlock(index, 0, bytes);
 * ```
 */
export async function checkExportBlock(
  index: ExportIndexFacts,
  block: number,
  bytes: Uint8Array,
): Promise<void> {
  const expected = Math.min(index.blockSize, index.length - block * index.blockSize);
  if (block < 0 || block >= index.blocks.length || bytes.length !== expected) {
    throw new ExportIndexError(
      `block ${block} has ${bytes.length} bytes, the index says ${expected}`,
    );
  }
  if (await sha256Hex(bytes) !== index.blocks[block]) {
    throw new ExportIndexError(`block ${block} does not match the export index`);
  }
}

/**
 * Check a whole JSONL file against the index (length and digest): a file appended to, replaced
 * or belonging to another index is refused.
 *
 * @example
 * ```ts
 * import { buildExportIndex, checkExportFile } from "./export_index.ts";
 * const jsonl = '{"type":"session","version":3,"id":"s"}\n';
 * await checkExportFile(await buildExportIndex(jsonl), new TextEncoder().encode(jsonl));
 * ```
 */
export async function checkExportFile(
  index: ExportIndexFacts,
  bytes: Uint8Array,
): Promise<void> {
  if (bytes.length !== index.length) {
    throw new ExportIndexError(
      `the export has ${bytes.length} bytes, its index describes ${index.length}`,
    );
  }
  if (await sha256Hex(bytes) !== index.digest) {
    throw new ExportIndexError("the export's digest does not match its index");
  }
}
