/**
 * A read-only {@link SessionStore} over one exported session hosted at a URL (a bucket, a
 * CDN, any static host), read with nothing but `fetch`. When the export was published with
 * its index (`mu export --index`: `<url>.idx`, or `indexUrl`), a context-only load reads the
 * index and the few byte ranges the context needs through the range reader the edge handler
 * uses (`src/_range_reader.ts`): the first look at a session of hundreds of MB costs a small
 * fraction of it. Without an index, or from a server that ignores Range, it reads the whole
 * body (checked against the index's block digests when there is one).
 *
 * Refusals are the library's typed errors: `SessionNotFoundError` for an export that is not
 * there (404/410) or holds another session; `SessionFormatError` for a body the parser
 * refuses; `SessionStorageError` for a network failure or another HTTP status; and a
 * `SessionError` named `ExportIndexError` (an index that does not describe the file),
 * `ExportChangedError` (the object changed between requests: read again) or
 * `RangeReadError` (a server that answers ranges wrongly, or a context over `maxBytes`).
 * Never a mix of two versions of the file.
 *
 * @module
 */
import {
  type ContextLoadingStore,
  contextOfLoaded,
  type LoadedContext,
} from "../../src/context_load.ts";
import { SessionNotFoundError, SessionStorageError } from "../../src/errors.ts";
import { guardStoreClass } from "../../src/guarded_store.ts";
import { ReadOnlyWrites } from "./_read_only.ts";
import { type ParsedSession, parseSessionJsonl } from "../../src/jsonl.ts";
import { listingStateOf, listingToInfo, type SessionInfo } from "../../src/_listing.ts";
import { readExportContext } from "../../src/_range_reader.ts";
import { buildSessionProjection, type SessionProjection } from "../../src/projection.ts";
import type { SessionEntry, SessionHeader } from "../../src/schema.ts";
import { finishListing, storageOperation } from "../../src/_store_helpers.ts";
import type { ListOptions, LoadedSession } from "../../src/store.ts";

/**
 * Options of {@link HostedSessionStore}.
 *
 * @example
 * ```ts
 * import { HostedSessionStore, type HostedSessionStoreOptions } from "@mu/sessions/stores/http";
 * const options: HostedSessionStoreOptions = { url: "https://exports.example.com/s1.jsonl" };
 * const store = new HostedSessionStore(options);
 * ```
 */
export interface HostedSessionStoreOptions {
  /** The exported session's JSONL. */
  url: string | URL;
  /** Its export index; default `<url>.idx`, whose absence means "read the whole body". */
  indexUrl?: string | URL;
  /** The `fetch` to use (default: the global one). */
  fetch?: (request: Request) => Promise<Response>;
  /** Most bytes of the export one context-only load may fetch (default: no limit). */
  maxBytes?: number;
  /** Aborts every request of this store. */
  signal?: AbortSignal;
}

/** What one read of the hosted export found, and what it cost. */
interface HostedRead {
  context: LoadedContext;
  /** The projection of the leaf, equal to `buildSessionProjection` over the whole session. */
  projection: SessionProjection;
  /** Read through the index by Range requests (false: the whole body). */
  ranged: boolean;
  /** Bytes of the export fetched (the index not counted). */
  bytesFetched: number;
}

const NO_LIMIT = Number.MAX_SAFE_INTEGER;

/**
 * One hosted export as a read-only session store.
 *
 * @example
 * ```ts
 * import { loadSessionProjection } from "@mu/sessions";
 * import { HostedSessionStore } from "@mu/sessions/stores/http";
 * const store = new HostedSessionStore({ url: "https://exports.example.com/s1.jsonl" });
 * const { context } = await store.readContext(); // the index and a few ranges, no id needed
 * const projection = await loadSessionProjection(store, context.header.id);
 * ```
 */
export class HostedSessionStore extends ReadOnlyWrites implements ContextLoadingStore {
  readonly kind = "hosted";
  protected readonly readOnlyWhere = "on a hosted export";
  readonly url: string;
  readonly #indexUrl?: string;
  readonly #fetch: (request: Request) => Promise<Response>;
  readonly #maxBytes: number;
  readonly #signal: AbortSignal;
  /** Bytes of the export the last read fetched (the index not counted). */
  bytesFetched = 0;

