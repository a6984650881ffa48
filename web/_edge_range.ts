/**
 * The edge handler's range path: a `?url=` export read through its index by HTTP Range
 * requests (`src/_range_reader.ts`), every request under the handler's URL policy and one
 * time limit, and its refusals turned into the handler's HTTP errors. Private to
 * `web/edge.ts`. A static import on purpose: loaded by a dynamic `import()` it would make a
 * splitting bundler's first chunk a little smaller but every non-splitting bundle (wrangler's,
 * the tests') larger, with the core still in the first chunk (measured: bench/README.md).
 *
 * @module
 */
import { SessionError } from "../src/errors.ts";
import { ExportIndexError } from "../src/export_index.ts";
import {
  ExportChangedError,
  type RangeRead,
  RangeReadError,
  readExportContext,
} from "../src/_range_reader.ts";
import { type FetchSettings, guardedGet, HttpError } from "./_edge_body.ts";

/**
 * The `?url=` export read through its index (`&index=`, or `<url>.idx` when present) by
 * range requests. Refusals are {@link HttpError}s (409 for an object that changed, 413 over
 * the byte limit, 502 for an index or server at fault), also when they surface while the
 * whole body of a server that ignores Range is read.
 *
 * @example
 * ```ts
 * import { readIndexed } from "./_edge_range.ts";
 * const read = await readIndexed("https://exports.example.com/s1.jsonl", null, null, {
 *   maxBytes: 32 << 20,
 *   timeoutMs: 10_000,
 * });
 * console.log(read.kind);
 * ```
 */
export async function readIndexed(
  url: string,
  indexUrl: string | null,
  leafId: string | null,
  settings: FetchSettings,
): Promise<RangeRead> {
  const signal = AbortSignal.timeout(settings.timeoutMs);
  // Ours pass as they are; a stall is the time limit; anything else is the upstream's failure.
  const failed = (error: unknown) =>
    indexRefusal(error) ??
      (error instanceof HttpError || error instanceof SessionError ? error : new HttpError(
        502,
        "FetchFailed",
        signal.aborted
          ? `the session did not arrive within ${settings.timeoutMs} ms`
          : `reading the session failed: ${(error as Error)?.message}`,
      ));
  try {
    const read = await readExportContext({
      url,
      indexUrl: indexUrl ?? undefined,
      leafId: leafId ?? undefined,
      get: (target, headers, signal) => guardedGet(target, settings, headers, signal),
      maxBytes: settings.maxBytes,
      signal,
    });
    if (read.kind !== "whole") return read;
    const body = read.body;
    return {
      ...read,
      body: (async function* () {
        try {
          yield* body;
        } catch (error) {
          throw failed(error);
        }
      })(),
    };
  } catch (error) {
    throw failed(error);
  }
}

/** The HTTP error for a range read's refusal, if `error` is one. */
function indexRefusal(error: unknown): HttpError | undefined {
  if (error instanceof ExportChangedError) {
    return new HttpError(409, "ExportChanged", error.message);
  }
  if (error instanceof RangeReadError) {
    return error.tooLarge
      ? new HttpError(413, "PayloadTooLarge", error.message)
      : new HttpError(502, "FetchFailed", error.message);
  }
  if (error instanceof ExportIndexError) {
    return new HttpError(502, "ExportIndexMismatch", error.message);
  }
  return undefined;
}
