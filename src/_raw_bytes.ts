/**
 * The original UTF-8 bytes of parsed records (`parseSessionJsonl(..., { retainRaw:
 * "bytes" })`), kept instead of their text: a store that binds UTF-8 as it is (sqlite-wasm,
 * `stores/sqlite/wasm.ts`) writes them without a decode and re-encode; every other store
 * gets the same text back from {@link rawTextFromBytes}.
 *
 * @module
 */

const rawBytes = new WeakMap<object, Uint8Array>();
// The bytes were checked to be valid UTF-8 when the line was split (`_jsonl_lines.ts`);
// ignoreBOM: a U+FEFF the bytes hold is part of the text.
// Pure: a bundle that never decodes kept bytes drops it.
const decoder = /* @__PURE__ */ new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * Remember the exact UTF-8 bytes `value` was parsed from (valid UTF-8; never changed later).
 *
 * @example
 * ```ts
 * import { rawBytesOf, rememberRawBytes } from "./_raw_bytes.ts";
 * const value = {};
 * rememberRawBytes(value, new TextEncoder().encode("{}"));
 * rawBytesOf(value)?.length; // 2
 * ```
 */
export function rememberRawBytes(value: object, bytes: Uint8Array): void {
  rawBytes.set(value, bytes);
}

/**
 * The UTF-8 bytes a parsed record came from, if they were kept.
 *
 * @example
 * ```ts
 * import { rawBytesOf } from "./_raw_bytes.ts";
 * rawBytesOf({}); // undefined
 * ```
 */
export function rawBytesOf(value: object): Uint8Array | undefined {
  return rawBytes.get(value);
}

/**
 * The text of the kept bytes (the record's original JSON text), if they were kept.
 *
 * @example
 * ```ts
 * import { rawTextFromBytes } from "./_raw_bytes.ts";
 * rawTextFromBytes({}); // undefined
 * ```
 */
export function rawTextFromBytes(value: object): string | undefined {
  const bytes = rawBytes.get(value);
  return bytes === undefined ? undefined : decoder.decode(bytes);
}
