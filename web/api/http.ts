/**
 * Small web-standard HTTP helpers shared by the session API: JSON answers with a status a
 * client can act on, typed library errors mapped to statuses, and a body stream that stops
 * (and cancels the upload) as soon as a size limit is passed.
 *
 * @module
 */
import {
  EntryConflictError,
  EntryNotFoundError,
  InvalidArgumentError,
  SessionError,
  SessionExistsError,
  SessionFormatError,
  SessionNotFoundError,
} from "../../src/errors.ts";

/** An error that carries its HTTP status and a short machine-readable code. */
export class HttpError extends Error {
  override name = "HttpError";
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

/**
 * The header of an entry page saying how far it reaches of the session's entries, as
 * `<offset + entries>/<total>`: a client shows a load's progress without parsing it twice.
 */
export const ENTRY_PROGRESS_HEADER = "x-mu-entry-progress";

/** A JSON response. */
export function json(status: number, body: unknown, headers?: HeadersInit): Response {
  const response = new Response(JSON.stringify(body), { status, headers });
  response.headers.set("content-type", "application/json; charset=utf-8");
  return response;
}

/** The JSON error response for any error: library errors keep their class name; others say nothing internal. */
export function errorResponse(error: unknown): Response {
  if (error instanceof HttpError) {
    return json(error.status, { error: error.code, message: error.message });
  }
  if (error instanceof SessionFormatError) {
    return json(400, {
      error: error.name,
      message: error.message,
      line: error.line,
      reason: error.reason,
    });
  }
  if (error instanceof SessionError) {
    const status = error instanceof SessionNotFoundError || error instanceof EntryNotFoundError
      ? 404
      : error instanceof SessionExistsError || error instanceof EntryConflictError
      ? 409
      : error instanceof InvalidArgumentError
      ? 400
      : 500;
    return json(status, { error: error.name, message: error.message });
  }
  return json(500, { error: "InternalError", message: "the request could not be answered" });
}

/** Options of {@link limitedBody}. */
export interface BodyLimits {
  /** Largest accepted body: past it the stream fails with a 413 and the upload is cancelled. */
  maxBytes: number;
  /** Longest wait for the next chunk: past it the stream fails with a 408 and the upload is cancelled. */
  idleMs: number;
}

/**
 * A request's body as a stream that enforces `limits` while it is consumed, so a consumer
 * that parses as it reads holds no copy of the whole body. A declared length over the limit
 * is refused before anything is read. A plain reader loop: it counts on every runtime,
 * whatever its stream implementation.
 *
 * @example
 * ```ts
 * import { limitedBody } from "./http.ts";
 * const request = new Request("http://127.0.0.1/", { method: "POST", body: "{}" });
 * const body = await limitedBody(request, { maxBytes: 1024, idleMs: 30_000 });
 * await new Response(body).text(); // "{}"
 * ```
 */
export async function limitedBody(
  request: Request,
  limits: BodyLimits,
): Promise<ReadableStream<Uint8Array>> {
  const { maxBytes, idleMs } = limits;
  const length = Number(request.headers.get("content-length") ?? "NaN");
  const tooLarge = () =>
    new HttpError(413, "PayloadTooLarge", `the body is larger than ${maxBytes} bytes`);
  if (Number.isFinite(length) && length > maxBytes) {
    await request.body?.cancel();
    throw tooLarge();
  }
  if (!request.body) return new Blob([]).stream();
  const reader = request.body.getReader();
  let size = 0;
  const nextChunk = () => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const idle = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new HttpError(408, "RequestTimeout", `no body data arrived for ${idleMs} ms`)),
        idleMs,
      );
    });
    return Promise.race([reader.read(), idle]).finally(() => clearTimeout(timer));
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await nextChunk();
        if (done) return controller.close();
        size += value.byteLength;
        if (size > maxBytes) throw tooLarge();
        controller.enqueue(value);
      } catch (error) {
        reader.cancel().catch(() => {});
        controller.error(error);
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}
