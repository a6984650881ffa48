/**
 * The checking pass over a JSONL session file from a line start to its end: every line is
 * parsed and validated as the full parser does, and what the context load and the lazy open
 * need of it is kept in columns (id, parent, context flags, byte offset), with the few
 * entries a projection or the listing may need from anywhere. What depends on the lines
 * before the start (duplicate ids, parents written later, the listing's order-dependent
 * fields, when the pass resumes after a resume index) is left to `ContextScanner.absorb`
 * (`_scan.ts`).
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
} from "../../../src/context_load.ts";
import { JsonlLineSplitter, type JsonlRecord } from "../../../src/_jsonl_lines.ts";
import { type ByteText, ShortcutLineSplitter } from "../../../src/_jsonl_shortcut.ts";
import {
  applyEntryToListing,
  emptyListingState,
  ORDER_DEPENDENT_TYPES,
} from "../../../src/_listing.ts";
import { upgradeRecords } from "../../../src/_migrate.ts";
import type { SessionEntry } from "../../../src/schema.ts";
import { validateEntry } from "../../../src/_entry_check.ts";
import type { ScanColumns } from "./_resume_index.ts";

export type { ByteText } from "../../../src/_jsonl_shortcut.ts";

/**
 * Thrown inside the pass to stop it; never escapes `scanContext` or the lazy scan.
 *
 * @example
 * ```ts
 * import { Unsure } from "./_line_checks.ts";
 * new Unsure() instanceof Error; // true
 * ```
 */
export class Unsure extends Error {}

/** Entries kept whatever their position: few per session, and the plan may need any of them. */
const RARE = CONTEXT_THINKING | CONTEXT_WINDOW | CONTEXT_SYSTEM | CONTEXT_VERBATIM;

/**
 * Where the pass starts: at byte 0 (the header first), or where a resume index left off.
 *
 * @example
 * ```ts
 * import type { RangeJob } from "./_line_checks.ts";
 * const whole: RangeJob = { start: 0 }; // the whole file, header first
 * const resumed: RangeJob = { start: 4096, line: 12 }; // after the indexed lines
 * ```
 */
export interface RangeJob {
  /** Byte offset the pass starts at: a line start. */
  start: number;
  /** 1-based number of the line at `start` (error messages). */
  line?: number;
}

/**
 * What the pass found from its start to the end of the file, in columns.
 *
 * @example
 * ```ts
 * import type { RangeScan } from "./_line_checks.ts";
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
  /** Byte offset after its last line. */
  end: number;
  /** Physical lines in `[start, end)`, blank ones included. */
  lines: number;
  /** Whether the range's bytes end with a line break (or it has none). */
  newlineEnded: boolean;
  /** The header record, for the range at byte 0. */
  header?: Record<string, unknown>;
  /** Entries kept whole, by position in this range (rare and listing-ordered ones). */
  kept: [number, SessionEntry][];
  /** Lines checked from their ISO-8859-1 text (`RangeReader.text`), when any were. */
  taken?: number;
}

/** How a range's bytes are read. */
export interface RangeReader {
  /** The file's bytes from `from`, streamed. */
  stream(from: number): AsyncIterable<Uint8Array>;
  /** The file as shown to people (error messages). */
  source?: string;
  /**
   * Native conversions of bytes to text. With them, a line that is valid UTF-8 is parsed
   * from its ISO-8859-1 text (one char per byte: a one-byte string, no UTF-8 decoding),
   * which parses exactly when its UTF-8 text does: JSON's syntax is ASCII, and every other
   * byte only ever stands inside a string. Such a line is taken when what the pass keeps
   * of it is ASCII (its id, parent, timestamp) and its text is not read (the listing's
   * first message, the entries kept whole); every other line is decoded as UTF-8. Kept
   * because it saves more than a tenth of a large file's first open on Deno and Node
   * (`bench/first_open_ab.ts`; the figures are in bench/README.md).
   */
  text?: ByteText;
}

