/**
 * An edge/HTTP handler that answers with the projection of an exported session, using
 * only web-standard APIs (`Request`, `Response`, `fetch`, streams, `URL`), so it runs in
 * Deno Deploy, Cloudflare Workers, Vercel Edge, Bun or `Deno.serve`.
 *
 * - `POST` with a JSONL body (any format version; streamed, never one big string):
 *   `200 { sessionId, header, sourceVersion, upgraded, leafId, missingParentIds, projection }`
 *   where `projection` is exactly `buildSessionProjection(entries, leaf)` and
 *   `missingParentIds` names parents entries point at but the session lacks (history is
 *   missing there). An unknown `?leaf=` is the projection's `EntryNotFoundError`, as 404.
 * - `GET ?url=<https URL of an exported .jsonl>`: the same for a session fetched by the
 *   handler. **Careful**: this makes the handler fetch URLs chosen by its callers
 *   (server-side request forgery). By default only `https:` URLs on the default port,
 *   without credentials, whose host is not `localhost` or a loopback/private/link-local
 *   IP literal are fetched; redirects are not followed; request headers and cookies are
 *   never forwarded; the body is capped ({@link EDGE_DEFAULTS}) and the fetch times
 *   out. A host *name* that resolves to a private address cannot be detected with
 *   web-standard APIs: in production pass `allowUrl` with an allowlist of hosts, or
 *   `allowUrl: () => false` to turn `?url=` off.
 * - With an export index beside the `?url=` export (`<url>.idx`, or `&index=<url>`; written
 *   by `mu export --index`), only the blocks the leaf's context needs are fetched, by HTTP
 *   Range, each checked against the index's digests; the answer is exactly the whole-body
 *   one. `409 ExportChanged` when the object changed while it was read, `502
 *   ExportIndexMismatch` when the index and the bytes do not describe one file (docs/edge.md).
 * - `?leaf=<entry id>` picks the leaf (default: the last entry in file order).
 * - `?form=compact` answers without copying the caller's entries back: `projection.entries[]`
 *   carry `sourceEntryId` and `messageCount` (their messages are the next `messageCount`
 *   items of `projection.messages`) instead of `sourceEntry` and `messages`. The default
 *   (`form=full`) keeps the shape above.
 * - Memory: the answer is streamed as it is serialised (never one big string), at most
 *   `maxConcurrent` requests parse and project at once, `maxQueued` more wait with their
 *   bodies unread, and the rest are answered `503` with `retry-after`.
 *
 * Errors are JSON `{ error, message, ... }`: `400` for a `SessionFormatError` (with its
 * `line` and `reason`) or a bad request, `403` for a refused URL, `404` for an unknown
 * leaf, `405` for other methods, `503` when too many requests wait, `408` for a body that
 * does not arrive in time, `413` for a body over the limit (the rest of it is not read),
 * `502` when the URL fetch fails, including a fetched body that stalls past `timeoutMs` or
 * breaks off after the headers (the message says which).
 *
 * Platforms: the default limit is 32 MiB on 128 MB isolates and 64 MiB elsewhere
 * ({@link EDGE_DEFAULTS}). In Cloudflare Workers any compatibility date works, with no flags
 * (tested in workerd at 2021-11-03 and 2025-09-01): the body is counted by a plain reader
 * loop and the answer written into an identity `TransformStream`, both present on every
 * date. `tests/edge/` runs this handler inside workerd and Vercel's edge-runtime.
 *
 * @example
 * ```ts
 * import { handleProjectionRequest } from "@mu/sessions/edge";
 * Deno.serve((request) => handleProjectionRequest(request));
 * // curl --data-binary @session.jsonl 'http://localhost:8000/?leaf=a1b2c3d4'
 * ```
 *
 * @module
 */
// Through the public core, as any user would: the core loads no schema library, so this
// bundle is the core's parser and projection plus this handler.
import {
  buildSessionProjection,
  EntryNotFoundError,
  parseSessionJsonl,
  SessionFormatError,
  type SessionHeader,
  SessionIndex,
  type SessionProjection,
} from "../core.ts";
import { Gate, projectionJson, type RawJson } from "./_edge_response.ts";
import { isPublicHttpsUrl } from "./_url_guard.ts";
import { readIndexed } from "./_edge_range.ts";
import {
  FETCHED_BODY,
  fetchSession,
  guardBody,
  HttpError,
  POSTED_BODY,
  tooLarge,
} from "./_edge_body.ts";

export { isPublicHttpsUrl };