  constructor(options: HostedSessionStoreOptions) {
    super();
    // Guarded on first construction rather than by a call after the class: `stores/http`
    // re-exports this class, and a top-level call is a side effect every bundle of that
    // entry keeps, so code that only reads `mu serve` (the viewer's worker) would carry the
    // range reader too.
    guardStoreClass(HostedSessionStore, ["readContext", "readWhole"]);
    this.url = String(options.url);
    this.#indexUrl = options.indexUrl === undefined ? undefined : String(options.indexUrl);
    this.#fetch = options.fetch ?? ((request) => fetch(request));
    this.#maxBytes = options.maxBytes ?? NO_LIMIT;
    this.#signal = options.signal ?? new AbortController().signal;
  }

  /**
   * The context-only load of `leafId` (default: the last entry) whatever the session's id:
   * through the index when the export has one, else from the whole body.
   */
  readContext(leafId?: string): Promise<HostedRead> {
    return storageOperation("readContext", async () => {
      const read = await readExportContext({
        url: this.url,
        indexUrl: this.#indexUrl,
        leafId,
        get: (url, headers, signal) => this.#fetch(new Request(url, { headers, signal })),
        maxBytes: this.#maxBytes,
        signal: this.#signal,
      });
      if (read.kind === "answer") {
        const { context, projection, bytesFetched } = read.answer;
        this.bytesFetched = bytesFetched;
        return { context, projection, ranged: true, bytesFetched };
      }
      const parsed = read.kind === "whole"
        ? await this.#parse(read.body, read.index.length)
        : await this.readWhole();
      return {
        context: contextOfLoaded({ ...parsed, path: this.url }, leafId),
        projection: buildSessionProjection(parsed.entries, leafId),
        ranged: false,
        bytesFetched: this.bytesFetched,
      };
    });
  }

  /** The whole session, read from the whole body whatever its id. */
  readWhole(): Promise<ParsedSession> {
    return storageOperation("readWhole", async () => {
      const response = await this.#fetch(new Request(this.url, { signal: this.#signal }));
      if (response.status === 404 || response.status === 410) {
        await response.body?.cancel();
        throw new SessionNotFoundError("", `no exported session at ${this.url}`);
      }
      if (!response.ok || !response.body) {
        await response.body?.cancel();
        throw new SessionStorageError(`reading ${this.url} failed: HTTP ${response.status}`);
      }
      return await this.#parse(response.body);
    });
  }

  async #parse(
    body: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>,
    length?: number,
  ): Promise<ParsedSession> {
    this.bytesFetched = 0;
    const parsed = await parseSessionJsonl(body, {
      source: this.url,
      signal: this.#signal,
      onProgress: (bytes) => this.bytesFetched = bytes,
    });
    if (length !== undefined) this.bytesFetched = length;
    return parsed;
  }

  /** The session's id must be the export's. */
  #check<T extends { header: SessionHeader }>(sessionId: string, read: T): T {
    if (read.header.id !== sessionId) {
      throw new SessionNotFoundError(sessionId, `${this.url} holds session ${read.header.id}`);
    }
    return read;
  }

  async loadContext(sessionId: string, leafId?: string | null): Promise<LoadedContext> {
    const { context } = await this.readContext(leafId ?? undefined);
    this.#check(sessionId, context);
    return leafId === null ? { header: context.header, prefix: [], entries: [] } : context;
  }

  async load(sessionId: string): Promise<LoadedSession> {
    return this.#check(sessionId, await this.readWhole());
  }

  /** The one session's listing row: its name and counts need the whole body. */
  async list(options: ListOptions = {}): Promise<SessionInfo[]> {
    const { header, entries } = await this.readWhole();
    const rows = [listingToInfo(header, listingStateOf(entries), this.url)];
    options.onProgress?.(1, 1);
    return finishListing(rows, options);
  }

  async has(sessionId: string): Promise<boolean> {
    try {
      await this.loadContext(sessionId, null);
      return true;
    } catch (error) {
      if (error instanceof SessionNotFoundError) return false;
      throw error;
    }
  }

  create(_header: SessionHeader, _entries?: readonly SessionEntry[]): Promise<never> {
    return this.readOnly("create");
  }
}
