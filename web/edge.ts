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
 *   never forwarded; the body is capped ({@link DEFAULT_MAX_BYTES}) and the fetch times
 *   out. A host *name* that resolves to a private address cannot be detected with
 *   web-standard APIs: in production pass `allowUrl` with an allowlist of hosts, or
 *   `allowUrl: () => false` to turn `?url=` off.
 * - `?leaf=<entry id>` picks the leaf (default: the last entry in file order).
 *
 * Errors are JSON `{ error, message, ... }`: `400` for a `SessionFormatError` (with its
 * `line` and `reason`) or a bad request, `403` for a refused URL, `404` for an unknown
 * leaf, `405` for other methods, `413` for a body over the limit, `502` when the URL
 * fetch fails.
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
// Only the runtime-agnostic entry: an edge function bundles this file and nothing else.
import {
  buildSessionProjection,
  EntryNotFoundError,
  parseSessionJsonl,
  SessionFormatError,
  SessionIndex,
} from "../core.ts";

/**
 * Largest session accepted by default (bytes of JSONL).
 *
 * @example
 * ```ts
 * import { createProjectionHandler, DEFAULT_MAX_BYTES } from "@mu/sessions/edge";
 * const handler = createProjectionHandler({ maxBytes: DEFAULT_MAX_BYTES / 4 });
 * ```
 */
export const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;
/**
 * Default limit for a `?url=` fetch, headers and body (ms).
 *
 * @example
 * ```ts
 * import { createProjectionHandler, DEFAULT_FETCH_TIMEOUT_MS } from "@mu/sessions/edge";
 * const handler = createProjectionHandler({ timeoutMs: 2 * DEFAULT_FETCH_TIMEOUT_MS });
 * ```
 */
export const DEFAULT_FETCH_TIMEOUT_MS = 15_000;

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
  /** Largest body or fetched file, in bytes (default {@link DEFAULT_MAX_BYTES}). */
  maxBytes?: number;
  /** Limit for a `?url=` fetch (default {@link DEFAULT_FETCH_TIMEOUT_MS}). */
  timeoutMs?: number;
}

/** A request the handler refuses, with its HTTP status. */
class HttpError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

function json(status: number, body: unknown, extra: HeadersInit = {}): Response {
  const headers = new Headers(extra);
  headers.set("content-type", "application/json; charset=utf-8");
  headers.set("cache-control", "no-store");
  headers.set("x-content-type-options", "nosniff");
  return new Response(JSON.stringify(body), { status, headers });
}

function isPrivateIPv4(host: string): boolean {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!match) return false;
  const [a, b] = [Number(match[1]), Number(match[2])];
  return a === 0 || a === 10 || a === 127 || a >= 224 || (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) ||
    (a === 100 && b >= 64 && b <= 127) || (a === 198 && (b === 18 || b === 19));
}

function isPrivateIPv6(host: string): boolean {
  if (!host.startsWith("[")) return false;
  const ip = host.slice(1, -1).toLowerCase();
  if (ip === "::" || ip === "::1") return true;
  if (/^f[cd]/.test(ip) || /^fe[89ab]/.test(ip)) return true; // unique local, link local
  const mapped = /^::ffff:(.+)$/.exec(ip);
  if (mapped) {
    const tail = mapped[1];
    if (tail.includes(".")) return isPrivateIPv4(tail);
    const parts = tail.split(":").map((part) => parseInt(part, 16));
    if (parts.length === 2 && parts.every((n) => n >= 0 && n <= 0xffff)) {
      const v4 = [parts[0] >> 8, parts[0] & 255, parts[1] >> 8, parts[1] & 255].join(".");
      return isPrivateIPv4(v4);
    }
    return true;
  }
  return false;
}

/**
 * The default `?url=` policy: `https:`, default port, no credentials, and a host that is
 * not `localhost` (or `*.localhost`) or a loopback, private, link-local, CGNAT or multicast
 * IP literal. Host names are not resolved (web-standard APIs cannot): see the module docs.
 *
 * @example
 * ```ts
 * import { isPublicHttpsUrl } from "@mu/sessions/edge";
 * isPublicHttpsUrl(new URL("https://example.com/s.jsonl")); // true
 * isPublicHttpsUrl(new URL("http://127.0.0.1/s.jsonl")); // false
 * ```
 */
export function isPublicHttpsUrl(url: URL): boolean {
  if (url.protocol !== "https:" || url.username || url.password || url.port) return false;
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  if (!host || host === "localhost" || host.endsWith(".localhost")) return false;
  return !isPrivateIPv4(host) && !isPrivateIPv6(host);
}

