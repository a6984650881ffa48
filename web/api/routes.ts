/**
 * The HTTP API of `mu serve` over any {@link SessionStore}, as a web-standard
 * `(Request) => Response` handler (so it also runs in an edge function over a remote
 * store). JSON unless stated; errors are JSON with a status a client can act on and never
 * a stack trace.
 *
 * | route | answer |
 * | --- | --- |
 * | `GET /api/info` | `{ name, store, sources, absent }`: where sessions are read from, and agent folders looked for but missing |
 * | `GET /api/sessions?cwd=&internal=1&cursor=&limit=` | `{ sessions, nextCursor, total }`, newest first; the first page also `skipped`: files that could not be read (`skipped.ts`) |
 * | `GET /api/sessions/:id?offset=&limit=` | `{ header, entries, total, nextOffset }`, from the session kept open (`session_pages.ts`); how far it reaches as the `x-mu-entry-progress` header (`<end>/<total>`) |
 * | `GET /api/sessions/:id/conversation?leaf=&offset=&limit=` | `{ leafId, items, total }`: conversation items of the branch (the last entry's when no leaf), `total` `null` while the rest of the branch is unread |
 * | `GET /api/sessions/:id/tree?leaf=&focus=&offset=&limit=` | `{ rowCount, focusRow, start, rows }`: rows of the tree marked for `leaf`, from `offset` or around `focus`'s row (the leaf's when none), `null` when only a full load decides the tree |
 * | `GET /api/sessions/:id/context?leaf=` | the projection (`buildSessionProjection`) |
 * | `GET /api/sessions/:id/loaded-context?leaf=&empty=1` | a context-only load (`LoadedContext`) |
 * | `GET /api/sessions/:id/export?leaf=` | JSONL (`application/jsonl`) |
 * | `POST /api/import` | JSONL body, stored as it arrives: 201 imported, 200 already present / updated, 409 a different session has the id, 400 malformed (line, reason), 413 too large, 408 the upload stalled |
 * | `GET /api/events?session=` | server-sent events: `sessions`, `session`; 503 past the cap on open streams |
 * | `GET /api/search?q=&cwd=&session=&role=&internal=1&limit=` | `{ hits }`, best first (`searchSessions`) |
 *
 * @module
 */
import {
  canLoadContext,
  contextOfLoaded,
  loadHeaderAndProjection,
} from "../../src/context_load.ts";
import { exportBranchJsonl } from "../../src/export_branch.ts";
import { searchSessions } from "../../src/search.ts";
import type { SearchRole } from "../../src/search_text.ts";
import { exportSessionJsonl, type SessionStore } from "../../src/store.ts";
import { ChangeWatcher, eventStream } from "./events.ts";
import { importStreamed } from "./import_stream.ts";
import { SessionPages } from "./session_pages.ts";
import { type SkippedView, skippedView } from "./skipped.ts";
import { CONV_PAGE } from "../conversation/model.ts";
import { ENTRY_PROGRESS_HEADER, errorResponse, HttpError, json, limitedBody } from "./http.ts";

/** Options of {@link createSessionApi}. */
export interface SessionApiOptions {
  store: SessionStore;
  /** Largest accepted import body (default 256 MiB). */
  maxImportBytes?: number;
  /** Where the store reads sessions from, for people (`GET /api/info`). */
  sources?: readonly { label: string; location: string }[];
  /** Places looked for and not found (`GET /api/info`). */
  absent?: readonly { label: string; location: string }[];
  /** Change poller for `/api/events` (default: one over `store`). */
  watcher?: ChangeWatcher;
  /** Longest wait for the next chunk of an upload before it is refused with 408 (default 30 s). */
  uploadIdleMs?: number;
  /** Most event streams open at once; more are refused with 503 (default 64). */
  maxEventStreams?: number;
  /** The sessions kept open for entry pages (default: a few over `store`). */
  pages?: SessionPages;
}

/** Default import body limit. */
export const DEFAULT_MAX_IMPORT_BYTES = 256 * 1024 * 1024;
/** Default longest pause in an upload. */
export const DEFAULT_UPLOAD_IDLE_MS = 30_000;
/**
 * Default cap on open event streams: each holds a connection and a poller subscription, and
 * a viewer tab needs one.
 */
