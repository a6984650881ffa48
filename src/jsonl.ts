/**
 * Streaming JSONL codec for session files.
 *
 * Records are split on the byte 0x0A only (never on U+2028/U+2029), decoded line by line
 * from bytes, so a stream of any size never becomes one string. Rules of the format: the
 * first record is the session header; blank lines and a UTF-8 byte-order mark are
 * tolerated; a complete final record without a newline is accepted; a torn final record,
 * invalid JSON, structurally invalid entries and unknown or future versions are rejected
 * with a {@link SessionFormatError} carrying line, byte offset and reason.
 *
 * The raw text of every parsed record is remembered (keyed by the parsed object), so an
 * unchanged entry is written back byte for byte.
 *
 * @module
 */
import { unparseableLineReason } from "./_line_reason.ts";
import { JsonlLineSplitter, type JsonlRecord, splitJsonlString } from "./_jsonl_lines.ts";
import { rawTextFromBytes, rememberRawBytes } from "./_raw_bytes.ts";
import { SessionFormatError, SessionStorageError } from "./errors.ts";
import { MAX_NESTING_DEPTH, nestsDeeperThan } from "./_wellformed.ts";
import { upgradeRecords } from "./_migrate.ts";
import type { SessionEntry, SessionHeader } from "./schema.ts";
// Validation without zod, so the parser (and the edge handler) never evaluates it.
import { entryTypeLabel, headerProblem, validateEntry } from "./_entry_check.ts";

// ---------------------------------------------------------------- raw text keeping

const rawJson = new WeakMap<object, string>();

/** Remember the exact JSON text `value` was parsed from. */
export function rememberRawJson(value: object, text: string): void {
  rawJson.set(value, text);
}

/** The exact JSON text a parsed record came from, if it was parsed and not replaced. */
export function rawJsonOf(value: object): string | undefined {
  return rawJson.get(value);
}

/**
 * One record as JSON text (no newline): its original text when it was parsed and not
 * replaced, otherwise `JSON.stringify`. Entries are treated as immutable values: to change
 * one, build a new object. A value that cannot be stored as a JSON object (a BigInt, a
 * cycle, a `toJSON` that yields no object) throws `SessionStorageError`, so every store
 * refuses it before writing instead of storing text no reader can load.
 *
 * @param what names the value in the error ("entry 2", "header").
 * @example
 * ```ts
 * import { toJsonLine } from "./jsonl.ts";
 * toJsonLine({ type: "custom" }); // '{"type":"custom"}'
 * ```
 */
export function toJsonLine(value: object, what = "record"): string {
  const raw = rawJson.get(value) ?? rawTextFromBytes(value);
  if (raw !== undefined) return raw; // it parsed as an object when it was remembered
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new SessionStorageError(`The ${what} cannot be stored as JSON: ${detail}`, {
      cause: error,
    });
  }
  // JSON.stringify never starts an object with white space.
  if (typeof text !== "string" || text.charCodeAt(0) !== 0x7b /* { */) {
    throw new SessionStorageError(`The ${what} is not stored as a JSON object`);
  }
  return text;
}

// ---------------------------------------------------------------- line splitting

// The splitter lives in `_jsonl_lines.ts`; re-exported for the stores that scan files.
export { JsonlLineSplitter, type JsonlRecord } from "./_jsonl_lines.ts";

// ---------------------------------------------------------------- session assembly

/**
 * A parsed session.
 *
 * @example
 * ```ts
 * import { type ParsedSession, parseSessionJsonl } from "@mu/sessions";
 * const parsed: ParsedSession = await parseSessionJsonl(
 *   '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}\n',
 * );
 * parsed.sourceVersion; // 3
 * parsed.upgraded; // true: the header and entries are format 4 now
 * ```
 */
export interface ParsedSession {
  header: SessionHeader;
  /** Entries in file order, upgraded to format 4. */
  entries: SessionEntry[];
  /** The version the source was written in (1-4). */
  sourceVersion: number;
  /** True when the source was an older format and was upgraded in memory. */
  upgraded: boolean;
}

/**
 * Options for {@link parseSessionJsonl}.
 *
 * @example
 * ```ts
 * import { parseSessionJsonl, type ParseOptions } from "@mu/sessions";
 * declare const file: ReadableStream<Uint8Array>;
 * const options: ParseOptions = {
 *   source: "/sessions/s1.jsonl", // named in SessionFormatError messages
 *   onProgress: (bytes) => console.log(`${bytes} bytes read`),
 *   signal: AbortSignal.timeout(10_000),
 * };
 * const { entries } = await parseSessionJsonl(file, options);
 * ```
 */
