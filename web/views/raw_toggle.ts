/**
 * The raw pane's show/hide switch (beside the session tabs): remembered (see
 * reading_prefs.ts), applied to whichever view shows the raw entries now.
 *
 * @module
 */
import { el } from "../dom.ts";
import { rememberShowRaw, showRaw } from "./reading_prefs.ts";

export { showRaw };

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
    rememberShowRaw(box.checked);
    container().querySelector(".columns")?.classList.toggle("no-raw", !box.checked);
  });
  return el("label", { class: "toggle raw-toggle" }, box, " Raw entries");
}
