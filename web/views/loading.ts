/**
 * A loading sign that counts the seconds once a wait takes longer than one (a large
 * session through `mu serve` before its first page, the first search of a large store).
 *
 * @module
 */
import { el } from "../dom.ts";

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
