/**
 * The checking pass's native conversions of bytes to text on Deno and Node (`node:buffer`),
 * which the file-system backend (`fs.ts`) lends the pass through its private backend object
 * (`_backend.ts`).
 *
 * @module
 */
import { Buffer, isUtf8 } from "node:buffer";
import type { ByteText } from "./scan/_line_checks.ts";

type Latin1Slice = (this: Uint8Array, start: number, end: number) => string;
/**
 * `Buffer`'s own ISO-8859-1 conversion, called on any `Uint8Array`: what `toString`
 * ends in, without making each line a `Buffer` first (a measurable part of a large pass).
 * Not documented, so the documented way stands in when a runtime lacks it.
 */
const latin1Slice = (Buffer.prototype as unknown as { latin1Slice?: Latin1Slice }).latin1Slice;

/**
 * ISO-8859-1 text of bytes and a UTF-8 check (simdutf on Node): both run at memory speed,
 * where `TextDecoder` makes a two-byte string of any line with one non-ASCII character.
 *
 * @example
 * ```ts
 * import { nodeByteText } from "./_byte_text.ts";
 * nodeByteText.latin1(new Uint8Array([0x7b, 0xc3, 0xa9, 0x7d])); // "{Ã©}"
 * nodeByteText.isUtf8(new Uint8Array([0xc3, 0xa9])); // true
 * nodeByteText.isUtf8(new Uint8Array([0xc3])); // false
 * ```
 */
export const nodeByteText: ByteText = {
  latin1: latin1Slice
    ? (bytes) => latin1Slice.call(bytes, 0, bytes.length)
    : (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("latin1"),
  isUtf8: (bytes) => isUtf8(bytes),
};
