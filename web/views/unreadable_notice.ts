/**
 * "N files could not be read": the files "This computer"'s listing left out (`mu serve`
 * names them, with the reason, in `GET /api/sessions`), as a small notice whose list opens
 * on demand, so a session missing from the list is never a silent mystery.
 *
 * @module
 */
import { el } from "../dom.ts";
import type { UnloadableView } from "../types.ts";

/** `Name: line N: reason` of a file that could not be loaded or read. */
function errorText(item: UnloadableView): string {
  const error = item.error;
  const where = error.line ? `line ${error.line}: ` : "";
  return `${error.name}: ${where}${error.reason ?? error.message}`;
}

/** Files that could not be loaded or read, each with its path and reason. */
export function unloadableList(items: readonly UnloadableView[]): HTMLElement {
  return el(
    "ul",
    { class: "unloadable-list" },
    ...items.map((item) =>
      el(
        "li",
        {},
        el("code", { class: "path" }, item.path),
        el("span", { class: "reason" }, errorText(item)),
      )
    ),
  );
}

/** The notice for `items` (null when every file was read). */
export function unreadableNotice(items: readonly UnloadableView[]): HTMLElement | null {
  if (!items.length) return null;
  return el(
    "details",
    { class: "unreadable-notice", attrs: { id: "unreadable" } },
    el(
      "summary",
      { class: "muted" },
      `${items.length} ${items.length === 1 ? "file" : "files"} could not be read`,
    ),
    unloadableList(items),
  );
}
