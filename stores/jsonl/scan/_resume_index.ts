/**
 * The resume index of a large JSONL session: what the checking pass
 * (`_scan.ts`) learned about the file's first `bytes` bytes, saved so that the next
 * open of the same file checks only the lines appended since. Without it, resuming a large
 * session parsed and checked the whole file again on every open.
 *
 * Trust: the index is believed only when this user's key sealed it, and only for bytes whose
 * SHA-256 still match. The file is a side file (`../_side_file.ts`) whose checksum is an
 * HMAC-SHA-256 under the user's key (`../_index_key.ts`), bound to the session file's path:
 * an index someone else wrote, or one moved from another session, is ignored however
 * consistent its digests. It lists the digest of every {@link BLOCK_BYTES} block of the prefix
 * it describes; an open re-reads and re-hashes that prefix and uses the index only when every
 * digest matches (or, without reading, while the file keeps the identity the index names).
 * An edit anywhere in the prefix, a file replaced by another, a truncation: any of them fails
 * and the file is checked in full, exactly as without an index. A torn, edited or foreign
 * index is ignored (and replaced), never trusted.
 *
 * @module
 */
import type { ListingState } from "../../../src/_listing.ts";
import { decodeSideFile, encodeSideFile, type SideFileKind } from "../_side_file.ts";
import { sha256Hex } from "../../../src/_hex.ts";

/** The prefix is hashed in blocks of this size (the file is read in blocks of it too). */
export const BLOCK_BYTES = 4 << 20;

/** Bump when {@link ScanSnapshot} or the checks behind it change meaning. */
export const RESUME_INDEX_VERSION = 2;
const FORMAT = "mu-sessions-resume-index";

/**
 * The checking pass's state after a clean pass over a file's first `bytes` bytes (which end
 * with a line break): the compact columns of every entry and what the pass folds.
 */
export interface ScanSnapshot extends ScanColumns {
  /** Bytes covered, ending at a line break. */
  bytes: number;
  /** 1-based number of the line that starts at `bytes`. */
  nextLine: number;
  /** The header record as parsed (checked again at every open). */
  header: Record<string, unknown>;
  /** Parent ids not seen before their child (dangling so far). */
  unseenParents: string[];
}

/**
 * The compact columns the checking pass keeps of a run of entries, in file order.
 *
 * @example
 * ```ts
 * import type { ScanColumns } from "./_resume_index.ts";
 * const none: ScanColumns = {
 *   ids: [], parents: [], flags: [], offsets: [], labels: [],
 *   listing: { hasName: false, messageCount: 0, lastMessageMs: 0 },
 * };
 * ```
 */
export interface ScanColumns {
  ids: string[];
  parents: (string | null)[];
  /** `contextFlags` of each entry. */
  flags: number[];
  /** Byte offset of each entry's line. */
  offsets: number[];
  /** Positions of the `label` entries (in the run). */
  labels: number[];
  /** The listing fold over the run's entries. */
  listing: ListingState;
}

/** A decoded index: the snapshot and the SHA-256 (hex) of each block of its prefix. */
export interface ResumeIndex {
  snapshot: ScanSnapshot;
  /** The block size the prefix was hashed in. */
  blockBytes: number;
  blocks: string[];
  /**
   * The file's {@link FileIdentity} `key` when the pass read it: while the file still has
   * it, its bytes are the ones checked and need no hashing. Absent when the file changed
   * during the pass or had changed too recently to tell (see {@link RACY_MS}).
   */
  identity?: string;
}

/**
 * What names a file's current content without reading it: device, inode, size and
 * modification and change times. Any write changes it; so does `touch`.
 */
export interface FileIdentity {
  key: string;
  /**
   * What names the file itself whatever its content (device and inode), when known: a
   * parallel pass whose file was replaced under it (a rename) is not trusted.
   */
  file?: string;
  size: number;
  /** The later of the modification and change (metadata) times, in ms. */
  changedMs: number;
}

/**
 * An identity changed this recently is not kept: a write in the same clock tick could
 * change the bytes and leave the identity as it was (git's "racy" index; some runtimes
 * report the change time in whole seconds).
 */
export const RACY_MS = 2_000;

/** Where a store keeps one file's resume index (bytes as {@link encodeResumeIndex} made them). */
export interface ResumeIndexFile {
  /** The key indexes are sealed with: only an index this key sealed is trusted. */
  key(): Promise<CryptoKey>;
  /** What the index is bound to (the session file's path in its folder). */
  boundTo: string;
  /** The stored bytes, or `undefined` when there are none. */
  load(): Promise<Uint8Array | undefined>;
  /** Replace the stored bytes (failing to write is not an error: the next open checks in full). */
  save(bytes: Uint8Array): Promise<void>;
  /** The file's identity now, when the backend can tell (see {@link FileIdentity}). */
  identity?(): Promise<FileIdentity | undefined>;
  /** Files smaller than this get no index (default {@link RESUME_INDEX_MIN_BYTES}). */
  minBytes?: number;
  /** Block size for a new index (default {@link BLOCK_BYTES}). */
  blockBytes?: number;
  /**
   * SHA-256 (hex) of a block, when the runtime has a faster one than `crypto.subtle` (Node's
   * and Deno's `node:crypto` hash in about half the time); default {@link sha256Hex}.
   */
  digest?: Digest;
}

