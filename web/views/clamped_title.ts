/**
 * A session title that may be a whole first message (an untitled session is named by it):
 * shown clamped to two lines (`.clamp-2` in `styles/base.css`), with a "Show all" switch
 * when the text is long enough to be cut, and the full text as the tooltip. Used by the
 * session page's header and the HTML export's heading.
 *
 * @module
 */
import { button, el } from "../dom.ts";

/** Titles at most this long (one line, no breaks) are shown without a switch. */
const SHORT_TITLE = 90;
/** Longest tooltip (a tooltip is not the place for a whole essay). */
const TOOLTIP_CHARS = 2_000;

/**
 * `text` in a `tag` element with id `id`, clamped to two lines, followed by a switch that
 * shows all of it when it is long.
 *
 * @example
 * ```ts
 * import { clampedTitle } from "./clamped_title.ts";
 * document.body.append(clampedTitle("h2", "session-title", "a very long first message …"));
 * ```
 */
export function clampedTitle(tag: "h1" | "h2", id: string, text: string): HTMLElement {
  const heading = el(tag, {
    class: "clamp-2",
    attrs: { id },
    title: text.length > SHORT_TITLE ? text.slice(0, TOOLTIP_CHARS) : undefined,
  }, text);
  if (text.length <= SHORT_TITLE && !text.includes("\n")) {
    return el("div", { class: "clamped-title" }, heading);
  }
  const toggle = button("Show all", () => {
    const open = heading.classList.toggle("clamp-open");
    toggle.textContent = open ? "Show less" : "Show all";
    toggle.setAttribute("aria-expanded", String(open));
  }, {
    class: "link-button title-toggle",
    attrs: { "aria-expanded": "false", "aria-controls": id, id: `${id}-toggle` },
  });
  return el("div", { class: "clamped-title" }, heading, toggle);
}
