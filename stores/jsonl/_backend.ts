/**
 * What a folder backend offers the JSONL store beyond the public {@link JsonlFolderFs}: the
 * fast paths of the checking pass and the lazy open (synchronous reads, a faster SHA-256,
 * the file's identity, native byte-to-text conversions) and the key resume indexes are
 * sealed with. Kept off the public interface so a backend author implements the file
 * operations only; the file-system backend (`fs.ts`) attaches its own here, and any other
 * folder (File System Access, a wrapper in a test) gets the defaults: no fast paths, and a
 * key that lives as long as the process.
 *
 * @module
 */
import type { Durability, FileStat, JsonlFolderFs } from "./_folder.ts";
import type { Digest, FileIdentity } from "./scan/_resume_index.ts";
import type { ByteText } from "./scan/_line_checks.ts";

/**
 * A backend's private extras.
 *
 * @example
 * ```ts
 * import type { FolderBackend } from "./_backend.ts";
 * const none: FolderBackend = { indexKey: () => crypto.subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]) };
 * ```
 */
export interface FolderBackend {
  /** Bytes `[start, end)` of `path`, synchronously: lazily opened bodies are read back. */
  readSync?(path: string, start: number, end: number): Uint8Array;
  /** SHA-256 of a resume index's blocks, when faster than `crypto.subtle`. */
  digest?: Digest;
  /** What names the file's content without reading it (an unchanged file goes unhashed). */
  fileIdentity?(path: string): Promise<FileIdentity | undefined>;
  /** Native ISO-8859-1 text and UTF-8 check for the checking pass (`ByteText`). */
  byteText?: ByteText;
  /** The HMAC-SHA-256 key this user's resume indexes are sealed with. */
  indexKey(): Promise<CryptoKey>;
  /** Synchronous appends within a burst (`_append.ts`), where the backend's calls are. */
  burst?: AppendBurst;
}

/**
 * What an append within a burst does synchronously: the same calls the folder interface
 * makes for it (`lock`, `stat`, `append`), without a promise around each.
 *
 * @example
 * ```ts
 * import type { AppendBurst } from "./_backend.ts";
 * declare const burst: AppendBurst;
 * const release = burst.takeParked("a.jsonl");
 * release?.();
 * ```
 */
export interface AppendBurst {
  /**
   * The lock of `path` when this process kept it from its last append and nothing in this
   * process holds or waits for it (and it is still this process's), else undefined; the
   * returned function releases (keeps) it again.
   */
  takeParked(path: string): (() => void) | undefined;
  /** {@link JsonlFolderFs.stat}, synchronously. */
  stat(path: string): FileStat | undefined;
  /** {@link JsonlFolderFs.append}, synchronously. */
  append(path: string, data: Uint8Array, expectedSize: number, durability: Durability): FileStat;
}

let processKey: Promise<CryptoKey> | undefined;

/**
 * A key made for this process alone: indexes sealed with it are trusted by this process
 * only (a backend with nowhere private to keep a key still resumes within one process).
 *
 * @example
 * ```ts
 * import { processIndexKey } from "./_backend.ts";
 * (await processIndexKey()).algorithm.name; // "HMAC"
 * ```
 */
export function processIndexKey(): Promise<CryptoKey> {
  return processKey ??= crypto.subtle.generateKey(
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign", "verify"],
  ) as Promise<CryptoKey>;
}

const DEFAULTS: FolderBackend = { indexKey: processIndexKey };
const attached = new WeakMap<JsonlFolderFs, FolderBackend>();

/**
 * Give `fs` its backend extras (the file-system backend does, in its constructor).
 *
 * @example
 * ```ts
 * import { attachBackend, processIndexKey } from "./_backend.ts";
 * import type { Durability, FileStat, JsonlFolderFs } from "./_folder.ts";
 * declare const fs: JsonlFolderFs;
 * attachBackend(fs, { indexKey: processIndexKey });
 * ```
 */
export function attachBackend(fs: JsonlFolderFs, backend: FolderBackend): void {
  attached.set(fs, backend);
}

/**
 * The extras of `fs`: the attached ones, else the defaults.
 *
 * @example
 * ```ts
 * import { backendOf } from "./_backend.ts";
 * import type { Durability, FileStat, JsonlFolderFs } from "./_folder.ts";
 * declare const fs: JsonlFolderFs;
 * backendOf(fs).readSync; // undefined unless the backend reads synchronously
 * ```
 */
export function backendOf(fs: JsonlFolderFs): FolderBackend {
  return attached.get(fs) ?? DEFAULTS;
}
