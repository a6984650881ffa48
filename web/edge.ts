/**
 * An edge/HTTP handler that answers with the projection of an exported session, using
 * only web-standard APIs (`Request`, `Response`, `fetch`, streams, `URL`), so it runs in
 * Deno Deploy, Cloudflare Workers, Vercel Edge, Bun or `Deno.serve`.
 *
 * - `POST` with a JSONL body (any format version; streamed, never one big string):
 *   `200 { sessionId, header, sourceVersion, upgraded, leafId, projection }` where
 *   `projection` is exactly `buildSessionProjection(entries, leaf)`.
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
 * leaf, `405` for other methods, `408` for a body that does not arrive in time, `413` for
 * a body over the limit (the rest of it is not read), `502` when the URL fetch fails.
 *
 * @example
 * ```ts
 * import { handleProjectionRequest } from "./web/edge.ts";
 * Deno.serve((request) => handleProjectionRequest(request));
 * // curl --data-binary @session.jsonl 'http://localhost:8000/?leaf=a1b2c3d4'
 * ```
 *
 * @module
 */
import { SessionFormatError } from "../src/errors.ts";
import { parseSessionJsonl } from "../src/jsonl.ts";
import { buildSessionProjection } from "../src/projection.ts";
import { SessionIndex } from "../src/tree.ts";

/** Largest session accepted by default (bytes of JSONL). */
export const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;
/** Default limit for a `?url=` fetch, headers and body (ms). */
export const DEFAULT_FETCH_TIMEOUT_MS = 15_000;

/** Default limit for receiving a POSTed body (ms); a slower body is answered 408. */
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;

/** Options for {@link createProjectionHandler}. */
export interface ProjectionHandlerOptions {
  /** Which `?url=` targets may be fetched (default {@link isPublicHttpsUrl}). */
  allowUrl?: (url: URL) => boolean | Promise<boolean>;
  /** The fetch used for `?url=` (default `globalThis.fetch`). */
  fetch?: typeof fetch;
  /** Largest body or fetched file, in bytes (default {@link DEFAULT_MAX_BYTES}). */
  maxBytes?: number;
  /** Limit for a `?url=` fetch (default {@link DEFAULT_FETCH_TIMEOUT_MS}). */
  timeoutMs?: number;
  /** Limit for receiving a POSTed body, answered 408 (default {@link DEFAULT_BODY_TIMEOUT_MS}). */
  bodyTimeoutMs?: number;
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
  const [a, b, c] = [Number(match[1]), Number(match[2]), Number(match[3])];
  return a === 0 || a === 10 || a === 127 || a >= 224 || (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) ||
    (a === 100 && b >= 64 && b <= 127) || (a === 198 && (b === 18 || b === 19)) ||
    (a === 192 && b === 0 && (c === 0 || c === 2)) || (a === 198 && b === 51 && c === 100) ||
    (a === 203 && b === 0 && c === 113);
}

