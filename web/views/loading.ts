/**
 * A loading sign that counts the seconds once a wait takes longer than one (a large
 * session through `mu serve` before its first page, the first search of a large store),
 * and the tree's, which counts the entries of a session's load.
 *
 * @module
 */
import { el, formatCount } from "../dom.ts";
import type { ViewerClient } from "../rpc.ts";
import type { SessionTab } from "./reading_prefs.ts";

/**
 * A status line saying `text`, then `text N s` each second until `stop` is called.
 *
 * @example
 * ```ts
 * import { loadingNotice } from "./loading.ts";
 * const loading = loadingNotice("pane-loading", "Loading the conversation…");
 * document.body.append(loading.element);
 * loading.stop();
 * ```
 */
export function loadingNotice(id: string, text: string): { element: HTMLElement; stop(): void } {
  const element = el("p", {
    class: "muted loading",
    attrs: { id, role: "status", "aria-live": "polite" },
  }, text);
  const started = Date.now();
  const timer = setInterval(() => {
    element.textContent = `${text} ${Math.round((Date.now() - started) / 1000)} s`;
  }, 1000);
  return { element, stop: () => clearInterval(timer) };
}

/**
 * "Loading the tree…" for the session `key`, counting the entries of its full load as the
 * worker reports them (a session from `mu serve` arrives a page of entries at a time);
 * `stop` ends the counting.
 */
export function treeLoadingNotice(
  client: ViewerClient,
  key: string,
): { element: HTMLElement; stop(): void } {
  const element = el(
    "p",
    { class: "muted loading", attrs: { id: "tree-loading", role: "status" } },
    "Loading the tree…",
  );
  const stop = client.onEvent((event) => {
    if (event.type !== "load-progress" || event.data.key !== key) return;
    const { entries, total } = event.data;
    element.textContent = `Loading the tree… ${formatCount(entries)} of ${
      formatCount(total)
    } entries`;
  });
  return { element, stop };
}

/**
 * What a session page's right side says while the first rows of a tab load.
 *
 * @example
 * ```ts
 * import { loadingNotice, TAB_LOADING_TEXT } from "./loading.ts";
 * const notice = loadingNotice("pane-loading", TAB_LOADING_TEXT.conversation);
 * notice.stop();
 * ```
 */
export const TAB_LOADING_TEXT: Record<SessionTab, string> = {
  context: "Loading the context…",
  conversation: "Loading the conversation…",
  usage: "Loading usage…",
};
