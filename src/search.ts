/**
 * Search across sessions: the options and hit shape every store shares, the ranking, and
 * the streaming scan (one session loaded at a time, cancellable) that stores without an
 * index use and that indexed stores must agree with. Query language: `_search_query.ts`;
 * what is searched: `search_text.ts`.
 *
 * @module
 */
import { InvalidArgumentError, SessionFormatError, SessionNotFoundError } from "./errors.ts";
import type { SessionEntry } from "./schema.ts";
import {
  foldSearchText,
  parseSearchQuery,
  scoreFolded,
  type SearchQuery,
  searchSnippet,
} from "./_search_query.ts";
import { SEARCH_ROLES, searchFields, type SearchRole } from "./search_text.ts";
import type { SessionStore } from "./store.ts";
import { throwIfAborted } from "./store.ts";

/**
 * Options for {@link searchSessions} and `SessionStore.search`.
 *
 * @example
 * ```ts
 * import { type SearchOptions } from "@mu/sessions";
 * const options: SearchOptions = { cwd: "/project", roles: ["user", "assistant"], limit: 20 };
 * ```
 */
export interface SearchOptions {
  /** Only sessions whose header `cwd` equals this. */
  cwd?: string;
  /** Only this session. */
  sessionId?: string;
  /** Only texts of these roles (default: all of {@link SEARCH_ROLES}). */
  roles?: readonly SearchRole[];
  /** Include classified workflow sessions (excluded by default, as in listings). */
  includeInternal?: boolean;
  /** At most this many hits (default 50). */
  limit?: number;
  /** Abort the search; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * Partial results while a search runs in steps (a SQLite store indexing sessions imported
   * in bulk as it searches them): the best hits found so far, and how many of the entries
   * still being indexed are searched. Not called by a search that answers at once.
   */
  onProgress?: (progress: { hits: SearchHit[]; entriesDone: number; entries: number }) => void;
}

/**
 * One hit: a role's text of one entry. `ranges` mark the matched text inside `snippet`.
 *
 * @example
 * ```ts
 * import { type SearchHit, searchSessions, type SessionStore } from "@mu/sessions";
 * declare const store: SessionStore;
 * const hits: SearchHit[] = await searchSessions(store, "refreshToken");
 * for (const hit of hits) console.log(hit.sessionId, hit.entryId, hit.snippet.slice(...hit.ranges[0]));
 * ```
 */
export interface SearchHit {
  sessionId: string;
  entryId: string;
  role: SearchRole;
  /** The text around the first match, whitespace as spaces, `…` where cut. */
  snippet: string;
  /** Matched spans of `snippet`, `[start, end)` UTF-16 offsets, sorted. */
  ranges: [number, number][];
  /** Higher is better (see `matchFolded`). */
  score: number;
  /** The entry's timestamp (ISO 8601). */
  timestamp: string;
}

/** Default {@link SearchOptions.limit}. */
const DEFAULT_LIMIT = 50;

/**
 * A query and options checked once; what a store's search works from.
 *
 * @example
 * ```ts
 * import { prepareSearch } from "./search.ts";
 * const prepared = prepareSearch("token", { roles: ["user"] });
 * prepared.roles.has("user"); // true
 * ```
 */
export interface PreparedSearch {
  query: SearchQuery;
  roles: ReadonlySet<SearchRole>;
  limit: number;
  options: SearchOptions;
}

/** Parse and validate; bad input rejects with `InvalidArgumentError`. */
export function prepareSearch(query: string, options: SearchOptions = {}): PreparedSearch {
  const limit = options.limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1) {
    throw new InvalidArgumentError(`The search limit must be a positive integer, not ${limit}`);
  }
  for (const role of options.roles ?? []) {
    if (!(SEARCH_ROLES as readonly string[]).includes(role)) {
      throw new InvalidArgumentError(
        `Unknown search role ${JSON.stringify(role)} (one of ${SEARCH_ROLES.join(", ")})`,
      );
    }
  }
  const roles = new Set<SearchRole>(options.roles?.length ? options.roles : SEARCH_ROLES);
  return { query: parseSearchQuery(query), roles, limit, options };
}

/**
 * A scored text before its snippet is made. `text` is the original text when the finder
 * has it (the scan); an index passes `ref` and supplies the text later, for the few kept.
 */
export interface SearchCandidate<Ref = unknown> {
  sessionId: string;
  entryId: string;
  role: SearchRole;
  timestamp: string;
  score: number;
  text?: string;
  ref?: Ref;
}

/** The order of hits: score, then newest, then ids (so every store orders ties alike). */
export function compareHits(a: SearchCandidate, b: SearchCandidate): number {
  return b.score - a.score ||
    timeOf(b.timestamp) - timeOf(a.timestamp) ||
    compareText(a.sessionId, b.sessionId) ||
    compareText(a.entryId, b.entryId) ||
    SEARCH_ROLES.indexOf(a.role) - SEARCH_ROLES.indexOf(b.role);
}

/**
 * The time hits are ordered by: `Date.parse`, 0 when unreadable (what an index stores to
 * walk rows in hit order).
 *
 * @example
 * ```ts
 * import { searchTime } from "./search.ts";
 * searchTime("2026-04-01T00:00:00.000Z"); // 1775001600000
 * searchTime("soon"); // 0
 * ```
 */
