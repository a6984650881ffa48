/**
 * The options of the JSONL store (kept apart so the store module stays small).
 *
 * @module
 */
import type { Durability } from "./_folder.ts";
import type { JsonlListingCache } from "./_cache.ts";

/**
 * Options for `JsonlSessionStore` (and `openJsonlFsStore`, `openJsonlFsaStore`).
 *
 * @example
 * ```ts
 * import { type JsonlStoreOptions } from "@mu/sessions/stores/jsonl";
 * const options: JsonlStoreOptions = { lockTimeoutMs: 5_000, durability: "relaxed" };
 * ```
 */
export interface JsonlStoreOptions {
  /** Listing cache; share one between stores over the same folder to keep listings warm. */
  cache?: JsonlListingCache;
  /** Bound on waiting for a session file's lock (default 10 s). */
  lockTimeoutMs?: number;
  /** Move deleted files to the trash when the backend has one (default true). */
  useTrash?: boolean;
  /**
   * Keep the listing cache in the folder (`.mu-listing-cache.json`), so a new process lists
   * without reading the sessions again (default true; see `_persist.ts` for the rules).
   */
  persistListingCache?: boolean;
  /**
   * Keep a resume index for each large session file (`.mu-index/` in the folder), so opening
   * it again checks only the lines appended since (default true; see `scan/_resume_file.ts`).
   */
  resumeIndex?: boolean;
  /** Files read at once while listing (default 8). */
  listConcurrency?: number;
  /**
   * `"durable"` (default): an append resolves once its bytes are on disk (`fsync`; appends
   * in flight together share one). `"relaxed"`: once the operating system has them, like
   * the older tools and SQLite's `synchronous=NORMAL`: survives a crash of this process,
   * not a power cut. Creates and rewrites stay durable either way.
   */
  durability?: Durability;
}
