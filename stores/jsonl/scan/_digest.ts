/**
 * SHA-256 for the resume index on Deno and Node (`node:crypto`), shared by the folder
 * backend (`fs.ts`) and the checking pass's worker threads (`_scan_worker.ts`).
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { Digest, DigestStream } from "./_resume_index.ts";

/**
 * SHA-256 (hex) of `bytes`, synchronously: about twice as fast as `crypto.subtle` here,
 * and it runs beside the pass instead of after it.
 *
 * @example
 * ```ts
 * import { sha256HexSync } from "./_digest.ts";
 * sha256HexSync(new Uint8Array()).slice(0, 8); // "e3b0c442"
 * ```
 */
export function sha256HexSync(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/**
 * A SHA-256 fed in pieces (`node:crypto`): a resume index's blocks are hashed as the file
 * streams by, without copying them into one buffer first.
 *
 * @example
 * ```ts
 * import { sha256Stream } from "./_digest.ts";
 * const hash = sha256Stream();
 * hash.update(new Uint8Array());
 * hash.digest().slice(0, 8); // "e3b0c442"
 * ```
 */
export function sha256Stream(): DigestStream {
  const hash = createHash("sha256");
  return { update: (bytes) => void hash.update(bytes), digest: () => hash.digest("hex") };
}

/**
 * {@link sha256HexSync} that also streams (the `Digest` the resume index takes).
 *
 * @example
 * ```ts
 * import { nodeDigest } from "./_digest.ts";
 * typeof nodeDigest.stream; // "function"
 * ```
 */
export const nodeDigest: Digest = Object.assign(sha256HexSync, { stream: sha256Stream });