/**
 * SHA-256 (hex) of some bytes, synchronously or not; with `stream`, also of bytes handed in
 * pieces (a block hashed as it streams by, never copied into one buffer first).
 */
export type Digest = ((bytes: Uint8Array) => string | Promise<string>) & {
  stream?: () => DigestStream;
};

/**
 * A SHA-256 taking its input in pieces.
 *
 * @example
 * ```ts
 * import type { DigestStream } from "./_resume_index.ts";
 * declare const hash: DigestStream;
 * hash.update(new Uint8Array([1])); hash.update(new Uint8Array([2]));
 * hash.digest(); // the hex digest of [1, 2]
 * ```
 */
export interface DigestStream {
  update(bytes: Uint8Array): void;
  digest(): string;
}

/** Files smaller than this get no resume index: checking them in full is quick already. */
export const RESUME_INDEX_MIN_BYTES = 8 << 20;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * How an index is sealed: the key and what it is bound to.
 *
 * @example
 * ```ts
 * import type { IndexSeal } from "./_resume_index.ts";
 * declare const key: CryptoKey;
 * const seal: IndexSeal = { key, boundTo: "--work--/a.jsonl" };
 * ```
 */
export interface IndexSeal {
  key: CryptoKey;
  boundTo: string;
}

function sideFileKind(seal: IndexSeal): SideFileKind {
  return { format: FORMAT, version: RESUME_INDEX_VERSION, ...seal };
}

/**
 * The bytes of an index file for `index`.
 *
 * @example
 * ```ts
 * import { decodeResumeIndex, encodeResumeIndex } from "./_resume_index.ts";
 * const snapshot = {
 *   bytes: 0, nextLine: 1, header: {}, ids: [], parents: [], flags: [], offsets: [], labels: [],
 *   listing: { hasName: false, messageCount: 0, lastMessageMs: 0 }, unseenParents: [],
 * };
 * const key = await crypto.subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
 * const seal = { key, boundTo: "a.jsonl" };
 * const bytes = await encodeResumeIndex({ snapshot, blockBytes: 4096, blocks: [] }, seal);
 * (await decodeResumeIndex(bytes, seal))?.snapshot.bytes; // 0
 * ```
 */
export function encodeResumeIndex(index: ResumeIndex, seal: IndexSeal): Promise<Uint8Array> {
  return encodeSideFile(sideFileKind(seal), encoder.encode(JSON.stringify(index)));
}

/**
 * The index in `bytes`, or `undefined` when they are not a whole index of this version
 * sealed by `seal` (torn, edited, foreign, another user's, another file's): such an index is
 * ignored, never trusted.
 *
 * @example
 * ```ts
 * import { decodeResumeIndex } from "./_resume_index.ts";
 * const key = await crypto.subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
 * await decodeResumeIndex(new TextEncoder().encode("{}"), { key, boundTo: "a.jsonl" }); // undefined
 * ```
 */
export async function decodeResumeIndex(
  bytes: Uint8Array,
  seal: IndexSeal,
): Promise<ResumeIndex | undefined> {
  try {
    const body = await decodeSideFile(sideFileKind(seal), bytes);
    if (!body) return undefined;
    const index = JSON.parse(decoder.decode(body)) as ResumeIndex;
    const { snapshot, blocks, blockBytes } = index;
    const count = snapshot?.ids?.length;
    const whole = Array.isArray(blocks) && Number.isSafeInteger(blockBytes) && blockBytes > 0 &&
      blocks.length === Math.ceil(snapshot.bytes / blockBytes) &&
      [snapshot.parents, snapshot.flags, snapshot.offsets].every((column) =>
        Array.isArray(column) && column.length === count
      );
    return whole ? index : undefined;
  } catch {
    return undefined;
  }
}

/** Digests in flight at once: the runtimes hash on worker threads while the next block is read. */
const IN_FLIGHT = 3;

/**
 * Hashes a stream of bytes in blocks of `blockBytes`, whatever the sizes of the chunks
 * pushed, so the digests equal those of the same file read block by block.
 *
 * @example
 * ```ts
 * import { BlockHasher } from "./_resume_index.ts";
 * const hasher = new BlockHasher();
 * hasher.push(new TextEncoder().encode("{}\n"));
 * (await hasher.digests()).length; // 1
 * ```
 */
export class BlockHasher {
  readonly blockBytes: number;
  // One block, allocated at the first push and reused: a digest is taken (a synchronous
  // one) or its input copied (`crypto.subtle`) when it is asked for. Fresh blocks cost a
  // large session's first open a noticeable share of its time in page faults.
  #block?: Uint8Array;
  #filled = 0;
  #length = 0;
  readonly #done: string[] = [];
  readonly #pending: Promise<string>[] = [];
  /** The current block's hash, when the digest streams. */
  #running?: DigestStream;