/**
 * The limits a handler uses for the options it is not given:
 * - `maxBytes`: largest session accepted where memory is not capped at 128 MB (Deno Deploy,
 *   Deno, Node, Bun), bytes of JSONL;
 * - `smallIsolateMaxBytes`: the same on a 128 MB isolate (Cloudflare Workers, told by their
 *   `WebSocketPair` global, present on every compatibility date; Vercel Edge Functions, by
 *   their `EdgeRuntime` global). The worst case is a session of tiny entries, whose objects
 *   take about 3 times its bytes: at this size it projects under a 128 MB heap, at twice it
 *   does not (the isolate dies), so larger sessions are refused with a JSON 413 first;
 * - `fetchTimeoutMs`: limit for a `?url=` fetch, headers and body;
 * - `bodyTimeoutMs`: limit for receiving a POSTed body (a slower one is answered 408);
 * - `maxConcurrent`: requests parsed and projected at once;
 * - `maxQueued`: requests waiting for a turn, their bodies unread (more are answered 503).
 *
 * @example
 * ```ts
 * import { createProjectionHandler, EDGE_DEFAULTS } from "@mu/sessions/edge";
 * const handler = createProjectionHandler({
 *   maxBytes: EDGE_DEFAULTS.smallIsolateMaxBytes,
 *   maxConcurrent: EDGE_DEFAULTS.maxConcurrent * 2,
 * });
 * ```
 */
export const EDGE_DEFAULTS: Readonly<{
  maxBytes: number;
  smallIsolateMaxBytes: number;
  fetchTimeoutMs: number;
  bodyTimeoutMs: number;
  maxConcurrent: number;
  maxQueued: number;
}> = Object.freeze({
  maxBytes: 64 * 1024 * 1024,
  smallIsolateMaxBytes: 32 * 1024 * 1024,
  fetchTimeoutMs: 15_000,
  bodyTimeoutMs: 30_000,
  maxConcurrent: 4,
  maxQueued: 32,
});

/** The `maxBytes` used when none is given, for the platform this runs on. */
function defaultMaxBytes(): number {
  const global = globalThis as { WebSocketPair?: unknown; EdgeRuntime?: unknown };
  const smallIsolate = typeof global.WebSocketPair === "function" ||
    typeof global.EdgeRuntime === "string";
  return smallIsolate ? EDGE_DEFAULTS.smallIsolateMaxBytes : EDGE_DEFAULTS.maxBytes;
}

/**
 * Options for {@link createProjectionHandler}.
 *
 * @example
 * ```ts
 * import { createProjectionHandler, type ProjectionHandlerOptions } from "@mu/sessions/edge";
 * const options: ProjectionHandlerOptions = {
 *   allowUrl: (url) => url.hostname === "sessions.example.com",
 *   maxBytes: 8 * 1024 * 1024,
 * };
 * const handler = createProjectionHandler(options);
 * ```
 */
export interface ProjectionHandlerOptions {
  /** Which `?url=` targets may be fetched (default {@link isPublicHttpsUrl}). */
  allowUrl?: (url: URL) => boolean | Promise<boolean>;
  /** The fetch used for `?url=` (default `globalThis.fetch`). */
  fetch?: typeof fetch;
  /** Largest body or fetched file, in bytes (default per platform, see {@link EDGE_DEFAULTS}). */
  maxBytes?: number;
  /** Limit for a `?url=` fetch (default `EDGE_DEFAULTS.fetchTimeoutMs`). */
  timeoutMs?: number;
  /** Limit for receiving a POSTed body, answered 408 (default `EDGE_DEFAULTS.bodyTimeoutMs`). */
  bodyTimeoutMs?: number;
  /**
   * Requests parsed and projected at once (default `EDGE_DEFAULTS.maxConcurrent`): each
   * holds its session in memory, so this bounds the handler's memory.
   */
  maxConcurrent?: number;
  /** Requests waiting for a turn, their bodies unread (default `EDGE_DEFAULTS.maxQueued`); more are answered 503. */
  maxQueued?: number;
}

function jsonHeaders(extra?: Record<string, string>): Record<string, string> {
  return {
    ...extra,
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
  };
}

function json(status: number, body: unknown, extra?: Record<string, string>): Response {
  return new Response(JSON.stringify(body), { status, headers: jsonHeaders(extra) });
}

const badRequest = (message: string) => new HttpError(400, "BadRequest", message);

/**
 * Build a handler with its own limits and `?url=` policy.
 *
 * @example
 * ```ts
 * import { createProjectionHandler } from "@mu/sessions/edge";
 * const handler = createProjectionHandler({
 *   allowUrl: (url) => url.origin === "https://exports.example.com",
 *   maxBytes: 16 * 1024 * 1024,
 * });
 * Deno.serve(handler);
 * ```
 */
