/**
 * Where a session the viewer shows lives: in this browser's own store, or on "this
 * computer" (the store `mu serve` serves, read through its API). The page and the worker
 * name a session by a key: a browser session by its id (so every existing link still
 * works), a computer session by `computer/<id>`. A session id never contains `/`
 * (`assertValidSessionId`), so the two can never be confused. A session exported to a URL
 * (a bucket, a static host) opens by the key `hosted/<url>`, read where it is (see
 * `worker/hosted.ts`), never copied in.
 *
 * @module
 */

/** A session source of the viewer. */
export type SessionSource = "browser" | "computer";

const COMPUTER = "computer/";

/** The key of a session of `source`. */
export function sessionKey(source: SessionSource, sessionId: string): string {
  return source === "computer" ? `${COMPUTER}${sessionId}` : sessionId;
}

/** The source and session id a key names. */
export function parseSessionKey(key: string): { source: SessionSource; sessionId: string } {
  return key.startsWith(COMPUTER)
    ? { source: "computer", sessionId: key.slice(COMPUTER.length) }
    : { source: "browser", sessionId: key };
}

const HOSTED = "hosted/";

/** The key of the session exported at `url`. */
export function hostedKey(url: string): string {
  return `${HOSTED}${url}`;
}

/** The URL a `hosted/<url>` key names, else `undefined`. */
export function hostedExportUrl(key: string): string | undefined {
  return key.startsWith(HOSTED) ? key.slice(HOSTED.length) : undefined;
}
