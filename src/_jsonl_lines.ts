/**
 * Line splitting of JSONL sources (the codec's lower half, `jsonl.ts` the upper): records
 * are split on the byte 0x0A only (never on U+2028/U+2029) and decoded line by line from
 * bytes, so a stream of any size never becomes one string; a UTF-8 byte-order mark is
 * dropped from the first line only, a trailing `\r` from every line, blank lines are
 * skipped.
 *
 * @module
 */
import { concatBytes } from "./_bytes.ts";
import { SessionFormatError } from "./errors.ts";

/** One non-blank record of a JSONL source. */
export interface JsonlRecord {
  /** The line without its terminator (and without a trailing `\r`). */
  text: string;
  /** 1-based physical line number. */
  line: number;
  /** Byte offset of the line's first byte. */
  byteOffset: number;
  /** False for a final line that had no `\n` after it. */
  terminated: boolean;
  /**
   * The UTF-8 bytes of {@link text} exactly (valid UTF-8), when the source was bytes: a view
   * into the pushed chunk (or a join of the chunks a line spans), never copied otherwise.
   */
  bytes?: Uint8Array;
}

const utf8Encoder = new TextEncoder();

/**
 * The reason for a final line without a newline that does not parse (a cut-off write).
 *
 * @example
 * ```ts
 * import { TORN_FINAL_RECORD } from "./_jsonl_lines.ts";
 * TORN_FINAL_RECORD.startsWith("torn final record"); // true
 * ```
 */
export const TORN_FINAL_RECORD =
  "torn final record: the last line is incomplete JSON without a newline (the write was cut off); repair the file to drop it";

const REPLACEMENT_CHARACTER = "\ufffd";

/**
 * Native conversions of bytes to text a runtime lends the checking pass (Node's and Deno's
 * `node:buffer`, `stores/jsonl/_byte_text.ts`; see `LineShortcut`).
 *
 * @example
 * ```ts
 * import type { ByteText } from "./_jsonl_lines.ts";
 * const slow: ByteText = {
 *   latin1: (bytes) => String.fromCharCode(...bytes),
 *   isUtf8: (bytes) => { try { new TextDecoder("utf-8", { fatal: true }).decode(bytes); return true; } catch { return false; } },
 * };
 * ```
 */
export interface ByteText {
  /** The bytes as ISO-8859-1 text: char `i` is byte `i`. */
  latin1(bytes: Uint8Array): string;
  /** Whether the bytes are valid UTF-8 (asked of whole chunks: fast on large input). */
  isUtf8(bytes: Uint8Array): boolean;
}

/**
 * A way to take a line before it is decoded as UTF-8 (the checking pass's, in
 * `stores/jsonl/scan/_line_checks.ts`): decoding into two-byte strings is much of what the pass costs above
 * `JSON.parse`, and a line that is valid UTF-8 can be checked from its ISO-8859-1 text.
 *
 * @example
 * ```ts
 * import { JsonlLineSplitter, type LineShortcut } from "./_jsonl_lines.ts";
 * const shortcut: LineShortcut = {
 *   text: {
 *     latin1: (bytes) => String.fromCharCode(...bytes),
 *     isUtf8: (bytes) => bytes.every((byte) => byte < 0x80), // too strict, never wrong
 *   },
 *   take: (latin1) => latin1.startsWith("{"), // objects are handled elsewhere
 * };
 * const decoded: string[] = [];
 * const splitter = new JsonlLineSplitter((r) => decoded.push(r.text), undefined, undefined, shortcut);
 * splitter.push(new TextEncoder().encode('{"a":1}\n[2]\n'));
 * splitter.end(); // decoded: ["[2]"]
 * ```
 */
export interface LineShortcut {
  text: ByteText;
  /**
   * Take the line (valid UTF-8) given its ISO-8859-1 text (no line break, perhaps a
   * trailing `\r`) and the offset of its first byte; `false` leaves it to be decoded.
   */
  take(latin1: string, byteOffset: number): boolean;
}

/**
 * Splits bytes into records on 0x0A. Push chunks, then call {@link end}. Lines spanning
 * chunks are joined from their parts only once complete.
 *
 * @example
 * ```ts
 * import { JsonlLineSplitter } from "./_jsonl_lines.ts";
 * const lines: string[] = [];
 * const splitter = new JsonlLineSplitter((record) => lines.push(record.text));
 * splitter.push(new TextEncoder().encode('{"a":1}\r\n{"b"'));
 * splitter.push(new TextEncoder().encode(":2}"));
 * splitter.end(); // lines: ['{"a":1}', '{"b":2}']
 * ```
 */
export class JsonlLineSplitter {
  // ignoreBOM: each line is decoded on its own, and a decoder that strips a BOM would strip
  // one at the start of every line; only the file's first line may have one (`deliver`).
  // Lines are decoded without `fatal` (Chromium's fatal decoder took twice as long,
  // bench/README.md "imp12"); invalid UTF-8 always decodes to U+FFFD, so only a line that
  // contains U+FFFD is decoded again with `fatal` to tell a real U+FFFD from a bad byte.
  readonly #decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  readonly #strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  readonly #onRecord: (record: JsonlRecord) => void;
  #parts: Uint8Array[] = []; // never empty ones: a line's bytes so far
  #line = 1;
  #offset = 0; // byte offset of the current line's start
  #source?: string;
  readonly #shortcut?: LineShortcut;
  /** Where, in the chunk being split, the lines known to be valid UTF-8 start and end. */
  #validFrom = 0;
  #validTo = -1;

