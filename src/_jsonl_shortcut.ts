/**
 * The checking pass's way past UTF-8 decoding (`stores/jsonl/scan/_line_checks.ts`): a
 * {@link JsonlLineSplitter} that offers each line that is valid UTF-8 as ISO-8859-1 text
 * before decoding it. Apart from the splitter so that the parser's own bundles (the edge
 * handler's, the viewer's) do not carry it.
 *
 * @module
 */
import { JsonlLineSplitter, type JsonlRecord } from "./_jsonl_lines.ts";

/**
 * Native conversions of bytes to text a runtime lends the checking pass (Node's and Deno's
 * `node:buffer`, `stores/jsonl/_byte_text.ts`; see `LineShortcut`).
 *
 * @example
 * ```ts
 * import type { ByteText } from "./_jsonl_shortcut.ts";
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
 * import { type LineShortcut, ShortcutLineSplitter } from "./_jsonl_shortcut.ts";
 * const shortcut: LineShortcut = {
 *   text: {
 *     latin1: (bytes) => String.fromCharCode(...bytes),
 *     isUtf8: (bytes) => bytes.every((byte) => byte < 0x80), // too strict, never wrong
 *   },
 *   take: (latin1) => latin1.startsWith("{"), // objects are handled elsewhere
 * };
 * const decoded: string[] = [];
 * const splitter = new ShortcutLineSplitter((r) => decoded.push(r.text), shortcut);
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
 * A {@link JsonlLineSplitter} that offers every line that is valid UTF-8 to
 * `shortcut.take` before decoding it; the lines it takes are neither decoded nor delivered.
 *
 * @example
 * ```ts
 * import { ShortcutLineSplitter } from "./_jsonl_shortcut.ts";
 * const text = {
 *   latin1: (bytes: Uint8Array) => String.fromCharCode(...bytes),
 *   isUtf8: (bytes: Uint8Array) => bytes.every((byte) => byte < 0x80),
 * };
 * const taken: number[] = [];
 * const splitter = new ShortcutLineSplitter(() => {}, {
 *   text,
 *   take: (_latin1, byteOffset) => taken.push(byteOffset) > 0,
 * });
 * splitter.push(new TextEncoder().encode('{"a":1}\n{"b":2}\n'));
 * splitter.end(); // taken: [0, 8]
 * ```
 */
export class ShortcutLineSplitter extends JsonlLineSplitter {
  readonly #shortcut: LineShortcut;
  /** Where, in the chunk being split, the lines known to be valid UTF-8 start and end. */
  #validFrom = 0;
  #validTo = -1;

  /** `source` and `start` as for {@link JsonlLineSplitter}. */
  constructor(
    onRecord: (record: JsonlRecord) => void,
    shortcut: LineShortcut,
    source?: string,
    start?: { byteOffset: number; line: number },
  ) {
    super(onRecord, source, start);
    this.#shortcut = shortcut;
  }

  /**
   * Check the chunk's whole lines for valid UTF-8 in one call (per line, the calls cost
   * Deno more than the check): a UTF-8 character never spans a 0x0A, so the lines between
   * two line breaks are valid exactly when the bytes between them are.
   */
  protected override scanChunk(chunk: Uint8Array, midLine: boolean): void {
    const first = midLine ? chunk.indexOf(10) + 1 : 0; // a line began before
    const last = chunk.lastIndexOf(10);
    const valid = first > 0 || !midLine
      ? last >= first && this.#shortcut.text.isUtf8(chunk.subarray(first, last))
      : false;
    this.#validFrom = valid ? first : 0;
    this.#validTo = valid ? last : -1;
  }

  protected override takeLine(bytes: Uint8Array, byteOffset: number, at: number): boolean {
    const { text, take } = this.#shortcut;
    const known = at >= this.#validFrom && at + bytes.length <= this.#validTo;
    return (known || text.isUtf8(bytes)) && take(text.latin1(bytes), byteOffset);
  }
}