/** The eight 16-bit groups of an IPv6 literal (`::` and a dotted IPv4 tail expanded). */
function ipv6Groups(ip: string): number[] | undefined {
  let text = ip;
  const dotted = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${
      ((c << 8) | d).toString(16)
    }`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const parse = (part: string) => part === "" ? [] : part.split(":").map((g) => parseInt(g, 16));
  const head = parse(halves[0]);
  const tail = halves.length === 2 ? parse(halves[1]) : [];
  const fill = 8 - head.length - tail.length;
  if (halves.length === 1 ? fill !== 0 : fill < 1) return undefined;
  const groups = [...head, ...new Array(halves.length === 2 ? fill : 0).fill(0), ...tail];
  return groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}

/**
 * Whether an IPv6 literal is anything but a global unicast address. Allowed is only
 * 2000::/3 (global unicast) minus its special blocks: 2001::/23 (IETF: Teredo, ORCHID,
 * benchmarking), 2001:db8::/32 and 3fff::/20 (documentation) and 2002::/16 (6to4, which
 * embeds an IPv4 address). Everything else is refused: ::/8 (unspecified, loopback,
 * IPv4-compatible `::a.b.c.d`, IPv4-mapped `::ffff:a.b.c.d`, SIIT), 64:ff9b::/96 and
 * 64:ff9b:1::/48 (NAT64, which reaches IPv4 targets such as 127.0.0.1), 100::/64, fc00::/7
 * (unique local), fe80::/10 (link local), fec0::/10 (site local), ff00::/8 (multicast).
 */
function isNonGlobalIPv6(host: string): boolean {
  if (!host.startsWith("[")) return false;
  const groups = ipv6Groups(host.slice(1, -1).toLowerCase());
  if (!groups) return true; // unparsable: refuse
  const [g0, g1] = groups;
  if ((g0 & 0xe000) !== 0x2000) return true; // outside 2000::/3
  if (g0 === 0x2001 && g1 < 0x0200) return true; // 2001::/23
  if (g0 === 0x2001 && g1 === 0x0db8) return true;
  if (g0 === 0x2002) return true;
  if (g0 === 0x3fff && g1 < 0x1000) return true; // 3fff::/20
  return false;
}

/**
 * The default `?url=` policy: `https:`, default port, no credentials, and a host that is
 * not `localhost` (or `*.localhost`) or a loopback, private, link-local, CGNAT, multicast
 * or documentation IPv4 literal; IPv6 literals must be global unicast (no IPv4-mapped or
 * -compatible, NAT64, 6to4, Teredo, site-local, unique-local or link-local forms). Host names are not resolved (web-standard APIs cannot): see the module docs.
 *
 * @example
 * ```ts
 * import { isPublicHttpsUrl } from "./web/edge.ts";
 * isPublicHttpsUrl(new URL("https://example.com/s.jsonl")); // true
 * isPublicHttpsUrl(new URL("http://127.0.0.1/s.jsonl")); // false
 * ```
 */
export function isPublicHttpsUrl(url: URL): boolean {
  if (url.protocol !== "https:" || url.username || url.password || url.port) return false;
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  if (!host || host === "localhost" || host.endsWith(".localhost")) return false;
  return !isPrivateIPv4(host) && !isNonGlobalIPv6(host);
}

/**
 * Pass bytes through, failing with 413 past `maxBytes` and, with `timeoutMs`, with 408 when
 * the whole body has not arrived in time (a trickling body would otherwise hold the
 * connection with no answer). Either way the source is cancelled at once, so nothing more
 * of a refused body is read.
 */
function guardBody(
  stream: ReadableStream<Uint8Array>,
  maxBytes: number,
  timeoutMs?: number,
): ReadableStream<Uint8Array> {
  const reader = stream.getReader();
  let seen = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let refused: HttpError | undefined;
  const refuse = (error: HttpError) => {
    refused ??= error;
    clearTimeout(timer);
    reader.cancel(error).catch(() => {});
  };
  return new ReadableStream<Uint8Array>({
    start() {
      if (timeoutMs === undefined) return;
      timer = setTimeout(
        () =>
          refuse(
            new HttpError(408, "RequestTimeout", `the body did not arrive within ${timeoutMs} ms`),
          ),
        timeoutMs,
      );
    },
    async pull(controller) {
      let result;
      try {
        result = await reader.read();
      } catch (error) {
        clearTimeout(timer);
        return controller.error(refused ?? error);
      }
      if (refused) return controller.error(refused);
      if (result.done) {
        clearTimeout(timer);
        return controller.close();
      }
      seen += result.value.byteLength;
      if (seen > maxBytes) {
        refuse(new HttpError(413, "PayloadTooLarge", `session is larger than ${maxBytes} bytes`));
        return controller.error(refused);
      }
      controller.enqueue(result.value);
    },
    cancel(reason) {
      clearTimeout(timer);
      return reader.cancel(reason);
    },
  });
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
 * import { createProjectionHandler } from "./web/edge.ts";
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
    bodyTimeoutMs: options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS,
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
          await request.body.cancel().catch(() => {}); // refused: read none of it
          throw new HttpError(
            413,
            "PayloadTooLarge",
            `session is larger than ${settings.maxBytes} bytes`,
          );
        }
        body = guardBody(request.body, settings.maxBytes, settings.bodyTimeoutMs);
      } else if (request.method === "GET" || request.method === "HEAD") {
        if (target === null) {
          throw new HttpError(
            400,
            "BadRequest",
            "POST a session JSONL body, or GET with ?url=<exported session>",
          );
        }
        body = guardBody(await fetchSession(target, settings), settings.maxBytes);
      } else {
        return json(405, { error: "MethodNotAllowed", message: "use POST or GET" }, {
          allow: "GET, HEAD, POST",
        });
      }
      // Projection only: keeping each line's text for re-serialising would double memory.
      const parsed = await parseSessionJsonl(body, {
        source: "request",
        retainRaw: false,
      });
      const index = SessionIndex.build(parsed.entries, { source: "request" });
      if (leaf !== null && !index.get(leaf)) {
        return json(404, {
          error: "EntryNotFound",
          message: `no entry ${leaf} in this session`,
          leafId: leaf,
        });
      }
      const projection = buildSessionProjection(parsed.entries, leaf ?? undefined, index);
      return json(200, {
        sessionId: parsed.header.id,
        header: parsed.header,
        sourceVersion: parsed.sourceVersion,
        upgraded: parsed.upgraded,
        leafId: projection.leafId,
        projection,
      });
    } catch (error) {
      if (error instanceof HttpError) {
        return json(error.status, { error: error.code, message: error.message });
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
 * import { handleProjectionRequest } from "./web/edge.ts";
 * const response = await handleProjectionRequest(
 *   new Request("http://edge/", { method: "POST", body: '{"type":"session","version":4,"id":"s","createdAt":"2026-01-01T00:00:00.000Z","cwd":"/p"}\n' }),
 * );
 * (await response.json()).projection.messages; // []
 * ```
 */
export function handleProjectionRequest(request: Request): Promise<Response> {
  return defaultHandler(request);
}