  /**
   * `start`: where the first pushed byte lies in the source, for a split that resumes
   * after a known line end (`byteOffset` of that byte, `line` its 1-based line number).
   * `shortcut`: offered every line that is valid UTF-8 before it is decoded.
   */
  constructor(
    onRecord: (record: JsonlRecord) => void,
    source?: string,
    start?: { byteOffset: number; line: number },
    shortcut?: LineShortcut,
  ) {
    this.#onRecord = onRecord;
    this.#source = source;
    this.#shortcut = shortcut;
    if (start) {
      this.#offset = start.byteOffset;
      this.#line = start.line;
    }
  }

  /** Where the next line starts: its byte offset and 1-based line number. */
  get position(): { byteOffset: number; line: number } {
    return { byteOffset: this.#offset, line: this.#line };
  }

  /** Feed the next chunk of bytes. */
  push(chunk: Uint8Array): void {
    let start = 0;
    if (this.#shortcut) this.#checkUtf8(chunk);
    while (start < chunk.length) {
      const newline = chunk.indexOf(10, start);
      if (newline === -1) {
        this.#parts.push(chunk.subarray(start));
        return;
      }
      const whole = this.#parts.length === 0 && start >= this.#validFrom &&
        newline <= this.#validTo;
      this.#emit(this.#take(chunk.subarray(start, newline)), true, whole);
      start = newline + 1;
    }
  }

  /**
   * Check the chunk's whole lines for valid UTF-8 in one call (per line, the calls cost
   * Deno more than the check): a UTF-8 character never spans a 0x0A, so the lines between
   * two line breaks are valid exactly when the bytes between them are.
   */
  #checkUtf8(chunk: Uint8Array): void {
    const first = this.#parts.length > 0 ? chunk.indexOf(10) + 1 : 0; // a line began before
    const last = chunk.lastIndexOf(10);
    const valid = first > 0 || this.#parts.length === 0
      ? last >= first && this.#shortcut!.text.isUtf8(chunk.subarray(first, last))
      : false;
    this.#validFrom = valid ? first : 0;
    this.#validTo = valid ? last : -1;
  }

  /** Flush the final line (one without a newline after it). */
  end(): void {
    if (this.#parts.length > 0) this.#emit(this.#take(new Uint8Array(0)), false);
  }

  #take(tail: Uint8Array): Uint8Array {
    if (this.#parts.length === 0) return tail;
    const bytes = concatBytes([...this.#parts, tail]);
    this.#parts = [];
    return bytes;
  }

  #emit(bytes: Uint8Array, terminated: boolean, validUtf8 = false): void {
    const line = this.#line++;
    const byteOffset = this.#offset;
    this.#offset += bytes.length + (terminated ? 1 : 0);
    const shortcut = this.#shortcut;
    if (shortcut && (validUtf8 || shortcut.text.isUtf8(bytes))) {
      if (shortcut.take(shortcut.text.latin1(bytes), byteOffset)) return;
    }
    let text = this.#decoder.decode(bytes);
    if (text.includes(REPLACEMENT_CHARACTER)) {
      try {
        text = this.#strict.decode(bytes);
      } catch {
        // A cut inside a multi-byte character is a torn write first: the torn-record rule wins.
        throw new SessionFormatError(terminated ? "line is not valid UTF-8" : TORN_FINAL_RECORD, {
          line,
          byteOffset,
          source: this.#source,
        });
      }
    }
    deliver(this.#onRecord, text, line, byteOffset, terminated, bytes);
  }
}

/** The byte-order mark U+FEFF as UTF-8. */
const BOM_BYTES = 3;

function deliver(
  onRecord: (record: JsonlRecord) => void,
  text: string,
  line: number,
  byteOffset: number,
  terminated: boolean,
  bytes?: Uint8Array,
): void {
  if (line === 1 && text.charCodeAt(0) === 0xfeff) {
    text = text.slice(1);
    bytes = bytes?.subarray(BOM_BYTES);
  }
  if (text.charCodeAt(text.length - 1) === 13) {
    text = text.slice(0, -1);
    bytes = bytes?.subarray(0, bytes.length - 1);
  }
  if (text.trim() === "") return;
  onRecord(
    bytes ? { text, line, byteOffset, terminated, bytes } : { text, line, byteOffset, terminated },
  );
}

/**
 * Split a string into records (same rules as the byte splitter; no `bytes`).
 *
 * @example
 * ```ts
 * import { splitJsonlString } from "./_jsonl_lines.ts";
 * splitJsonlString('{"a":1}\n\n{"b":2}', (record) => console.log(record.line)); // 1, 3
 * ```
 */
export function splitJsonlString(input: string, onRecord: (record: JsonlRecord) => void): void {
  let start = 0;
  let line = 1;
  let byteOffset = 0;
  let asciiOnly = true; // byte offsets are computed cheaply while the text stays ASCII
  while (start < input.length) {
    const newline = input.indexOf("\n", start);
    const end = newline === -1 ? input.length : newline;
    const text = input.slice(start, end);
    deliver(onRecord, text, line, byteOffset, newline !== -1);
    if (asciiOnly && /[\u0080-\uffff]/.test(text)) asciiOnly = false;
    byteOffset += (asciiOnly ? text.length : utf8Encoder.encode(text).length) + 1;
    line++;
    start = end + 1;
  }
}