export interface ParseOptions {
  /** File path or label used in error messages. */
  source?: string;
  /**
   * Keep each record's original text for byte-identical export (default true).
   * `"bytes"`: keep its original UTF-8 bytes instead (byte input only; text input keeps
   * text): half the memory of two-byte strings, and the SQLite store in a browser
   * (`stores/sqlite/wasm.ts`) binds them as they are. The input's chunks are kept by
   * reference, so a source must not reuse a chunk's buffer after handing it over.
   */
  retainRaw?: boolean | "bytes";
  /** Called with the number of bytes consumed so far (stream input). */
  onProgress?: (bytesRead: number) => void;
  /** Stop reading a stream; rejects with the signal's reason. */
  signal?: AbortSignal;
}

/**
 * Collects records into a session; shared by the sync and async entry points.
 */
class RecordAssembler {
  header?: Record<string, unknown>;
  headerLine = 0;
  entries: Record<string, unknown>[] = [];
  lines: number[] = [];
  offsets: number[] = [];
  /** Characters of the entries collected since the last `takeEntries`. */
  pendingChars = 0;
  constructor(readonly options: ParseOptions) {}

  readonly onRecord = (record: JsonlRecord): void => {
    const { source } = this.options;
    let value: unknown;
    try {
      value = JSON.parse(record.text);
    } catch (error) {
      const reason = unparseableLineReason(record.text, record.terminated, error);
      throw new SessionFormatError(reason, {
        line: record.line,
        byteOffset: record.byteOffset,
        source,
      });
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      throw new SessionFormatError("record is not a JSON object", {
        line: record.line,
        byteOffset: record.byteOffset,
        source,
      });
    }
    const { retainRaw } = this.options;
    if (retainRaw === "bytes" && record.bytes) rememberRawBytes(value, record.bytes);
    else if (retainRaw !== false) rawJson.set(value, record.text);
    if (!this.header) {
      if ((value as { type?: unknown }).type !== "session") {
        throw new SessionFormatError('first record is not a session header (type "session")', {
          line: record.line,
          byteOffset: record.byteOffset,
          source,
        });
      }
      this.header = value as Record<string, unknown>;
      this.headerLine = record.line;
      return;
    }
    this.entries.push(value as Record<string, unknown>);
    this.lines.push(record.line);
    this.offsets.push(record.byteOffset);
    this.pendingChars += record.text.length;
  };

  finish(): ParsedSession {
    const { source } = this.options;
    if (!this.header) throw new SessionFormatError("empty source: no session header", { source });
    const upgrade = upgradeAt(this, this.header, this.entries);
    checkHeader(this, upgrade.header);
    checkEntries(this, upgrade.entries);
    return {
      header: upgrade.header as SessionHeader,
      entries: upgrade.entries as unknown as SessionEntry[],
      sourceVersion: upgrade.sourceVersion,
      upgraded: upgrade.upgraded,
    };
  }
}

/**
 * A {@link RecordAssembler} that can also hand entries over as they come (a streaming
 * read: `streamableHeader`, `takeEntries`). Its own class, so bundles that only parse
 * whole sessions (the edge handler's) do not carry it.
 */
export class SessionAssembler extends RecordAssembler {
  /**
   * The checked header once it has been read, when the session is in the current format
   * (its entries can then be handed over unchanged as they come); undefined before the
   * header or for an older format, which is upgraded as a whole by `finish`.
   */
  streamableHeader(): SessionHeader | undefined {
    if (!this.header) return undefined;
    const upgrade = upgradeAt(this, this.header, []);
    if (upgrade.upgraded) return undefined;
    checkHeader(this, upgrade.header);
    return upgrade.header as SessionHeader;
  }

  /** The entries collected so far, checked as `finish` checks them, and forgotten here. */
  takeEntries(): SessionEntry[] {
    const entries = this.entries;
    checkEntries(this, entries);
    this.entries = [];
    this.lines = [];
    this.offsets = [];
    this.pendingChars = 0;
    return entries as unknown as SessionEntry[];
  }
}

/** The records upgraded; a version error is placed on the header's line. */
function upgradeAt(
  at: RecordAssembler,
  header: Record<string, unknown>,
  entries: Record<string, unknown>[],
) {
  try {
    return upgradeRecords(header, entries, at.options.source);
  } catch (error) {
    if (error instanceof SessionFormatError) {
      throw new SessionFormatError(error.reason, {
        line: at.headerLine,
        source: at.options.source,
      });
    }
    throw error;
  }
}

