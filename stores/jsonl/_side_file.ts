/**
 * The one format of the JSONL store's side files (the listing cache, `_persist.ts`, and the
 * resume indexes, `scan/_resume_index.ts`): a head line naming the format, its version and
 * the body's length and checksum, then the body. A torn, edited or foreign file fails the
 * check and is ignored (then rewritten), never trusted.
 *
 * The checksum is the body's SHA-256, or, when the caller passes a key, an HMAC-SHA-256
 * under that key over the head's fields, the name the file is bound to and the body: a
 * plain digest only catches damage (anyone can recompute it), a MAC also refuses a file
 * this user's key did not write, or one written for another file and moved.
 *
 * @module
 */

import { sha256Hex, toHex } from "../../src/_hex.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Which side file a head names, and what a keyed one is bound to.
 *
 * @example
 * ```ts
 * import type { SideFileKind } from "./_side_file.ts";
 * const kind: SideFileKind = { format: "mu-sessions-listing-cache", version: 3 };
 * ```
 */
export interface SideFileKind {
  format: string;
  version: number;
  /** HMAC-SHA-256 key: the checksum is a MAC under it instead of a plain digest. */
  key?: CryptoKey;
  /** With `key`: what the file describes (a session file's path); a copy elsewhere fails. */
  boundTo?: string;
}

/** The bytes a MAC covers: the head's fields, the binding and the body, unambiguously. */
function macInput(kind: SideFileKind, length: number, body: Uint8Array): Uint8Array<ArrayBuffer> {
  const prefix = encoder.encode(
    `${JSON.stringify([kind.format, kind.version, length, kind.boundTo ?? null])}\n`,
  );
  const input = new Uint8Array(prefix.length + body.length);
  input.set(prefix);
  input.set(body, prefix.length);
  return input;
}

async function checksum(kind: SideFileKind, body: Uint8Array): Promise<Record<string, string>> {
  if (!kind.key) return { sha256: await sha256Hex(body) };
  const mac = await crypto.subtle.sign("HMAC", kind.key, macInput(kind, body.length, body));
  return { hmac: toHex(mac) };
}

/**
 * A side file holding `body`.
 *
 * @example
 * ```ts
 * import { decodeSideFile, encodeSideFile } from "./_side_file.ts";
 * const kind = { format: "example", version: 1 };
 * const bytes = await encodeSideFile(kind, new TextEncoder().encode("{}"));
 * (await decodeSideFile(kind, bytes))?.length; // 2
 * ```
 */
export async function encodeSideFile(kind: SideFileKind, body: Uint8Array): Promise<Uint8Array> {
  const head = { format: kind.format, version: kind.version, length: body.length };
  const line = encoder.encode(`${JSON.stringify({ ...head, ...await checksum(kind, body) })}\n`);
  const bytes = new Uint8Array(line.length + body.length);
  bytes.set(line);
  bytes.set(body, line.length);
  return bytes;
}

/**
 * The body of a side file of `kind`, or `undefined` when `bytes` are not a whole one whose
 * checksum (or MAC under `kind.key`, bound to `kind.boundTo`) holds. Never throws.
 *
 * @example
 * ```ts
 * import { decodeSideFile } from "./_side_file.ts";
 * await decodeSideFile({ format: "example", version: 1 }, new TextEncoder().encode("{}")); // undefined
 * ```
 */
export async function decodeSideFile(
  kind: SideFileKind,
  bytes: Uint8Array,
): Promise<Uint8Array | undefined> {
  try {
    const newline = bytes.indexOf(10);
    if (newline < 0) return undefined;
    const head = JSON.parse(decoder.decode(bytes.subarray(0, newline)));
    const body = bytes.subarray(newline + 1);
    if (head?.format !== kind.format || head.version !== kind.version) return undefined;
    if (head.length !== body.length) return undefined;
    if (!kind.key) return head.sha256 === await sha256Hex(body) ? body : undefined;
    const mac = typeof head.hmac === "string" && /^[0-9a-f]{64}$/.test(head.hmac)
      ? Uint8Array.from(head.hmac.match(/../g)!, (pair: string) => parseInt(pair, 16))
      : undefined;
    // `verify` compares in constant time.
    const input = macInput(kind, body.length, body);
    return mac && await crypto.subtle.verify("HMAC", kind.key, mac, input) ? body : undefined;
  } catch {
    return undefined;
  }
}
