/**
 * The viewer's search over one source: the library's `searchSessions` on that source's
 * store (SQLite FTS in the OPFS worker, the scan elsewhere, the server's sessions through
 * the HTTP store), the hits grouped by session under the session's list title.
 *
 * @module
 */
import { type SearchHit, searchSessions } from "../../src/search.ts";
import type { SessionStore } from "../../src/store.ts";
import { sessionKey, type SessionSource } from "../session_key.ts";
import type { SearchGroupView, SearchProgressView, SearchView } from "../types.ts";
import { rowView } from "./sources.ts";

/** Options of the worker's `search`. */
export interface ViewerSearchOptions {
  /** One source; the worker's `search` without it searches every source there is. */
  source?: SessionSource;
  /** At most this many hits (default 100). */
  limit?: number;
  includeInternal?: boolean;
  /** Only this session (find in session); its key names the source. */
  sessionKey?: string;
  /**
   * Report partial results as `search-progress` events with this id (the search box's),
   * and abort the search an earlier call with an id still runs.
   */
  progressId?: number;
}

/**
 * Search `store` and group the hits by session, keeping the library's order (best first):
 * a session's place is that of its best hit.
 *
 * @example
 * ```ts
 * import { searchViews } from "./search.ts";
 * import { MemorySessionStore } from "../../src/memory_store.ts";
 * const view = await searchViews(new MemorySessionStore(), "token", { source: "browser" });
 * console.log(view.groups.length);
 * ```
 */
export async function searchViews(
  store: SessionStore,
  query: string,
  options: ViewerSearchOptions & {
    source: SessionSource;
    sessionId?: string;
    signal?: AbortSignal;
    /** Partial results while the store indexes what it searches (`SearchOptions.onProgress`). */
    onProgress?: (progress: Omit<SearchProgressView, "id">) => void;
  },
): Promise<SearchView> {
  const limit = options.limit ?? 100;
  const titles = new SessionTitles(store, options.source);
  const onProgress = options.onProgress;
  // Partial results are posted one after the other, however long their titles take.
  let posted = Promise.resolve();
  // One hit past the limit tells "100" from "more than 100".
  const found = await searchSessions(store, query, {
    limit: limit + 1,
    // A session searched by id is searched whatever its kind.
    includeInternal: options.includeInternal || options.sessionId !== undefined,
    sessionId: options.sessionId,
    signal: options.signal,
    onProgress: onProgress &&
      (({ hits, entriesDone, entries }) => {
        posted = posted.then(async () => {
          const view = await groupHits(query, hits, limit, options.source, titles);
          onProgress({ view, entriesDone, entries });
        }).catch(() => {});
      }),
  });
  await posted;
  return await groupHits(query, found, limit, options.source, titles);
}

/** The titles of sessions as the list shows them, read once per search. */
class SessionTitles {
  #titles: Promise<Map<string, string>> | undefined;
  constructor(readonly store: SessionStore, readonly source: SessionSource) {}

  async of(sessionId: string): Promise<string | undefined> {
    this.#titles ??= this.store.list({ includeInternal: true }).then((infos) =>
      new Map(infos.map((info) => [info.id, rowView(info, this.source).title || "(untitled)"]))
    );
    return (await this.#titles).get(sessionId);
  }
}

/** `found` (up to one past the limit) as the view: grouped by session, titled. */
async function groupHits(
  query: string,
  found: readonly SearchHit[],
  limit: number,
  source: SessionSource,
  titles: SessionTitles,
): Promise<SearchView> {
  const hits = found.slice(0, limit);
  const groups = new Map<string, SearchGroupView>();
  for (const hit of hits) {
    let group = groups.get(hit.sessionId);
    if (!group) {
      group = {
        key: sessionKey(source, hit.sessionId),
        sessionId: hit.sessionId,
        source,
        title: hit.sessionId,
        hits: [],
      };
      groups.set(hit.sessionId, group);
    }
    const { entryId, role, snippet, ranges, timestamp, score } = hit;
    group.hits.push({ entryId, role, snippet, ranges, timestamp, score });
  }
  // Titles as the list shows them (name, summary or first message).
  for (const group of groups.values()) {
    group.title = await titles.of(group.sessionId) ?? group.title;
  }
  return { query, groups: [...groups.values()], total: hits.length, more: found.length > limit };
}

/**
 * Merge the results of several sources: sessions ordered by their best hit's score (the
 * library's order within a source is kept for equal scores), at most `limit` hits in all.
 *
 * @example
 * ```ts
 * import { mergeSearchViews } from "./search.ts";
 * const view = mergeSearchViews("token", [], 100);
 * console.log(view.total); // 0
 * ```
 */
export function mergeSearchViews(query: string, views: SearchView[], limit: number): SearchView {
  const best = (group: SearchGroupView) => group.hits[0]?.score ?? 0;
  const groups = views.flatMap((view) => view.groups).sort((a, b) => best(b) - best(a));
  let left = limit;
  let more = views.some((view) => view.more);
  const kept: SearchGroupView[] = [];
  for (const group of groups) {
    if (left <= 0) {
      more = true;
      break;
    }
    const hits = group.hits.slice(0, left);
    if (hits.length < group.hits.length) more = true;
    left -= hits.length;
    kept.push({ ...group, hits });
  }
  return { query, groups: kept, total: limit - left, ...(more ? { more } : {}) };
}
