/**
 * Listing a session folder: every candidate file is summarised through the cache
 * (`_cache.ts`), a bounded number at a time, with progress, abort, and a report for
 * every file left out. Listing never writes.
 *
 * @module
 */
import { SessionStorageError } from "../../src/errors.ts";
import { listingToInfo, type SessionInfo } from "../../src/_listing.ts";
import { isWorkflowInternal, type SessionHeader } from "../../src/schema.ts";
import { finishListing, type ListOptions, throwIfAborted } from "../../src/store.ts";
import type { FileStat, JsonlFolderFs } from "./_folder.ts";
import { type CachedFile, type JsonlListingCache, summarizeFile } from "./_cache.ts";

/**
 * What a listing learned about ids, for the store's lookups.
 *
 * @example
 * ```ts
 * import { type ListedIds } from "./_listing.ts";
 * const ids: ListedIds = {
 *   paths: new Map([["a.jsonl", "s1"]]),
 *   chosen: new Map([["s1", "a.jsonl"]]),
 *   stats: new Map([["a.jsonl", { size: 120, mtimeMs: 0 }]]),
 * };
 * ```
 */
export interface ListedIds {
  /** File → id in its header (`null` when unreadable). */
  paths: Map<string, string | null>;
  /** Id → the file chosen to hold it. */
  chosen: Map<string, string>;
  /** Chosen file → its stat as this listing read it (what its change token derives from). */
  stats: Map<string, FileStat>;
}

/**
 * How {@link listFolder} runs.
 *
 * @example
 * ```ts
 * import { type ListFolderOptions } from "./_listing.ts";
 * const how: ListFolderOptions = { concurrency: 8, preferred: (a, b) => a.localeCompare(b) };
 * ```
 */
export interface ListFolderOptions {
  concurrency: number;
  /** Order of preference between two files holding the same id. */
  preferred: (a: string, b: string) => number;
}

/**
 * List the given files of a folder as session rows (newest first), reporting unloadable
 * and duplicate files through `options.onSkipped`.
 *
 * @example
 * ```ts
 * import { listFolder } from "./_listing.ts";
 * import { JsonlListingCache } from "./_cache.ts";
 * import { NodeJsonlFolderFs } from "@mu/sessions/stores/jsonl";
 * const fs = new NodeJsonlFolderFs("/tmp/sessions");
 * const { rows } = await listFolder(fs, ["a.jsonl"], new JsonlListingCache(), {}, {
 *   concurrency: 8,
 *   preferred: (a, b) => a.localeCompare(b),
 * });
 * ```
 */
export async function listFolder(
  fs: JsonlFolderFs,
  paths: readonly string[],
  cache: JsonlListingCache,
  options: ListOptions,
  how: ListFolderOptions,
): Promise<{ rows: SessionInfo[]; ids: ListedIds }> {
  const { signal } = options;
  throwIfAborted(signal);
  const need = (header: SessionHeader) =>
    (options.cwd !== undefined && header.cwd !== options.cwd) ||
      (!options.includeInternal && isWorkflowInternal(header))
      ? "header" as const
      : "body" as const;
  const results = new Array<CachedFile | undefined>(paths.length);
  const stats = new Array<FileStat | undefined>(paths.length);
  const total = paths.length;
  let loaded = 0;
  let next = 0;
  const worker = async () => {
    while (next < paths.length) {
      throwIfAborted(signal);
      const index = next++;
      const path = paths[index];
      const stat = await fs.stat(path);
      stats[index] = stat;
      if (stat) {
        const key = fs.describe(path);
        const result = await summarizeFile(fs, path, stat, cache.get(key), need, signal);
        if (!result.transient) cache.set(key, result);
        results[index] = result;
      }
      throwIfAborted(signal);
      options.onProgress?.(++loaded, total);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, how.concurrency) }, worker));
  throwIfAborted(signal);

  const ids: ListedIds = { paths: new Map(), chosen: new Map(), stats: new Map() };
  const holders = new Map<string, string[]>();
  for (let i = 0; i < paths.length; i++) {
    const result = results[i];
    if (!result) continue;
    if (result.error) {
      if (!result.transient) ids.paths.set(paths[i], result.info?.id ?? null);
      options.onSkipped?.({ path: fs.describe(paths[i]), error: result.error });
      continue;
    }
    const id = result.info!.id;
    ids.paths.set(paths[i], id);
    const list = holders.get(id);
    if (list) list.push(paths[i]);
    else holders.set(id, [paths[i]]);
  }
  const rows: SessionInfo[] = [];
  const indexOf = new Map(paths.map((path, i) => [path, i]));
  for (const [id, holding] of holders) {
    holding.sort(how.preferred);
    const [chosen, ...copies] = holding;
    ids.chosen.set(id, chosen);
    ids.stats.set(chosen, stats[indexOf.get(chosen)!]!);
    for (const copy of copies) {
      options.onSkipped?.({
        path: fs.describe(copy),
        error: new SessionStorageError(
          `duplicate session id ${JSON.stringify(id)}: the session is ${
            fs.describe(chosen)
          }; this copy is left out`,
        ),
      });
    }
    const result = results[indexOf.get(chosen)!]!;
    if (!result.state) continue; // header read only: filtered out by cwd or internal
    rows.push(
      listingToInfo(result.info!.header, result.state, fs.describe(chosen), result.mtimeMs),
    );
  }
  return { rows: finishListing(rows, options), ids };
}

/**
 * A session file's change token: its size and modification time, which change with every
 * append or rewrite by any process.
 *
 * @example
 * ```ts
 * import { fileChangeToken } from "./_listing.ts";
 * fileChangeToken({ size: 120, mtimeMs: 1 }); // "120:1"
 * ```
 */
export function fileChangeToken(stat: FileStat): string {
  return `${stat.size}:${stat.mtimeMs}`;
}

/**
 * Tell `onChangeToken` the token of each listed session whose listed file is `readFrom(id)`,
 * the file the store reads it from (another copy's token would not follow that file).
 *
 * @example
 * ```ts
 * import { reportChangeTokens } from "./_listing.ts";
 * const ids = {
 *   paths: new Map([["a.jsonl", "s1"]]),
 *   chosen: new Map([["s1", "a.jsonl"]]),
 *   stats: new Map([["a.jsonl", { size: 120, mtimeMs: 1 }]]),
 * };
 * reportChangeTokens([{ id: "s1" }], ids, () => "a.jsonl", console.log); // s1 120:1
 * ```
 */
export function reportChangeTokens(
  rows: readonly { id: string }[],
  ids: ListedIds,
  readFrom: (id: string) => string | undefined,
  onChangeToken: ((sessionId: string, token: string) => void) | undefined,
): void {
  if (!onChangeToken) return;
  for (const { id } of rows) {
    const path = ids.chosen.get(id);
    const stat = path === undefined ? undefined : ids.stats.get(path);
    if (stat && readFrom(id) === path) onChangeToken(id, fileChangeToken(stat));
  }
}