/** Pass bytes through, failing with 413 past `maxBytes`. */
function limitBytes(
  stream: ReadableStream<Uint8Array>,
  maxBytes: number,
): ReadableStream<Uint8Array> {
  let seen = 0;
  return stream.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > maxBytes) {
          controller.error(
            new HttpError(413, "PayloadTooLarge", `session is larger than ${maxBytes} bytes`),
          );
          return;
        }
        controller.enqueue(chunk);
      },
    }),
  );
}

async function fetchSession(
  target: string,
  options:
    & Required<Pick<ProjectionHandlerOptions, "maxBytes" | "timeoutMs">>
    & ProjectionHandlerOptions,
): Promise<ReadableStream<Uint8Array>> {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new HttpError(400, "BadRequest", "url is not an absolute URL");
  }
  const allow = options.allowUrl ?? isPublicHttpsUrl;
  if (!(await allow(url))) {
    throw new HttpError(
      403,
      "UrlNotAllowed",
      `fetching ${url.origin} is not allowed by this handler`,
    );
  }
  const doFetch = options.fetch ?? globalThis.fetch;
  let response: Response;
  try {
    response = await doFetch(url, {
      method: "GET",
      redirect: "manual",
      credentials: "omit",
      referrerPolicy: "no-referrer",
      headers: { accept: "application/jsonl, application/x-ndjson, text/plain;q=0.9, */*;q=0.1" },
      signal: AbortSignal.timeout(options.timeoutMs),
    });
  } catch (error) {
    throw new HttpError(
      502,
      "FetchFailed",
      `fetching the session failed: ${(error as Error).message}`,
    );
  }
  if (response.status >= 300 && response.status < 400 || response.type === "opaqueredirect") {
    await response.body?.cancel();
    throw new HttpError(
      502,
      "FetchFailed",
      "the session URL redirects; redirects are not followed",
    );
  }
  if (!response.ok || !response.body) {
    await response.body?.cancel();
    throw new HttpError(502, "FetchFailed", `the session URL answered HTTP ${response.status}`);
  }
  const length = Number(response.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(length) && length > options.maxBytes) {
    await response.body.cancel();
    throw new HttpError(413, "PayloadTooLarge", `session is larger than ${options.maxBytes} bytes`);
  }
  return response.body;
}

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
    maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES,
    timeoutMs: options.timeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS,
  };
  return async (request: Request): Promise<Response> => {
    try {
      const params = new URL(request.url).searchParams;
      const leaf = params.get("leaf");
      if (leaf === "") throw new HttpError(400, "BadRequest", "leaf must be a non-empty entry id");
      const target = params.get("url");
      let body: ReadableStream<Uint8Array>;
      if (request.method === "POST") {
        if (target !== null) {
          throw new HttpError(400, "BadRequest", "send either a JSONL body or ?url=, not both");
        }
        if (!request.body) throw new HttpError(400, "BadRequest", "the request has no body");
        const length = Number(request.headers.get("content-length") ?? "NaN");
        if (Number.isFinite(length) && length > settings.maxBytes) {
          throw new HttpError(
            413,
            "PayloadTooLarge",
            `session is larger than ${settings.maxBytes} bytes`,
          );
        }
        body = request.body;
      } else if (request.method === "GET" || request.method === "HEAD") {
        if (target === null) {
          throw new HttpError(
            400,
            "BadRequest",
            "POST a session JSONL body, or GET with ?url=<exported session>",
          );
        }
        body = await fetchSession(target, settings);
      } else {
        return json(405, { error: "MethodNotAllowed", message: "use POST or GET" }, {
          allow: "GET, HEAD, POST",
        });
      }
      // Projection only: keeping each line's text for re-serialising would double memory.
      const parsed = await parseSessionJsonl(limitBytes(body, settings.maxBytes), {
        source: "request",
        retainRaw: false,
      });
      const index = SessionIndex.build(parsed.entries, { source: "request" });
      const projection = buildSessionProjection(parsed.entries, leaf ?? undefined, index);
      return json(200, {
        sessionId: parsed.header.id,
        header: parsed.header,
        sourceVersion: parsed.sourceVersion,
        upgraded: parsed.upgraded,
        leafId: projection.leafId,
        missingParentIds: index.missingParentIds(),
        projection,
      });
    } catch (error) {
      if (error instanceof HttpError) {
        return json(error.status, { error: error.code, message: error.message });
      }
      if (error instanceof EntryNotFoundError) {
        // The projection's own answer for an unknown leaf, as a 404.
        return json(404, {
          error: "EntryNotFound",
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
    }
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
