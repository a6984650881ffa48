/**
 * The viewer's address: `#/` is the list, `#/session/<id>?leaf=<id>&tab=<tab>` a session
 * at a leaf (an empty `leaf` is the empty branch; none: the newest) on a tab, and
 * `&focus=<id>&mark=<text>...` a search hit to show on its branch with its text marked
 * (it does not make the hit the leaf).
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
  /** An entry to scroll to and highlight (a search hit)... */
  focus?: string;
  /** ...and the text to mark in it. */
  marks: string[];
}

/** The route of the current `location.hash`. */
export function parseHash(): Route {
  const match = /^#\/session\/([^?]+)(?:\?(.*))?$/.exec(location.hash);
  if (!match) return { tab: preferredTab(), marks: [] };
  const params = new URLSearchParams(match[2] ?? "");
  const leaf = params.get("leaf");
  return {
    sessionId: decodeURIComponent(match[1]),
    leafId: leaf === null ? undefined : leaf === "" ? null : leaf,
    tab: sessionTab(params.get("tab")),
    focus: params.get("focus") ?? undefined,
    marks: params.getAll("mark"),
  };
}

/** The address of a session at a leaf (`undefined`: the newest, not named), on a tab. */
export function sessionUrl(
  sessionId: string,
  leafId: string | null | undefined,
  tab: SessionTab,
): string {
  const params = new URLSearchParams(leafId === undefined ? {} : { leaf: leafId ?? "" });
  params.set("tab", tab);
  return `${sessionHash(sessionId)}?${params}`;
}