  readonly #digest: Digest;

  constructor(blockBytes = BLOCK_BYTES, digest: Digest = sha256Hex) {
    this.blockBytes = blockBytes;
    this.#digest = digest;
  }

  /** Bytes pushed so far. */
  get length(): number {
    return this.#length;
  }

  /**
   * Continue after the first `length` bytes of a file whose blocks hash to `blocks`;
   * `lastBlock` is that prefix's last block (as {@link verifyBlocks} resolves it).
   */
  static resume(index: ResumeIndex, lastBlock: Uint8Array, digest?: Digest): BlockHasher {
    const { blockBytes, blocks, snapshot: { bytes } } = index;
    const hasher = new BlockHasher(blockBytes, digest);
    const whole = Math.floor(bytes / blockBytes);
    hasher.#done.push(...blocks.slice(0, whole));
    hasher.#length = whole * blockBytes;
    if (bytes % blockBytes) hasher.push(lastBlock); // a partial block: hashed again, grown
    return hasher;
  }

  push(chunk: Uint8Array): void {
    this.#length += chunk.length;
    if (this.#digest.stream) return this.#stream(chunk);
    let at = 0;
    while (at < chunk.length) {
      this.#block ??= new Uint8Array(this.blockBytes);
      const take = Math.min(chunk.length - at, this.blockBytes - this.#filled);
      this.#block.set(chunk.subarray(at, at + take), this.#filled);
      this.#filled += take;
      at += take;
      if (this.#filled === this.blockBytes) {
        this.#queue(this.#block);
        this.#filled = 0;
      }
    }
  }

  /** `chunk` into the block's running hash (no copy: copying every byte of a large session
   * into blocks was a noticeable part of its first open). */
  #stream(chunk: Uint8Array): void {
    let at = 0;
    while (at < chunk.length) {
      this.#running ??= this.#digest.stream!();
      const take = Math.min(chunk.length - at, this.blockBytes - this.#filled);
      this.#running.update(chunk.subarray(at, at + take));
      this.#filled += take;
      at += take;
      if (this.#filled === this.blockBytes) {
        this.#pending.push(Promise.resolve(this.#running.digest()));
        this.#running = undefined;
        this.#filled = 0;
      }
    }
  }

  #queue(block: Uint8Array): void {
    let digest: Promise<string>;
    try {
      digest = Promise.resolve(this.#digest(block)); // now, before the block is reused
    } catch (error) {
      digest = Promise.reject(error);
    }
    digest.catch(() => {}); // awaited in `digests`: a rejection waiting there is not unhandled
    this.#pending.push(digest);
  }

  /** The digests of every block, the last one partial (empty input: none). */
  async digests(): Promise<string[]> {
    if (this.#running && this.#filled > 0) {
      this.#pending.push(Promise.resolve(this.#running.digest()));
      this.#running = undefined;
      this.#filled = 0;
    }
    if (this.#block && this.#filled > 0) {
      this.#queue(this.#block.subarray(0, this.#filled));
      this.#filled = 0;
    }
    this.#done.push(...await Promise.all(this.#pending.splice(0)));
    return [...this.#done];
  }
}

/**
 * Whether the bytes `index` describes still hash to its digests, reading them with `read`
 * one block at a time (each block is handed to `onBlock`, the caller may keep it). Resolves
 * the last block's bytes when they match (where {@link BlockHasher.resume} goes on),
 * `undefined` otherwise.
 *
 * @example
 * ```ts
 * import { BlockHasher, type ScanSnapshot, verifyBlocks } from "./_resume_index.ts";
 * const file = new TextEncoder().encode("{}\n");
 * const hasher = new BlockHasher(2);
 * hasher.push(file);
 * const read = async (start: number, end: number) => file.subarray(start, end);
 * const snapshot = { bytes: file.length } as ScanSnapshot;
 * const index = { snapshot, blockBytes: 2, blocks: await hasher.digests() };
 * (await verifyBlocks(read, index)) !== undefined; // true
 * ```
 */
export async function verifyBlocks(
  read: (start: number, end: number) => Promise<Uint8Array>,
  index: ResumeIndex,
  onBlock?: (block: Uint8Array) => void,
  digest: Digest = sha256Hex,
): Promise<Uint8Array | undefined> {
  const { blockBytes, blocks, snapshot: { bytes } } = index;
  const pending: Promise<boolean>[] = [];
  let last: Uint8Array = new Uint8Array(0);
  let ok = true;
  for (let i = 0; i < blocks.length && ok; i++) {
    const start = i * blockBytes;
    const end = Math.min(bytes, start + blockBytes);
    const block = await read(start, end);
    if (block.length !== end - start) return undefined; // the file is shorter now
    onBlock?.(block);
    last = block;
    const matches = Promise.resolve(digest(block)).then((hex) => hex === blocks[i]);
    matches.catch(() => {});
    pending.push(matches);
    if (pending.length >= IN_FLIGHT) ok = await pending.shift()!;
  }
  for (const matches of pending) ok = (await matches) && ok;
  return ok ? last : undefined;
}