export function createProjectionHandler(
  options: ProjectionHandlerOptions = {},
): (request: Request) => Promise<Response> {
  const settings = {
    ...options,
    maxBytes: options.maxBytes ?? defaultMaxBytes(),
    timeoutMs: options.timeoutMs ?? EDGE_DEFAULTS.fetchTimeoutMs,
    bodyTimeoutMs: options.bodyTimeoutMs ?? EDGE_DEFAULTS.bodyTimeoutMs,
  };
  const gate = new Gate(
    options.maxConcurrent ?? EDGE_DEFAULTS.maxConcurrent,
    options.maxQueued ?? EDGE_DEFAULTS.maxQueued,
  );
  return async (request: Request): Promise<Response> => {
    let leave: (() => void) | undefined;
    try {
      const params = new URL(request.url).searchParams;
      const leaf = params.get("leaf");
      if (leaf === "") throw badRequest("leaf must be a non-empty entry id");
      const form = params.get("form") ?? "full";
      if (form !== "full" && form !== "compact") {
        throw badRequest("form must be full or compact");
      }
      const target = params.get("url");
      if (target === null && params.has("index")) {
        throw badRequest("index= goes with url=");
      }
      if (!["GET", "HEAD", "POST"].includes(request.method)) {
        return json(405, { error: "MethodNotAllowed", message: "use POST or GET" }, {
          allow: "GET, HEAD, POST",
        });
      }
      leave = await gate.enter();
      if (!leave) {
        await request.body?.cancel().catch(() => {});
        throw new HttpError(503, "Busy", "too many sessions are being projected; retry shortly");
      }
      let answer: SessionAnswer | undefined;
      let body: AsyncIterable<Uint8Array> | undefined;
      if (request.method === "POST") {
        if (target !== null) {
          throw badRequest("send either a JSONL body or ?url=, not both");
        }
        if (!request.body) throw badRequest("the request has no body");
        const length = Number(request.headers.get("content-length") ?? "NaN");
        if (Number.isFinite(length) && length > settings.maxBytes) {
          await request.body.cancel().catch(() => {}); // refused: read none of it
          throw tooLarge(settings.maxBytes);
        }
        body = guardBody(request.body, settings.maxBytes, POSTED_BODY, settings.bodyTimeoutMs);
      } else {
        if (target === null) {
          throw badRequest("POST a session JSONL body, or GET with ?url=<exported session>");
        }
        const read = await readIndexed(target, params.get("index"), leaf, settings);
        if (read.kind === "answer") answer = read.answer;
        else {
          body = read.kind === "whole" ? read.body : guardBody(
            await fetchSession(target, settings),
            settings.maxBytes,
            FETCHED_BODY,
            settings.timeoutMs,
          );
        }
      }
      answer ??= await projectBody(body!, leaf ?? undefined);
      const fields = {
        sessionId: answer.header.id,
        header: answer.header,
        sourceVersion: answer.sourceVersion,
        upgraded: answer.upgraded,
        leafId: answer.projection.leafId,
        missingParentIds: answer.missingParentIds,
      };
      // Streamed, so the answer is never one big string; the slot is held until it is sent.
      const stream = projectionJson(
        fields,
        answer.projection,
        form === "compact",
        leave,
        answer.raw,
      );
      leave = undefined;
      return new Response(stream, { status: 200, headers: jsonHeaders() });
    } catch (error) {
      if (error instanceof HttpError) {
        const extra: Record<string, string> = error.status === 503 ? { "retry-after": "1" } : {};
        // A refused body is not drained: servers that honour it (Deno.serve does) close the
        // connection instead of reading the rest of it.
        if ([408, 413, 503].includes(error.status)) extra.connection = "close";
        return json(error.status, { error: error.code, message: error.message }, extra);
      }
      if (error instanceof EntryNotFoundError) {
        // The projection's own answer for an unknown leaf, as a 404.
        return json(404, {
          error: "EntryNotFoundError",
          message: `no entry ${error.entryId} in this session`,
          leafId: error.entryId,
        });
      }
      if (error instanceof SessionFormatError) {
        return json(400, {
          error: "SessionFormatError",
          message: error.message,
          line: error.line,
          reason: error.reason,
        });
      }
      return json(500, { error: "InternalError", message: "the session could not be projected" });
    } finally {
      leave?.();
    }
  };
}

/** What an answer says of the session, read whole or through its index. */
interface SessionAnswer {
  header: SessionHeader;
  sourceVersion: number;
  upgraded: boolean;
  missingParentIds: string[];
  projection: SessionProjection;
  /** Messages of the projection whose JSON is known as bytes (a range read's spans). */
  raw?: RawJson;
}

/** A whole session body parsed and projected at `leaf`. */
async function projectBody(
  body: AsyncIterable<Uint8Array>,
  leaf: string | undefined,
): Promise<SessionAnswer> {
  // Projection only: keeping each line's text for re-serialising would double memory.
  const parsed = await parseSessionJsonl(body, { source: "request", retainRaw: false });
  const index = SessionIndex.build(parsed.entries, { source: "request" });
  return {
    header: parsed.header,
    sourceVersion: parsed.sourceVersion,
    upgraded: parsed.upgraded,
    missingParentIds: index.missingParentIds(),
    projection: buildSessionProjection(parsed.entries, leaf, index),
  };
}

const defaultHandler = createProjectionHandler();

/**
 * Answer a projection request with the default policy (see the module docs): POST a JSONL
 * body, or GET `?url=` of a public `https:` export; `?leaf=` picks the leaf.
 *
 * @example
 * ```ts
 * import { handleProjectionRequest } from "@mu/sessions/edge";
 * const response = await handleProjectionRequest(
 *   new Request("http://edge/", { method: "POST", body: '{"type":"session","version":4,"id":"s","createdAt":"2026-01-01T00:00:00.000Z","cwd":"/p"}\n' }),
 * );
 * (await response.json()).projection.messages; // []
 * ```
 */
export function handleProjectionRequest(request: Request): Promise<Response> {
  return defaultHandler(request);
}
