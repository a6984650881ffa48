/**
 * A read-only {@link SessionStore} over the HTTP API of `mu serve` (`web/api/routes.ts`),
 * with nothing but `fetch`: it runs in a browser page or worker, Deno, Node and edge
 * runtimes. The viewer reads "this computer"'s sessions through it without importing them.
 *
 * Listing and loading follow the API's pages (`nextCursor`, `nextOffset`); `loadContext`
 * asks the server for a context-only load. `create` posts
 * the session to `POST /api/import` (the server's never-overwrite rule); every other write
 * rejects with `SessionStorageError` ("read-only: ..."). API errors come back as the
 * library's typed errors, named by the JSON body's `error` field.
 *
 * @module
 */
import {
  EntryNotFoundError,
  InvalidArgumentError,
  SessionExistsError,
  SessionFormatError,
  SessionNotFoundError,
  SessionStorageError,
} from "../../src/errors.ts";
import type { ContextLoadingStore, LoadedContext } from "../../src/context_load.ts";
import { serializeSessionJsonl } from "../../src/jsonl.ts";
import { prepareSearch, type SearchHit, type SearchOptions } from "../../src/search.ts";
import type { SessionInfo } from "../../src/_listing.ts";
import type { SessionEntry, SessionHeader } from "../../src/schema.ts";
import { guardStoreClass } from "../../src/guarded_store.ts";
import { ReadOnlyWrites } from "./_read_only.ts";
import {
  assertValidSessionId,
  type CreatedSession,
  type ListOptions,
  type LoadedSession,
  throwIfAborted,
} from "../../src/store.ts";

/**
 * Options of {@link HttpSessionStore}.
 *
 * @example
 * ```ts
 * import { HttpSessionStore, type HttpSessionStoreOptions } from "@mu/sessions/stores/http";
 * const options: HttpSessionStoreOptions = { baseUrl: "http://127.0.0.1:4173/" };
 * const store = new HttpSessionStore(options);
 * ```
 */
export interface HttpSessionStoreOptions {
  /** The server's origin (or any URL on it); the API lives under `/api/`. */
  baseUrl: string | URL;
  /** The `fetch` to use (default: the global one); tests pass an in-process handler. */
  fetch?: (request: Request) => Promise<Response>;
  /** Rows per listing page asked for (default: the server's). */
  listPageSize?: number;
  /** Entries per session page asked for (default: the server's). */
  entryPageSize?: number;
}

interface ErrorBody {
  error?: string;
  message?: string;
  line?: number;
  reason?: string;
  sessionId?: string;
}

type WireInfo = Omit<SessionInfo, "created" | "modified"> & { created: string; modified: string };

/** A file the server's listing could not read (its first page names them). */
interface WireSkipped {
  path: string;
  error: string;
  line?: number;
  reason: string;
}

/** The typed library error for an API error answer (`what` names the request). */
function apiError(status: number, body: ErrorBody, what: string, id?: string): Error {
  const message = body.message ?? `${what}: HTTP ${status}`;
  switch (body.error) {
    case "SessionNotFoundError":
      return new SessionNotFoundError(body.sessionId ?? id ?? "", message);
    case "SessionExistsError":
      return new SessionExistsError(body.sessionId ?? id ?? "", message);
    case "SessionFormatError":
      return new SessionFormatError(body.reason ?? message, { line: body.line ?? 0 });
    case "EntryNotFoundError": {
      const error = new EntryNotFoundError("");
      error.message = message;
      return error;
    }
    case "InvalidArgumentError":
      return new InvalidArgumentError(message);
  }
  if (status === 404 && id !== undefined) return new SessionNotFoundError(id, message);
  return new SessionStorageError(`${what} failed: ${message} (HTTP ${status})`);
}

/**
 * A read-only session store over `mu serve`'s API.
 *
 * @example
 * ```ts
 * import { HttpSessionStore } from "@mu/sessions/stores/http";
 * const store = new HttpSessionStore({ baseUrl: "http://127.0.0.1:4173/" });
 * for (const row of await store.list()) console.log(row.id, row.firstMessage);
 * ```
 */