export const DEFAULT_MAX_EVENT_STREAMS = 64;
const PAGE = 200;
const ENTRY_PAGE = 2000;
const TREE_PAGE = 200;

function intParam(url: URL, name: string, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    throw new HttpError(400, "BadRequest", `${name} must be a non-negative integer`);
  }
  return Math.min(value, max);
}

/** A session id from its path segment; a malformed percent-encoding is the client's error. */
function decodedId(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new HttpError(
      400,
      "BadRequest",
      "the session id in the path is not valid percent-encoding",
    );
  }
}

function allow(methods: string, request: Request): void {
  if (!methods.split(", ").includes(request.method)) {
    throw new HttpError(
      405,
      "MethodNotAllowed",
      `${request.method} is not allowed here; use ${methods}`,
    );
  }
}

/**
 * The API handler: answers `/api/...` requests and resolves `undefined` for any other path
 * (so a server can serve files there).
 *
 * @example
 * ```ts
 * import { MemorySessionStore } from "@mu/sessions/core";
 * import { createSessionApi } from "./routes.ts";
 * const api = createSessionApi({ store: new MemorySessionStore() });
 * const response = await api(new Request("http://127.0.0.1/api/sessions"));
 * (await response!.json()).sessions; // []
 * ```
 */
export function createSessionApi(
  options: SessionApiOptions,
): (request: Request) => Promise<Response | undefined> {
  const { store } = options;
  const maxImportBytes = options.maxImportBytes ?? DEFAULT_MAX_IMPORT_BYTES;
  const watcher = options.watcher ?? new ChangeWatcher(store);
  const pages = options.pages ?? new SessionPages(store);
  const uploadIdleMs = options.uploadIdleMs ?? DEFAULT_UPLOAD_IDLE_MS;
  const maxEventStreams = options.maxEventStreams ?? DEFAULT_MAX_EVENT_STREAMS;
  let eventStreams = 0;

  async function route(request: Request, url: URL, parts: string[]): Promise<Response> {
    const [resource, id, sub, ...rest] = parts;
    if (resource === "info" && parts.length === 1) {
      allow("GET, HEAD", request);
      const places = (list: SessionApiOptions["sources"]) =>
        (list ?? []).map(({ label, location }) => ({ label, location }));
      return json(200, {
        name: "mu-sessions",
        store: store.kind,
        sources: places(options.sources),
        absent: places(options.absent),
      });
    }
    if (resource === "events" && parts.length === 1) {
      allow("GET", request);
      if (eventStreams >= maxEventStreams) {
        throw new HttpError(
          503,
          "TooManyEventStreams",
          `${maxEventStreams} event streams are open already; close a viewer tab or try again later`,
        );
      }
      eventStreams++;
      const session = url.searchParams.get("session") ?? undefined;
      return eventStream(watcher, session, request.signal, () => eventStreams--);
    }
    if (resource === "search" && parts.length === 1) {
      allow("GET, HEAD", request);
      const params = url.searchParams;
      const roles = params.getAll("role").flatMap((r) => r.split(",")).filter(Boolean);
      const hits = await searchSessions(store, params.get("q") ?? "", {
        cwd: params.get("cwd") ?? undefined,
        sessionId: params.get("session") ?? undefined,
        roles: roles as SearchRole[],
        includeInternal: ["1", "true"].includes(params.get("internal") ?? ""),
        limit: intParam(url, "limit", 50, 1000) || 50,
        signal: request.signal, // a client that goes away stops the search
      });
      return json(200, { hits });
    }
    if (resource === "import" && parts.length === 1) {
      allow("POST", request);
      // Parsed and stored as it arrives: the server never holds the upload whole.
      const body = await limitedBody(request, { maxBytes: maxImportBytes, idleMs: uploadIdleMs });
      const outcome = await importStreamed(store, body, { source: "request body" });
      if (outcome.status === "invalid") throw outcome.error;
      if (outcome.status === "conflict") {
        return json(409, {
          error: "SessionExistsError",
          message: outcome.reason,
          sessionId: outcome.sessionId,
        });
      }
      return json(outcome.status === "imported" ? 201 : 200, outcome);
    }
    if (resource !== "sessions" || rest.length) {
      throw new HttpError(404, "NotFound", `no API route ${url.pathname}`);
    }
    allow("GET, HEAD", request);
    if (id === undefined) {
      const skipped: SkippedView[] = [];
      const all = await store.list({
        cwd: url.searchParams.get("cwd") ?? undefined,
        includeInternal: ["1", "true"].includes(url.searchParams.get("internal") ?? ""),
        signal: request.signal,
        onSkipped: (item) => {
          const view = skippedView(item);
          if (view) skipped.push(view);
        },
      });
      const cursor = intParam(url, "cursor", 0);
      const limit = intParam(url, "limit", PAGE, 1000) || PAGE;
      const sessions = all.slice(cursor, cursor + limit);
      const next = cursor + limit < all.length ? String(cursor + limit) : null;
      const page = { sessions, nextCursor: next, total: all.length };
      return json(200, cursor === 0 ? { ...page, skipped } : page);
    }
    const sessionId = decodedId(id);
    if (sub === undefined) {
      const offset = intParam(url, "offset", 0);
      const limit = intParam(url, "limit", ENTRY_PAGE, 10_000) || ENTRY_PAGE;
      // From the session kept open since its first page: a page is not a load.
      const { header, sourceVersion, entries, total } = await pages.page(sessionId, offset, limit);
      const nextOffset = offset + limit < total ? offset + limit : null;
      return json(200, { header, sourceVersion, entries, total, nextOffset }, {
        [ENTRY_PROGRESS_HEADER]: `${Math.min(total, offset + entries.length)}/${total}`,
      });
    }
    const leaf = url.searchParams.get("leaf") ?? undefined;
    if (sub === "conversation") {
      // From the session kept open, reading only as much of the branch as the page needs.
      const offset = intParam(url, "offset", 0);
      const limit = intParam(url, "limit", CONV_PAGE, 1000) || CONV_PAGE;
      return json(200, await pages.conversation(sessionId, leaf, offset, limit));
    }
    if (sub === "tree") {
      // From the session kept open: its ids and parents, a page of rows parsed.
      const offset = url.searchParams.has("offset") ? intParam(url, "offset", 0) : undefined;
      return json(
        200,
        await pages.tree(sessionId, {
          leafId: leaf ?? null,
          focusId: url.searchParams.get("focus") ?? undefined,
          start: offset,
          count: intParam(url, "limit", TREE_PAGE, 1000),
        }),
      );
    }
    if (sub === "context") {
      // A context-only load where the store has one: a huge session answers from its
      // context range, not a read of every entry.
      const { header, projection } = await loadHeaderAndProjection(store, sessionId, leaf);
      return json(200, { sessionId, header, projection });
    }
    if (sub === "loaded-context") {
      // What `loadContext` answers (HttpSessionStore's own loadContext asks for it); `empty=1`
      // is the null leaf. Stores without the fast path answer from a full load.
      const leafId = url.searchParams.get("empty") === "1" ? null : leaf;
      const loaded = canLoadContext(store)
        ? await store.loadContext(sessionId, leafId)
        : contextOfLoaded(await store.load(sessionId), leafId);
      return json(200, loaded);
    }
    if (sub === "export") {
      const jsonl = leaf === undefined
        ? await exportSessionJsonl(store, sessionId)
        : await exportBranchJsonl(store, sessionId, leaf);
      return new Response(jsonl, {
        headers: {
          "content-type": "application/jsonl; charset=utf-8",
          "content-disposition": `attachment; filename="${encodeURIComponent(sessionId)}.jsonl"`,
        },
      });
    }
    throw new HttpError(404, "NotFound", `no API route ${url.pathname}`);
  }

  return async (request) => {
    const url = new URL(request.url);
    if (url.pathname !== "/api" && !url.pathname.startsWith("/api/")) return undefined;
    const parts = url.pathname.slice("/api/".length).split("/").filter((p) => p !== "");
    try {
      return await route(request, url, parts);
    } catch (error) {
      return errorResponse(error);
    }
  };
}
