/**
 * How the edge handler reads a session body (POSTed, or fetched for `?url=`) within its
 * limits, and the HTTP errors it answers with. Private to `web/edge.ts`.
 *
 * @module
 */
import { isPublicHttpsUrl } from "./_url_guard.ts";

/**
 * What {@link fetchSession} needs of the handler's options.
 *
 * @example
 * ```ts
 * import { type FetchSettings } from "./_edge_body.ts";
 * const settings: FetchSettings = { maxBytes: 1024, timeoutMs: 1000 };
 * ```
 */
export interface FetchSettings {
  allowUrl?: (url: URL) => boolean | Promise<boolean>;
  fetch?: typeof fetch;
  maxBytes: number;
  timeoutMs: number;
}

/**
 * A request the handler refuses, with its HTTP status.
 *
 * @example
 * ```ts
 * import { HttpError } from "./_edge_body.ts";
 * new HttpError(400, "BadRequest", "leaf must be a non-empty entry id");
 * ```
 */
export class HttpError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

/** A body over the handler's byte limit (413), however it was found out. */
export const tooLarge = (maxBytes: number): HttpError =>
  new HttpError(413, "PayloadTooLarge", `session is larger than ${maxBytes} bytes`);

/**
 * How a body read ends badly: the status for a stall and for a failed read.
 *
 * @example
 * ```ts
 * import { type BodyFailures, HttpError } from "./_edge_body.ts";
 * const failures: BodyFailures = { timeout: (ms) => new HttpError(408, "RequestTimeout", `${ms}`) };
 * ```
 */
export interface BodyFailures {
  /** The answer when the whole body has not arrived within the time limit. */
  timeout: (ms: number) => HttpError;
  /** The answer when reading fails (a reset connection); `undefined` rethrows as it is. */
  readFailed?: (error: unknown) => HttpError;
}

/** A POSTed body: a stall is the client's (408), a failed read rethrown. */
export const POSTED_BODY: BodyFailures = {
  timeout: (ms) => new HttpError(408, "RequestTimeout", `the body did not arrive within ${ms} ms`),
};

/** A `?url=` body: a stall or a failed read is the upstream's (502, with the reason). */
export const FETCHED_BODY: BodyFailures = {
  timeout: (ms) =>
    new HttpError(502, "FetchFailed", `the session body did not arrive within ${ms} ms`),
  readFailed: (error) =>
    new HttpError(
      502,
      "FetchFailed",
      `reading the session body failed: ${(error as Error)?.message ?? String(error)}`,
    ),
};

/**
 * The body's chunks, counted with a plain reader loop: past `maxBytes` it fails with 413
 * and, with `timeoutMs`, when the whole body has not arrived in time (a trickling body
 * would otherwise hold the connection with no answer). Either way the source is cancelled
 * at once, so nothing more of a refused body is read. A generator, not a `new
 * ReadableStream` or a `TransformStream` with a transformer: Workers before compatibility
 * date 2022-11-30 have neither (the stream constructor throws, a transformer is ignored).
 *
 * @example
 * ```ts
 * import { guardBody, POSTED_BODY } from "./_edge_body.ts";
 * const body = guardBody(new Response("{}\n").body!, 1024, POSTED_BODY, 1000);
 * for await (const chunk of body) console.log(chunk.length);
 * ```
 */
export async function* guardBody(
  stream: ReadableStream<Uint8Array>,
  maxBytes: number,
  failures: BodyFailures,
  timeoutMs?: number,
): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  let seen = 0;
  let refused: HttpError | undefined;
  const refuse = (error: HttpError) => {
    refused ??= error;
    reader.cancel(error).catch(() => {});
    return error;
  };
  const timer = timeoutMs === undefined
    ? undefined
    : setTimeout(() => refuse(failures.timeout(timeoutMs)), timeoutMs);
  try {
    while (true) {
      let result;
      try {
        result = await reader.read();
      } catch (error) {
        throw refused ?? failures.readFailed?.(error) ?? error;
      }
      if (refused) throw refused;
      if (result.done) return;
      seen += result.value.byteLength;
      if (seen > maxBytes) {
        throw refuse(tooLarge(maxBytes));
      }
      yield result.value;
    }
  } finally {
    clearTimeout(timer);
    // Stopped early (a format error): the rest is not wanted.
    if (!refused) reader.cancel().catch(() => {});
  }
}

/**
 * One GET under the handler's policy: the URL allowed by `allowUrl` (default
 * {@link isPublicHttpsUrl}), no redirects, no caller headers (only `headers`), the given
 * signal. The answer may be any status but a redirect; a refusal is an {@link HttpError}
 * (400, 403, 502). Every request the handler makes for `?url=` (the export, its index, each
 * range) goes through here.
 *
 * @example
 * ```ts
 * import { guardedGet } from "./_edge_body.ts";
 * const response = await guardedGet("https://exports.example.com/s.jsonl.idx", {
 *   maxBytes: 1 << 20,
 *   timeoutMs: 5000,
 * }, {}, AbortSignal.timeout(5000));
 * ```
 */
export async function guardedGet(
  target: string,
  options: FetchSettings,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<Response> {
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
      headers: {
        accept: "application/jsonl, application/x-ndjson, text/plain;q=0.9, */*;q=0.1",
        ...headers,
      },
      signal,
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
  return response;
}

/**
 * Fetch a `?url=` session whole under the handler's policy ({@link guardedGet}) with a time
 * limit and a declared length within `maxBytes`. Every refusal is an {@link HttpError}
 * (400, 403, 413, 502).
 *
 * @example
 * ```ts
 * import { fetchSession } from "./_edge_body.ts";
 * const body = await fetchSession("https://exports.example.com/s.jsonl", {
 *   maxBytes: 1 << 20,
 *   timeoutMs: 5000,
 * });
 * ```
 */
export async function fetchSession(
  target: string,
  options: FetchSettings,
): Promise<ReadableStream<Uint8Array>> {
  const response = await guardedGet(target, options, {}, AbortSignal.timeout(options.timeoutMs));
  if (!response.ok || !response.body) {
    await response.body?.cancel();
    throw new HttpError(502, "FetchFailed", `the session URL answered HTTP ${response.status}`);
  }
  const length = Number(response.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(length) && length > options.maxBytes) {
    await response.body.cancel();
    throw tooLarge(options.maxBytes);
  }
  return response.body;
}
