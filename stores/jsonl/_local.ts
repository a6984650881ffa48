/**
 * Single-file helpers the Deno/Node runtime storage (`stores/default`) needs to open a JSONL
 * file by path and to stream a local file into fork and import. Private to the package: the
 * public JSONL entry (`fs.ts`) exports the store and its folder adapter only.
 *
 * @module
 */
import { dirname, resolve } from "node:path";
import { SessionStorageError } from "../../src/errors.ts";
import { type FsFolderOptions, type JsonlStoreOptions, NodeJsonlFolderFs } from "./fs.ts";
import { JsonlSessionStore } from "./store.ts";
import { JsonlListingCache } from "./_cache.ts";

const listingCaches = new Map<string, JsonlListingCache>();

/**
 * This process's listing cache for a directory, so listings stay warm across store instances.
 *
 * @example
 * ```ts
 * import { listingCacheFor } from "./_local.ts";
 * listingCacheFor("/tmp/sessions") === listingCacheFor("/tmp/sessions/"); // true
 * ```
 */
export function listingCacheFor(dir: string): JsonlListingCache {
  const key = resolve(dir);
  let cache = listingCaches.get(key);
  if (!cache) listingCaches.set(key, cache = new JsonlListingCache());
  return cache;
}

/**
 * Open one JSONL file directly (`SessionManager.open(path)`): creates it with a fresh
 * format-4 header for `cwd` when it is missing or empty. New sessions of the returned store
 * go to `sessionDir`, or the file's folder.
 *
 * @example
 * ```ts
 * import { openJsonlFile } from "./_local.ts";
 * const { store, sessionId } = await openJsonlFile("/tmp/x/session.jsonl", { cwd: "/work" });
 * ```
 */
export async function openJsonlFile(
  path: string,
  options: { sessionDir?: string; cwd: string } & JsonlStoreOptions & FsFolderOptions,
): Promise<{ store: JsonlSessionStore; sessionId: string; path: string }> {
  const absolute = resolve(path);
  const fs = new NodeJsonlFolderFs(options.sessionDir ?? dirname(absolute), options);
  const store = new JsonlSessionStore(fs, options);
  const sessionId = await store.openFile(fs.folderPath(absolute), { cwd: options.cwd });
  return { store, sessionId, path: absolute };
}

/**
 * The bytes of a local file as a stream (sources for fork and import).
 *
 * @example
 * ```ts
 * import { readLocalFile } from "./_local.ts";
 * const stream = await readLocalFile("/tmp/export.jsonl");
 * ```
 */
export async function readLocalFile(path: string): Promise<ReadableStream<Uint8Array>> {
  const absolute = resolve(path);
  const fs = new NodeJsonlFolderFs(dirname(absolute));
  if (!(await fs.stat(absolute))) {
    throw new SessionStorageError(`No such file: ${absolute}`);
  }
  const chunks = fs.readStream(absolute)[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await chunks.next();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    async cancel() {
      await chunks.return?.();
    },
  });
}