function checkHeader(at: RecordAssembler, header: Record<string, unknown>): void {
  const { source } = at.options;
  if (nestsDeeperThan(header, MAX_NESTING_DEPTH)) {
    throw new SessionFormatError(
      `invalid session header: nests arrays and objects deeper than ${MAX_NESTING_DEPTH} levels`,
      { line: at.headerLine, source },
    );
  }
  const problem = headerProblem(header);
  if (problem) {
    throw new SessionFormatError(`invalid session header: ${problem}`, {
      line: at.headerLine,
      source,
    });
  }
}

/** Entry `i` is the one read at `at.lines[i]`. */
function checkEntries(at: RecordAssembler, entries: readonly Record<string, unknown>[]): void {
  for (let i = 0; i < entries.length; i++) {
    const problem = validateEntry(entries[i]);
    if (problem) {
      throw new SessionFormatError(
        `invalid ${entryTypeLabel(entries[i])} entry: ${problem}`,
        {
          line: at.lines[i],
          byteOffset: at.offsets[i],
          source: at.options.source,
        },
      );
    }
  }
}

/**
 * Parse a whole session from a string or bytes, synchronously.
 *
 * @example
 * ```ts
 * import { parseSessionJsonlSync } from "@mu/sessions";
 * const { header, entries } = parseSessionJsonlSync(
 *   '{"type":"session","version":4,"id":"s","createdAt":"2026-01-01T00:00:00.000Z","cwd":"/p"}\n',
 * );
 * ```
 */
export function parseSessionJsonlSync(
  input: string | Uint8Array,
  options: ParseOptions = {},
): ParsedSession {
  const assembler = new RecordAssembler(options);
  if (typeof input === "string") {
    splitJsonlString(input, assembler.onRecord);
  } else {
    const splitter = new JsonlLineSplitter(assembler.onRecord, options.source);
    splitter.push(input);
    splitter.end();
  }
  return assembler.finish();
}

/**
 * Parse a session from a string, bytes, or a byte stream (decoded line by line; a large
 * file is never held as one string). Older formats are upgraded in memory.
 *
 * @example
 * ```ts
 * import { parseSessionJsonl } from "@mu/sessions";
 * const response = new Response('{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}\n');
 * const parsed = await parseSessionJsonl(response.body!);
 * parsed.sourceVersion; // 3
 * parsed.upgraded; // true
 * ```
 */
export async function parseSessionJsonl(
  input: string | Uint8Array | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>,
  options: ParseOptions = {},
): Promise<ParsedSession> {
  if (typeof input === "string" || input instanceof Uint8Array) {
    return parseSessionJsonlSync(input, options);
  }
  const assembler = new RecordAssembler(options);
  const splitter = new JsonlLineSplitter(assembler.onRecord, options.source);
  let bytesRead = 0;
  const chunks = Symbol.asyncIterator in input ? input : readableChunks(input);
  for await (const chunk of chunks as AsyncIterable<Uint8Array>) {
    if (options.signal?.aborted) throw options.signal.reason;
    splitter.push(chunk);
    bytesRead += chunk.length;
    options.onProgress?.(bytesRead);
  }
  splitter.end();
  return assembler.finish();
}

/**
 * The chunks of a byte stream as an async iterator (not every runtime makes
 * `ReadableStream` async-iterable), releasing the reader when iteration stops.
 *
 * @example
 * ```ts
 * import { readableChunks } from "./jsonl.ts";
 * for await (const chunk of readableChunks(new Response("abc").body!)) console.log(chunk.length);
 * ```
 */
export async function* readableChunks(
  stream: ReadableStream<Uint8Array>,
): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

/**
 * Serialize a session as format-4 JSONL: one record per line, each ending in `\n`.
 * Records that were parsed and not replaced are written as their original text.
 *
 * @example
 * ```ts
 * import { parseSessionJsonlSync, serializeSessionJsonl } from "@mu/sessions";
 * const text = '{"type":"session","version":4,"id":"s","createdAt":"2026-01-01T00:00:00.000Z","cwd":"/p"}\n';
 * const { header, entries } = parseSessionJsonlSync(text);
 * serializeSessionJsonl(header, entries) === text; // true
 * ```
 */
export function serializeSessionJsonl(
  header: SessionHeader,
  entries: readonly SessionEntry[],
): string {
  return toJsonLine(header, "header") + "\n" + serializeEntries(entries);
}

/** Serialize entries (no header) as JSONL lines, each ending in `\n`. */
export function serializeEntries(entries: readonly object[]): string {
  let out = "";
  entries.forEach((entry, i) => out += toJsonLine(entry, `entry ${i + 1}`) + "\n");
  return out;
}
