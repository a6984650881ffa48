/**
 * Several stores read as one: the configured store plus the agent's JSONL session folders
 * (pi's `<agentDir>/sessions/--<cwd>--/*.jsonl` layout, a `sessionDir` from the settings), so
 * a user's first `mu serve` / `mu ls` shows the sessions they already have, with no import.
 *
 * Each session lives in exactly one source and every operation on it goes there: reads,
 * appends (a JSONL session is appended to its own file, under that file's lock), header
 * updates, deletes, exports and change tokens. New sessions are created in the first
 * source (the configured store). Listings are the union, newest first, each row tagged with
 * the source it lives in ({@link SourcedSessionInfo}).
 *
 * Duplicate ids: when two sources hold a session with the same id (every session after a
 * `mu migrate`, whose pi files stay), the copy with the later activity wins everywhere:
 * pi keeps appending to its file after the copy was made, and a user expects what pi wrote
 * last. Activity is what the listing already knows (the last message's time, then the
 * message count), so choosing costs no extra read of a session; a tie goes to the earlier
 * source (the configured store comes first). The other copy is left out of the listing and
 * reported through `onSkipped`, naming both places, so nothing is hidden silently and
 * nothing is read from two places under one id.
 *
 * @module
 */
import { canLoadContext, contextOfLoaded, type LoadedContext } from "../../src/context_load.ts";
import { SessionError, SessionNotFoundError } from "../../src/errors.ts";
import { compareSessionInfo } from "../../src/_listing.ts";
import {
  compareHits,
  prepareSearch,
  type SearchHit,
  type SearchOptions,
  searchSessions,
} from "../../src/search.ts";
import {
  type CreatedSession,
  exportSessionJsonl,
  type ListOptions,
  type LoadedSession,
  type ReplaceOptions,
  type SessionInfo,
  type SessionStore,
} from "../../src/store.ts";
import type { SessionEntry, SessionHeader } from "../../src/schema.ts";

/**
 * One place sessions are read from.
 *
 * @example
 * ```ts
 * import { type SessionSource } from "./sources.ts";
 * declare const store: import("@mu/sessions").SessionStore;
 * const source: SessionSource = { label: "pi sessions folder", location: "/home/u/.pi/agent/sessions", store };
 * ```
 */
export interface SessionSource {
  /** What it is, for people: "configured store", "pi sessions folder", ... */
  label: string;
  /** Where it is: a database file, a folder, a server. */
  location: string;
  store: SessionStore;
}

/**
 * A listed session and the source it lives in.
 *
 * @example
 * ```ts
 * import { type SourcedSessionInfo } from "./sources.ts";
 * declare const row: SourcedSessionInfo;
 * console.log(row.id, "in", row.source.location);
 * ```
 */
export interface SessionSourceTag {
  label: string;
  kind: string;
  location: string;
}

/** A {@link SessionInfo} with the source it lives in. */
export type SourcedSessionInfo = SessionInfo & { source: SessionSourceTag };

/** The tag a listing row carries for `source`. */
function tagOf(source: SessionSource): SessionSourceTag {
  return { label: source.label, kind: source.store.kind, location: source.location };
}

/** A session id held by two sources: the copy not shown, and why. */
export class DuplicateSessionSourceError extends SessionError {
  override name = "DuplicateSessionSourceError";
  /** The source whose copy is shown. */
  readonly shown: SessionSourceTag;
  /** The source whose copy is left out. */
  readonly hidden: SessionSourceTag;
  /** Whether the shown copy has later activity (false: a tie, won by the earlier source). */
  readonly newer: boolean;

  constructor(sessionId: string, shown: SessionSource, hidden: SessionSource, newer: boolean) {
    const why = newer
      ? `it has later activity${
        shown.store.kind === "jsonl"
          ? `; mu migrate ${shown.location} brings this copy up to date`
          : ""
      }`
      : "this copy is as new";
    super(
      `session ${sessionId} is also in ${shown.label} (${shown.location}), whose copy is shown: ${why}`,
    );
    this.shown = tagOf(shown);
    this.hidden = tagOf(hidden);
    this.newer = newer;
  }
}

