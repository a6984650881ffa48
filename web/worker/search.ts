/**
 * The viewer's search over one source: the library's `searchSessions` on that source's
 * store (SQLite FTS in the OPFS worker, the scan elsewhere, the server's sessions through
 * the HTTP store), the hits grouped by session under the session's list title.
 *
 * @module
 */
import { searchSessions } from "../../src/search.ts";
import type { SessionStore } from "../../src/store.ts";
import { sessionKey, type SessionSource } from "../session_key.ts";
import type { SearchGroupView, SearchView } from "../types.ts";
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
  options: ViewerSearchOptions & { source: SessionSource; sessionId?: string },
): Promise<SearchView> {
  const limit = options.limit ?? 100;
  // One hit past the limit tells "100" from "more than 100".
  const found = await searchSessions(store, query, {
    limit: limit + 1,
    // A session searched by id is searched whatever its kind.
    includeInternal: options.includeInternal || options.sessionId !== undefined,
    sessionId: options.sessionId,
  });
  const hits = found.slice(0, limit);
  const groups = new Map<string, SearchGroupView>();
  for (const hit of hits) {
    let group = groups.get(hit.sessionId);
    if (!group) {
      group = {
        key: sessionKey(options.source, hit.sessionId),
        sessionId: hit.sessionId,
        source: options.source,
        title: hit.sessionId,
        hits: [],
      };
      groups.set(hit.sessionId, group);
    }
    const { entryId, role, snippet, ranges, timestamp, score } = hit;
    group.hits.push({ entryId, role, snippet, ranges, timestamp, score });
  }
  if (groups.size) {
    // Titles as the list shows them (name, summary or first message).
    for (const info of await store.list({ includeInternal: true })) {
      const group = groups.get(info.id);
      if (group) group.title = rowView(info, options.source).title || "(untitled)";
    }
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
