/**
 * The raw pane's show/hide switch (beside the session tabs): remembered in localStorage,
 * applied to whichever view shows the raw entries now.
 *
 * @module
 */
import { el } from "../dom.ts";

const KEY = "mu.viewer.showRaw";

/** Whether the raw pane is shown (default yes). */
export function showRaw(): boolean {
  try {
    return localStorage.getItem(KEY) !== "0";
  } catch {
    return true; // storage blocked: the default
  }
}

/**
 * A checkbox that shows or hides the raw pane inside `container()`.
 *
 * @example
 * ```ts
 * import { rawToggle } from "./raw_toggle.ts";
 * const right = document.createElement("div");
 * document.body.append(rawToggle(() => right), right);
 * ```
 */
export function rawToggle(container: () => HTMLElement): HTMLElement {
  const box = el("input", { attrs: { type: "checkbox", id: "show-raw", checked: showRaw() } });
  box.addEventListener("change", () => {
    try {
      localStorage.setItem(KEY, box.checked ? "1" : "0");
    } catch {
      // not remembered; still applied below
    }
    container().querySelector(".columns")?.classList.toggle("no-raw", !box.checked);
  });
  return el("label", { class: "toggle raw-toggle" }, box, " Raw entries");
}
