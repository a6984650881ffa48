/**
 * The viewer's address: `#/` is the list, `#/session/<id>?leaf=<id>&tab=<tab>&focus=<id>`
 * a session at a leaf (an empty `leaf` is the empty branch), on a tab, with an entry to
 * highlight (a search hit).
 *
 * @module
 */
import { sessionHash } from "./views/list.ts";
import { type SessionTab, sessionTab } from "./views/session.ts";
import { preferredTab } from "./views/reading_prefs.ts";

/** What the address asks to show. */
export interface Route {
  sessionId?: string;
  leafId?: string | null;
  tab: SessionTab;
  /** An entry to scroll to and highlight (a search hit). */
  focus?: string;
}

/** The route of the current `location.hash`. */
export function parseHash(): Route {
  const match = /^#\/session\/([^?]+)(?:\?(.*))?$/.exec(location.hash);
  if (!match) return { tab: preferredTab() };
  const params = new URLSearchParams(match[2] ?? "");
  const leaf = params.get("leaf");
  return {
    sessionId: decodeURIComponent(match[1]),
    leafId: leaf === null ? undefined : leaf === "" ? null : leaf,
    tab: sessionTab(params.get("tab")),
    focus: params.get("focus") ?? undefined,
  };
}

/** The address of a session at a leaf, on a tab. */
export function sessionUrl(sessionId: string, leafId: string | null, tab: SessionTab): string {
  const params = new URLSearchParams({ leaf: leafId ?? "", tab });
  return `${sessionHash(sessionId)}?${params}`;
}