export function searchTime(timestamp: string): number {
  const ms = Date.parse(timestamp);
  return Number.isNaN(ms) ? 0 : ms;
}
const timeOf = searchTime;

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The best `limit` candidates seen so far, in hit order: memory stays bounded however many
 * texts match.
 */
export class TopHits<Ref = unknown> {
  readonly #limit: number;
  readonly #kept: SearchCandidate<Ref>[] = [];
  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Whether a candidate with this score could still be kept (cheap pre-check). */
  wants(score: number): boolean {
    return this.#kept.length < this.#limit || score >= this.#kept.at(-1)!.score;
  }

  /**
   * Whether the kept hits are final for a walk newest first: the list is full of hits
   * with `best` (the query's highest score) and `timestamp` is older than the last one,
   * so neither this candidate nor any older one can be kept (ties go to the newest).
   */
  settled(best: number, timestamp: string): boolean {
    return this.settledAt(best, timeOf(timestamp));
  }

  /** {@link settled} for a candidate's {@link searchTime}. */
  settledAt(best: number, time: number): boolean {
    const last = this.#kept.at(-1);
    return this.#kept.length >= this.#limit && last !== undefined && last.score >= best &&
      time < timeOf(last.timestamp);
  }

  /** The kept candidates, best first (to merge them into another list). */
  candidates(): readonly SearchCandidate<Ref>[] {
    return this.#kept;
  }

  offer(candidate: SearchCandidate<Ref>): void {
    const kept = this.#kept;
    if (kept.length >= this.#limit && compareHits(candidate, kept.at(-1)!) >= 0) return;
    let low = 0;
    let high = kept.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (compareHits(kept[mid], candidate) <= 0) low = mid + 1;
      else high = mid;
    }
    kept.splice(low, 0, candidate);
    if (kept.length > this.#limit) kept.pop();
  }

  /** The kept candidates as hits; `textOf` supplies texts the finder did not keep. */
  async finish(
    query: SearchQuery,
    textOf: (candidate: SearchCandidate<Ref>) => Promise<string> | string = () => "",
  ): Promise<SearchHit[]> {
    const hits: SearchHit[] = [];
    for (const candidate of this.#kept) {
      const text = candidate.text ?? await textOf(candidate);
      const { snippet, ranges } = searchSnippet(text, query);
      const { sessionId, entryId, role, score, timestamp } = candidate;
      hits.push({ sessionId, entryId, role, snippet, ranges, score, timestamp });
    }
    return hits;
  }
}

/**
 * Match every entry of one loaded session (all branches) into `top`. Checks the signal
 * every 512 entries so a huge session can be cancelled too.
 */
export function searchEntries(
  sessionId: string,
  entries: readonly SessionEntry[],
  prepared: PreparedSearch,
  top: TopHits,
): void {
  for (let i = 0; i < entries.length; i++) {
    if ((i & 511) === 511) throwIfAborted(prepared.options.signal);
    const entry = entries[i];
    if (typeof entry.id !== "string") continue;
    for (const field of searchFields(entry)) {
      if (!prepared.roles.has(field.role)) continue;
      const score = scoreFolded(foldSearchText(field.text).text, prepared.query);
      if (score === null || !top.wants(score)) continue;
      top.offer({
        sessionId,
        entryId: entry.id,
        role: field.role,
        timestamp: String(entry.timestamp),
        score,
        text: field.text,
      });
    }
  }
}

/** The original text of one role of an entry (for an index's snippet). */
export function fieldText(entry: SessionEntry, role: SearchRole): string {
  return searchFields(entry).find((field) => field.role === role)?.text ?? "";
}

/**
 * The reference search: list the sessions, then load and match them one at a time, so
 * memory holds one session and the best hits. Sessions that vanish or cannot be loaded
 * between listing and loading are skipped (as listings skip them).
 *
 * @example
 * ```ts
 * import { MemorySessionStore, scanSearch } from "@mu/sessions";
 * const hits = await scanSearch(new MemorySessionStore(), "token", { signal: AbortSignal.timeout(5_000) });
 * ```
 */
export async function scanSearch(
  store: SessionStore,
  query: string,
  options: SearchOptions = {},
): Promise<SearchHit[]> {
  const prepared = prepareSearch(query, options);
  const { cwd, includeInternal, signal, sessionId } = options;
  throwIfAborted(signal);
  const sessions = await store.list({ cwd, includeInternal, signal });
  const top = new TopHits(prepared.limit);
  for (const info of sessions) {
    if (sessionId !== undefined && info.id !== sessionId) continue;
    throwIfAborted(signal);
    let entries: SessionEntry[];
    try {
      entries = (await store.load(info.id)).entries;
    } catch (error) {
      if (error instanceof SessionNotFoundError || error instanceof SessionFormatError) continue;
      throw error;
    }
    throwIfAborted(signal);
    searchEntries(info.id, entries, prepared, top);
  }
  return await top.finish(prepared.query);
}

/**
 * Search a store: its own `search` when it has one (an index), else {@link scanSearch}.
 * Hits are best first, newest first among equal scores.
 *
 * @example
 * ```ts
 * import { MemorySessionStore, searchSessions } from "@mu/sessions";
 * const hits = await searchSessions(new MemorySessionStore(), '"fix the bug" -draft', { limit: 10 });
 * ```
 */
export async function searchSessions(
  store: SessionStore,
  query: string,
  options: SearchOptions = {},
): Promise<SearchHit[]> {
  return store.search
    ? await store.search(query, options)
    : await scanSearch(store, query, options);
}