export class HttpSessionStore extends ReadOnlyWrites implements ContextLoadingStore {
  readonly kind = "http";
  protected readonly readOnlyWhere = "through the HTTP API";
  readonly #base: URL;
  readonly #fetch: (request: Request) => Promise<Response>;
  readonly #listPage?: number;
  readonly #entryPage?: number;

  constructor(options: HttpSessionStoreOptions) {
    super();
    this.#base = new URL("/api/", options.baseUrl);
    this.#fetch = options.fetch ?? ((request) => fetch(request));
    this.#listPage = options.listPageSize;
    this.#entryPage = options.entryPageSize;
  }

  #url(path: string, params: Record<string, string | number | undefined> = {}): URL {
    const url = new URL(path, this.#base);
    for (const [key, value] of Object.entries(params)) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url;
  }

  /** Send a request; a non-2xx answer rejects with the typed error it names. */
  async #send(what: string, request: Request, id?: string): Promise<Response> {
    let response: Response;
    try {
      response = await this.#fetch(request);
    } catch (error) {
      if (error instanceof DOMException && error.name === "AbortError") throw error;
      const detail = error instanceof Error ? error.message : String(error);
      throw new SessionStorageError(`${what} failed: ${detail}`, { cause: error });
    }
    if (response.ok) return response;
    let body: ErrorBody = {};
    try {
      body = await response.json();
    } catch { /* not JSON: the status says enough */ }
    throw apiError(response.status, body, what, id);
  }

  async #json<T>(what: string, url: URL, id?: string, signal?: AbortSignal): Promise<T> {
    const response = await this.#send(what, new Request(url, { signal }), id);
    return await response.json() as T;
  }

  #sessionPath(sessionId: string): string {
    assertValidSessionId(sessionId);
    return `sessions/${encodeURIComponent(sessionId)}`;
  }

  async list(options: ListOptions = {}): Promise<SessionInfo[]> {
    const rows: SessionInfo[] = [];
    let cursor: string | null = "0";
    while (cursor !== null) {
      throwIfAborted(options.signal);
      const page: {
        sessions: WireInfo[];
        nextCursor: string | null;
        total?: number;
        skipped?: WireSkipped[];
      } = await this
        .#json(
          "list",
          this.#url("sessions", {
            cwd: options.cwd,
            internal: options.includeInternal ? 1 : undefined,
            cursor,
            limit: this.#listPage,
          }),
          undefined,
          options.signal,
        );
      for (const row of page.sessions) {
        rows.push({ ...row, created: new Date(row.created), modified: new Date(row.modified) });
      }
      for (const { path, error, line, reason } of page.skipped ?? []) {
        options.onSkipped?.({
          path,
          error: error === "SessionFormatError"
            ? new SessionFormatError(reason, { source: path, line })
            : new SessionStorageError(reason),
        });
      }
      options.onProgress?.(rows.length, page.total ?? rows.length);
      cursor = page.nextCursor;
    }
    return rows;
  }

  async load(sessionId: string): Promise<LoadedSession> {
    const path = this.#sessionPath(sessionId);
    const entries: SessionEntry[] = [];
    let header: SessionHeader | undefined;
    let sourceVersion = 4;
    let offset: number | null = 0;
    while (offset !== null) {
      const page: {
        header: SessionHeader;
        sourceVersion?: number;
        entries: SessionEntry[];
        nextOffset: number | null;
      } = await this.#json("load", this.#url(path, { offset, limit: this.#entryPage }), sessionId);
      header ??= page.header;
      sourceVersion = page.sourceVersion ?? sourceVersion;
      entries.push(...page.entries);
      offset = page.nextOffset;
    }
    // Older formats arrive upgraded; this store cannot persist the upgrade (read-only).
    return { header: header!, entries, sourceVersion, upgraded: sourceVersion < 4 };
  }

  /**
   * A context-only load answered by the server (`GET /api/sessions/:id/loaded-context`):
   * only the context range and the entries replayed before it cross the network.
   *
   * @example
   * ```ts
   * import { loadSessionProjection } from "@mu/sessions";
   * import { HttpSessionStore } from "@mu/sessions/stores/http";
   * const store = new HttpSessionStore({ baseUrl: "http://127.0.0.1:4173/" });
   * const loaded = await store.loadContext("s1"); // what loadSessionProjection reads
   * const projection = await loadSessionProjection(store, "s1");
   * ```
   */
  async loadContext(sessionId: string, leafId?: string | null): Promise<LoadedContext> {
    const params = leafId === null ? { empty: 1 } : { leaf: leafId };
    const path = `${this.#sessionPath(sessionId)}/loaded-context`;
    return await this.#json("loadContext", this.#url(path, params), sessionId);
  }

  async has(sessionId: string): Promise<boolean> {
    try {
      await this.#json("has", this.#url(this.#sessionPath(sessionId), { limit: 1 }), sessionId);
      return true;
    } catch (error) {
      if (error instanceof SessionNotFoundError) return false;
      throw error;
    }
  }

  /**
   * Full-text search on the server (`GET /api/search`): one request, however many sessions
   * it holds, instead of loading each one. Options are checked here first, so a bad limit or
   * role rejects with the same `InvalidArgumentError` as in every other store.
   */
  async search(query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
    const { limit } = prepareSearch(query, options);
    const url = this.#url("search", {
      q: query,
      cwd: options.cwd,
      session: options.sessionId,
      role: options.roles?.length ? options.roles.join(",") : undefined,
      internal: options.includeInternal ? 1 : undefined,
      limit,
    });
    const page: { hits: SearchHit[] } = await this.#json("search", url, undefined, options.signal);
    return page.hits;
  }

  async exportJsonl(sessionId: string): Promise<string> {
    const url = this.#url(`${this.#sessionPath(sessionId)}/export`);
    return await (await this.#send("export", new Request(url), sessionId)).text();
  }

  /**
   * Create a session on the server (`POST /api/import`). Rejects with `SessionExistsError`
   * when the id is stored already, as every store's `create` does.
   */
  async create(
    header: SessionHeader,
    entries: readonly SessionEntry[] = [],
  ): Promise<CreatedSession> {
    if (await this.has(header.id)) throw new SessionExistsError(header.id);
    const body = serializeSessionJsonl(header, [...entries]);
    const request = new Request(this.#url("import"), {
      method: "POST",
      headers: { "content-type": "application/jsonl" },
      body,
    });
    const response = await this.#send("create", request, header.id);
    if (response.status !== 201) {
      await response.body?.cancel();
      throw new SessionExistsError(header.id); // it appeared between has() and the import
    }
    await response.body?.cancel();
    return { id: header.id };
  }
}

guardStoreClass(HttpSessionStore);

/**
 * Whether `baseUrl` is served by `mu serve` (`GET /api/info` answers `name: "mu-sessions"`).
 * A static site (404, or its index page) answers false, never throws.
 *
 * @example
 * ```ts
 * import { HttpSessionStore, isSessionServer } from "@mu/sessions/stores/http";
 * const base = "http://127.0.0.1:4173/";
 * const store = await isSessionServer(base) ? new HttpSessionStore({ baseUrl: base }) : undefined;
 * ```
 */
export async function isSessionServer(
  baseUrl: string | URL,
  fetcher: (request: Request) => Promise<Response> = (request) => fetch(request),
): Promise<boolean> {
  try {
    const response = await fetcher(new Request(new URL("/api/info", baseUrl)));
    if (!response.ok) {
      await response.body?.cancel();
      return false;
    }
    const info = await response.json();
    return info?.name === "mu-sessions";
  } catch {
    return false;
  }
}

export { HostedSessionStore, type HostedSessionStoreOptions } from "./hosted.ts";
