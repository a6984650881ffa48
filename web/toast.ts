/**
 * Short messages in the corner of the viewer, and the text an error shows in them.
 *
 * @module
 */
import { SessionError, SessionFormatError } from "../src/errors.ts";
import { button, el } from "./dom.ts";

/** A function that shows `text` as a toast in `area` (info toasts leave after 6 s). */
export function toaster(area: HTMLElement): (text: string, tone?: "info" | "error") => void {
  return (text: string, tone: "info" | "error" = "info"): void => {
    const close = button("×", () => node.remove(), {
      class: "toast-close",
      attrs: { "aria-label": "Dismiss" },
    });
    const node = el(
      "div",
      { class: `toast ${tone}`, attrs: { role: "status" } },
      el("span", {}, text),
      close,
    );
    area.append(node);
    if (tone === "info") setTimeout(() => node.remove(), 6000);
  };
}

/** The text a toast shows for an error (a format error with its line). */
export function describeError(error: unknown): string {
  // Errors from the worker arrive as the library's classes (src/rpc.ts).
  if (error instanceof SessionFormatError && error.line > 0) {
    return `${error.name}: line ${error.line}: ${error.reason}`;
  }
  if (error instanceof SessionError) return `${error.name}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
