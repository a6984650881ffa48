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

  /**
   * `start`: where the first pushed byte lies in the source, for a split that resumes
   * after a known line end (`byteOffset` of that byte, `line` its 1-based line number).
   */
  constructor(
    onRecord: (record: JsonlRecord) => void,
    source?: string,
    start?: { byteOffset: number; line: number },
  ) {
    this.#onRecord = onRecord;
    this.#source = source;
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
    this.scanChunk(chunk, this.#parts.length > 0);
    while (start < chunk.length) {
      const newline = chunk.indexOf(10, start);
      if (newline === -1) {
        this.#parts.push(chunk.subarray(start));
        return;
      }
      const inChunk = this.#parts.length === 0;
      this.#emit(this.#take(chunk.subarray(start, newline)), true, inChunk ? start : -1);
      start = newline + 1;
    }
  }

  /**
   * Called with each chunk before it is split; `midLine` when a line began in an earlier
   * chunk. Nothing here: a hook for `ShortcutLineSplitter` (`_jsonl_shortcut.ts`), which
   * lives apart so the parser's bundles (the edge handler's) do not carry it.
   */
  protected scanChunk(_chunk: Uint8Array, _midLine: boolean): void {}

  /**
   * Offered every line before it is decoded (`at`: where it starts in the chunk being
   * split, -1 for a line joined from several chunks); `true` takes it, and it is not
   * decoded or delivered. Nothing here: the hook of `ShortcutLineSplitter`.
   */
  protected takeLine(_bytes: Uint8Array, _byteOffset: number, _at: number): boolean {
    return false;
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

  #emit(bytes: Uint8Array, terminated: boolean, at = -1): void {
    const line = this.#line++;
    const byteOffset = this.#offset;
    this.#offset += bytes.length + (terminated ? 1 : 0);
    if (this.takeLine(bytes, byteOffset, at)) return;
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
