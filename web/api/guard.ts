/**
 * The same-origin guard of `mu serve`. A page on another site must not read a user's
 * transcripts through the local server: DNS rebinding sends the attacker's host name in
 * `Host`, and cross-site requests carry a foreign `Origin` (and `Sec-Fetch-Site:
 * cross-site`). Only requests addressed to the served origin pass.
 *
 * @module
 */
import { json } from "./http.ts";

/** The `Host` values a server on `hostname:port` answers to. */
export function servedHosts(hostname: string, port: number): Set<string> {
  const names = hostname === "127.0.0.1" || hostname === "::1" || hostname === "localhost"
    ? ["127.0.0.1", "localhost", "[::1]"]
    : [hostname.includes(":") && !hostname.startsWith("[") ? `[${hostname}]` : hostname];
  return new Set(names.map((name) => `${name}:${port}`.toLowerCase()));
}

/**
 * A 403 response when the request is not addressed to, or not sent from, the served
 * origin (400 when it names more than one host); `undefined` when it may proceed.
 *
 * @example
 * ```ts
 * import { refuseForeign, servedHosts } from "./guard.ts";
 * const hosts = servedHosts("127.0.0.1", 8787);
 * refuseForeign(new Request("http://evil.example:8787/api/sessions"), hosts)?.status; // 403
 * ```
 */
export function refuseForeign(request: Request, hosts: Set<string>): Response | undefined {
  const host = (request.headers.get("host") ?? new URL(request.url).host).toLowerCase();
  // Headers joins repeated fields with ", ": two Host headers (which a proxy and this
  // server might read differently) are malformed, whichever of them is ours.
  if (host.includes(",")) {
    return json(400, { error: "BadRequest", message: "the request has more than one Host header" });
  }
  if (!hosts.has(host)) {
    return json(403, {
      error: "Forbidden",
      message: "this server answers only to its own host name",
    });
  }
  const origin = request.headers.get("origin");
  if (
    origin !== null && !(origin.startsWith("http://") && hosts.has(origin.slice(7).toLowerCase()))
  ) {
    return json(403, { error: "Forbidden", message: "cross-origin requests are refused" });
  }
  const site = request.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin" && site !== "none") {
    return json(403, { error: "Forbidden", message: "cross-site requests are refused" });
  }
  return undefined;
}
