/**
 * Bytes as lowercase hex, and SHA-256 as hex through `crypto.subtle` (every runtime): the
 * one routine the export index, the side files, session file names and fresh entry ids
 * share.
 *
 * @module
 */

/**
 * Lowercase hex of some bytes (digests, MACs, random ids).
 *
 * @example
 * ```ts
 * import { toHex } from "./_hex.ts";
 * toHex(new Uint8Array([0, 255])); // "00ff"
 * ```
 */
export function toHex(bytes: ArrayBuffer | Uint8Array): string {
  let out = "";
  for (const byte of bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes)) {
    out += byte.toString(16).padStart(2, "0");
  }
  return out;
}

/**
 * SHA-256 of `bytes` as hex.
 *
 * @example
 * ```ts
 * import { sha256Hex } from "./_hex.ts";
 * (await sha256Hex(new Uint8Array(0))).slice(0, 8); // "e3b0c442"
 * ```
 */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  return toHex(await crypto.subtle.digest("SHA-256", bytes as BufferSource));
}