/** Whether listing row `a` shows later activity than `b`: a later last message, else more messages. */
function isNewer(a: SessionInfo, b: SessionInfo): boolean {
  const later = a.modified.getTime() - b.modified.getTime();
  return later > 0 || (later === 0 && a.messageCount > b.messageCount);
}

/**
 * The union of several stores (see the module doc for routing and duplicate ids).
 *
 * @example
 * ```ts
 * import { SourcesSessionStore } from "./sources.ts";
 * import { MemorySessionStore } from "@mu/sessions/core";
 * const store = new SourcesSessionStore([
 *   { label: "configured store", location: "memory", store: new MemorySessionStore() },
 *   { label: "pi sessions folder", location: "memory", store: new MemorySessionStore() },
 * ]);
 * await store.list(); // both sources' sessions, newest first
 * ```
 */
export class SourcesSessionStore implements SessionStore {
  readonly kind = "sources";
  readonly sources: readonly SessionSource[];
  /** Which copy of a duplicate id is shown, and the copies' change tokens when chosen. */
  readonly #chosen = new Map<string, { tokens: string; source: SessionSource }>();

  constructor(sources: readonly SessionSource[]) {
    if (sources.length === 0) throw new RangeError("SourcesSessionStore needs a source");
    this.sources = sources;
  }

  /**
   * The source a session lives in: the one that has it, or of several the copy with the
   * later activity (see the module doc).
   */
  async sourceOf(sessionId: string): Promise<SessionSource | undefined> {
    const held = await Promise.all(this.sources.map((source) => source.store.has(sessionId)));
    const holders = this.sources.filter((_, i) => held[i]);
    return holders.length > 1 ? await this.#newestCopy(sessionId, holders) : holders[0];
  }