/** Whether `value` is an ASCII string (a short one: ids, timestamps). */
function ascii(value: string): boolean {
  for (let i = 0; i < value.length; i++) if (value.charCodeAt(i) > 0x7f) return false;
  return true;
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
    if (this.#expectHeader) {
      const header = value as Record<string, unknown>;
      if (header.type !== "session") throw new Unsure();
      if (upgradeRecords(header, []).upgraded) throw new Unsure(); // older formats: full load
      this.scan.header = header;
      this.#expectHeader = false;
      return;
    }
    const entry = value as SessionEntry;
    if (validateEntry(entry)) throw new Unsure();
    const flags = contextFlags(entry);
    this.#add(entry, flags, record.byteOffset);
  };

  /**
   * A line of valid UTF-8 parsed from its ISO-8859-1 text (`RangeReader.text`); `false`
   * when anything the pass keeps could differ from its UTF-8 text, or it does not check
   * (then the decoded line decides, and words any error).
   */
  readonly take = (latin1: string, byteOffset: number): boolean => {
    if (this.#expectHeader) return false;
    let value: unknown;
    try {
      value = JSON.parse(latin1);
    } catch {
      return false;
    }
    if (validateEntry(value)) return false; // not an object too
    const entry = value as SessionEntry;
    // Messages only: the listing reads other entries' text (names, summaries).
    if (entry.type !== "message" || !ascii(entry.id) || !ascii(entry.timestamp)) return false;
    if (entry.parentId !== null && !ascii(entry.parentId)) return false;
    const listing = this.scan.listing;
    if (listing.firstMessage === undefined && entry.message.role === "user") return false;
    const flags = contextFlags(entry);
    if (flags & RARE) return false; // kept whole
    this.#add(entry, flags, byteOffset);
    this.scan.taken = (this.scan.taken ?? 0) + 1;
    return true;
  };

  #add(entry: SessionEntry, flags: number, byteOffset: number): void {
    const scan = this.scan;
    const index = scan.ids.length;
    scan.ids.push(entry.id);
    scan.parents.push(entry.parentId);
    scan.offsets.push(byteOffset);
    scan.flags.push(flags);
    if (entry.type === "label") scan.labels.push(index);
    applyEntryToListing(scan.listing, entry);
    // Nothing else is kept: holding even the entries since the last boundaries (a few
    // percent of a large session) doubled the pass's time in garbage collection; the few
    // entries a context needs are read back by their offsets instead.
    if (flags & RARE || entry.type === "model_change" || ORDER_DEPENDENT_TYPES.has(entry.type)) {
      scan.kept.push([index, entry]);
    }
  }
}

/**
 * Check the lines of the file `reader` streams from `job.start` to its end. `onBytes` sees
 * every byte from `job.start` on, in order (hashing, keeping). The pass at byte 0 expects
 * the header first.
 *
 * @example
 * ```ts
 * import { scanRange } from "./_line_checks.ts";
 * const bytes = new TextEncoder().encode(
 *   '{"type":"session","version":4,"id":"s","createdAt":"2026-01-01T00:00:00.000Z"}\n' +
 *     '{"type":"label","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","targetId":"a"}\n',
 * );
 * const stream = async function* (from: number) { yield bytes.subarray(from); };
 * const scan = await scanRange({ stream }, { start: 0 });
 * scan.ids; // ["a"]
 * ```
 */
export async function scanRange(
  reader: RangeReader,
  job: RangeJob,
  onBytes?: (chunk: Uint8Array) => void,
): Promise<RangeScan> {
  const { start } = job;
  const { source, text } = reader;
  const scanner = new RangeScanner(start, start === 0);
  const scan = scanner.scan;
  // Line numbers only word errors, which the full parser words; 1 is the header's line.
  const firstLine = job.line ?? 1;
  const from = { byteOffset: start, line: firstLine };
  const splitter = text
    ? new ShortcutLineSplitter(scanner.onRecord, { text, take: scanner.take }, source, from)
    : new JsonlLineSplitter(scanner.onRecord, source, from);
  let last = 10;
  for await (const chunk of reader.stream(start)) {
    onBytes?.(chunk);
    if (chunk.length === 0) continue;
    splitter.push(chunk);
    last = chunk[chunk.length - 1];
  }
  splitter.end();
  const after = splitter.position;
  scan.end = after.byteOffset;
  scan.lines = after.line - firstLine;
  scan.newlineEnded = last === 10;
  return scan;
}
