/**
 * What `GET /api/sessions` says about the files a listing left out: the path and why, never
 * any of the file's text (the server's files are private to whoever reads them there, and
 * the JSON parser's message quotes the line it choked on). A second copy of a session in
 * another source is not unreadable (every session has one after `mu migrate`), so it is
 * not reported here; `mu ls` counts those.
 *
 * @module
 */
import { SessionFormatError } from "../../src/errors.ts";
import type { SkippedSession } from "../../src/store.ts";

/**
 * A file a listing could not read.
 *
 * @example
 * ```ts
 * import type { SkippedView } from "./skipped.ts";
 * const view: SkippedView = { path: "/s/a.jsonl", error: "SessionFormatError", line: 2, reason: "invalid JSON" };
 * ```
 */
export interface SkippedView {
  path: string;
  /** The error's class name, e.g. `SessionFormatError`. */
  error: string;
  /** 1-based line the problem is on, when it is tied to one. */
  line?: number;
  reason: string;
}

/**
 * The error name of a second copy (stores/default/sources.ts), matched by name: the API
 * serves any store and does not depend on the default sources.
 */
const SECOND_COPY = "DuplicateSessionSourceError";

/**
 * The view of a skipped file, or undefined for a second copy of a session (not unreadable).
 *
 * @example
 * ```ts
 * import { skippedView } from "./skipped.ts";
 * import { SessionFormatError } from "../../src/errors.ts";
 * const error = new SessionFormatError(`invalid JSON: Unexpected token 's', "secret" is not valid JSON`, { source: "/s/a.jsonl", line: 1 });
 * skippedView({ path: "/s/a.jsonl", error })?.reason; // "invalid JSON: Unexpected token 's' (not valid JSON)"
 * ```
 */
export function skippedView({ path, error }: SkippedSession): SkippedView | undefined {
  if (error.name === SECOND_COPY) return undefined;
  const format = error instanceof SessionFormatError ? error : undefined;
  let reason = format?.reason ?? error.message;
  for (const lead of [`${path}: `, `${path}, `]) {
    if (reason.startsWith(lead)) reason = reason.slice(lead.length);
  }
  // V8 quotes the text it could not parse: `Unexpected token 's', "the line" is not valid JSON`.
  reason = reason.replace(/, .* is not valid JSON/, " (not valid JSON)");
  const view: SkippedView = { path, error: error.name, reason };
  if (format && format.line > 0) view.line = format.line;
  return view;
}
