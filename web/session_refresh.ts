/**
 * Changes of the shown session (a `mu serve` session another process appended to), applied
 * one at a time: the worker reopens the session and the page is mounted again, a reader at
 * the tip following the new tip and one on an older branch staying there, at the same
 * scroll position. A burst of changes while one is applied collapses into one more.
 *
 * @module
 */
import type { SessionPage, SessionTab } from "./views/session.ts";
import type { ViewerClient } from "./rpc.ts";
import type { SessionOverview } from "./types.ts";

/** What the refresher needs of the app. */
export interface RefreshHost {
  client: ViewerClient;
  /** The session page shown now, if any. */
  page(): SessionPage | undefined;
  /** Mount the session page again for `overview` at `leafId`. */
  mount(overview: SessionOverview, leafId: string | null): void;
  /** The tab the URL names. */
  tab(): SessionTab;
  /** The URL of the shown session at `leafId` (kept current without a history entry). */
  url(key: string, leafId: string | null, tab: SessionTab): string;
  onError(error: unknown): void;
}

/** A function applying changes of the session `key`, if it is the one shown. */
export function sessionRefresher(host: RefreshHost): (key: string) => void {
  let refreshing: Promise<void> | undefined;
  let refreshAgain = false;
  return (key) => {
    if (refreshing) {
      refreshAgain = true;
      return;
    }
    refreshing = (async () => {
      do {
        refreshAgain = false;
        const page = host.page();
        if (!page || page.overview.key !== key) return;
        const overview = await host.client.call("reopenSession", key);
        if (host.page() !== page) return; // the user went elsewhere meanwhile
        // A reader at the tip follows the new tip; one on an older branch stays there.
        const atTip = page.leafId === page.overview.defaultLeafId;
        const y = scrollY;
        host.mount(overview, atTip ? overview.defaultLeafId : page.leafId);
        history.replaceState(null, "", host.url(key, host.page()!.leafId, host.tab()));
        scrollTo(0, y);
      } while (refreshAgain);
    })().catch(host.onError).finally(() => refreshing = undefined);
  };
}
