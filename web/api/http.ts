/**
 * Small web-standard HTTP helpers shared by the session API: JSON answers with a status a
 * client can act on, typed library errors mapped to statuses, and a body reader that stops
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

/**
 * Read a request body into memory, refusing (413, upload cancelled) past `maxBytes`. A
 * plain reader loop: it counts on every runtime, whatever its stream implementation.
 */
export async function readBodyLimited(request: Request, maxBytes: number): Promise<Uint8Array> {
  const length = Number(request.headers.get("content-length") ?? "NaN");
  const tooLarge = () =>
    new HttpError(413, "PayloadTooLarge", `the body is larger than ${maxBytes} bytes`);
  if (Number.isFinite(length) && length > maxBytes) {
    await request.body?.cancel();
    throw tooLarge();
  }
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}
