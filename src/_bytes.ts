/**
 * Byte buffers joined into one: what the JSONL line splitter does with a line that spans
 * chunks and the range reader with the chunks of an answer, its blocks and its lines, in one
 * routine.
 *
 * @module
 */

/**
 * The parts joined into one new buffer, with `separator` after each part when given; one
 * part with no separator is returned as it is (no copy).
 *
 * @example
 * ```ts
 * import { concatBytes } from "./_bytes.ts";
 * concatBytes([new Uint8Array([1]), new Uint8Array([2, 3])]); // Uint8Array [1, 2, 3]
 * concatBytes([new Uint8Array([1]), new Uint8Array([2])], 10); // Uint8Array [1, 10, 2, 10]
 * ```
 */
export function concatBytes(parts: readonly Uint8Array[], separator?: number): Uint8Array {
  const extra = separator === undefined ? 0 : 1;
  if (parts.length === 1 && !extra) return parts[0];
  let size = 0;
  for (const part of parts) size += part.length + extra;
  const out = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
    if (extra) out[at++] = separator!;
  }
  return out;
}