  /**
   * Of several copies, the one with the later activity. The choice is remembered with each
   * copy's change token, so only a write to a copy makes it list the holders again.
   */
  async #newestCopy(sessionId: string, holders: SessionSource[]): Promise<SessionSource> {
    const tokens = holders.every((source) => source.store.changeToken)
      ? (await Promise.all(holders.map((source) => source.store.changeToken!(sessionId)))).join(
        "\n",
      )
      : undefined;
    const known = this.#chosen.get(sessionId);
    if (known && tokens !== undefined && known.tokens === tokens) return known.source;
    let newest: { source: SessionSource; row: SessionInfo } | undefined;
    for (const source of holders) {
      const listed = await source.store.list({ includeInternal: true });
      const row = listed.find((info) => info.id === sessionId);
      if (row && (!newest || isNewer(row, newest.row))) newest = { source, row };
    }
    const source = newest?.source ?? holders[0];
    if (tokens !== undefined) this.#chosen.set(sessionId, { tokens, source });
    return source;
  }

  async #owner(sessionId: string): Promise<SessionStore> {
    const source = await this.sourceOf(sessionId);
    if (!source) throw new SessionNotFoundError(sessionId);
    return source.store;
  }

  async create(header: SessionHeader, entries?: readonly SessionEntry[]): Promise<CreatedSession> {
    return await this.sources[0].store.create(header, entries);
  }

  async append(sessionId: string, entries: readonly SessionEntry[]): Promise<void> {
    await (await this.#owner(sessionId)).append(sessionId, entries);
  }

  async load(sessionId: string): Promise<LoadedSession> {
    return await (await this.#owner(sessionId)).load(sessionId);
  }

  async replace(
    header: SessionHeader,
    entries: readonly SessionEntry[],
    options?: ReplaceOptions,
  ): Promise<void> {
    const source = await this.sourceOf(header.id);
    await (source ?? this.sources[0]).store.replace(header, entries, options);
  }

  async updateHeader(header: SessionHeader): Promise<void> {
    await (await this.#owner(header.id)).updateHeader(header);
  }

  async list(options: ListOptions = {}): Promise<SourcedSessionInfo[]> {
    const shown = new Map<string, { row: SourcedSessionInfo; source: SessionSource }>();
    for (const source of this.sources) {
      // A lone source's tokens are this store's (`changeToken` below); with several, the
      // copy that owns an id is chosen later, so theirs are not passed on.
      const listed = await source.store.list({
        ...options,
        onProgress: undefined,
        onChangeToken: this.sources.length === 1 ? options.onChangeToken : undefined,
      });
      for (const info of listed) {
        const copy = { row: { ...info, source: tagOf(source) }, source };
        const other = shown.get(info.id);
        const newer = other !== undefined && isNewer(info, other.row);
        if (other === undefined || newer) shown.set(info.id, copy);
        if (other === undefined) continue;
        const [kept, left] = newer ? [copy, other] : [other, copy];
        options.onSkipped?.({
          path: left.row.path,
          error: new DuplicateSessionSourceError(info.id, kept.source, left.source, newer),
        });
      }
    }
    const rows = [...shown.values()].map((copy) => copy.row);
    options.onProgress?.(rows.length, rows.length);
    return rows.sort(compareSessionInfo);
  }

  async delete(sessionId: string): Promise<void> {
    const source = await this.sourceOf(sessionId);
    await source?.store.delete(sessionId);
  }

  async has(sessionId: string): Promise<boolean> {
    for (const source of this.sources) {
      if (await source.store.has(sessionId)) return true;
    }
    return false;
  }

  async close(): Promise<void> {
    const results = await Promise.allSettled(this.sources.map((s) => s.store.close()));
    const failed = results.find((r) => r.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
  }

  async exportJsonl(sessionId: string): Promise<string> {
    return await exportSessionJsonl(await this.#owner(sessionId), sessionId);
  }

  async loadContext(sessionId: string, leafId?: string | null): Promise<LoadedContext> {
    const owner = await this.#owner(sessionId);
    return canLoadContext(owner)
      ? await owner.loadContext(sessionId, leafId)
      : contextOfLoaded(await owner.load(sessionId), leafId);
  }

  /** One session's token from where it lives; the listing's from every source's. */
  async changeToken(sessionId?: string): Promise<string> {
    if (sessionId !== undefined) {
      const owner = await this.#owner(sessionId);
      return owner.changeToken ? await owner.changeToken(sessionId) : listingToken(
        await this.list({ includeInternal: true }),
      );
    }
    const tokens = await Promise.all(
      this.sources.map(async ({ store }) =>
        store.changeToken
          ? await store.changeToken()
          : listingToken(await store.list({ includeInternal: true }))
      ),
    );
    return tokens.join("\n");
  }

  /** Every source searched (its own index where it has one), merged best first. */
  async search(query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
    if (options.sessionId !== undefined) {
      const source = await this.sourceOf(options.sessionId);
      return source ? await searchSessions(source.store, query, options) : [];
    }
    const hits: SearchHit[] = [];
    const owners = new Map<string, Promise<SessionSource | undefined>>();
    for (const source of this.sources) {
      for (const hit of await searchSessions(source.store, query, options)) {
        // Of a duplicate id only the shown copy is listed, so only its hits are shown.
        if (!owners.has(hit.sessionId)) owners.set(hit.sessionId, this.sourceOf(hit.sessionId));
        if ((await owners.get(hit.sessionId)) === source) hits.push(hit);
      }
    }
    return hits.sort(compareHits).slice(0, prepareSearch(query, options).limit);
  }
}

function listingToken(rows: readonly SessionInfo[]): string {
  return rows.map((row) => `${row.id}@${row.modified.getTime()}/${row.messageCount}`).join(",");
}
