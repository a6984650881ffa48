/**
 * Retired summary compactions in the context view. Older agents (format 3) replaced the
 * context before a `compaction` record with its generated summary; format 4 keeps those
 * records for the record but they are inert (only a `verbatim-lines` compaction is a
 * boundary), so the entries before them stay in context. The view says so at the record,
 * and offers the older agent's reading as a read-only comparison, loaded only when opened.
 *
 * @module
 */
import { el, replaceChildren } from "../dom.ts";

/** Why a retired summary compaction changes nothing (shown at the record). */
export const RETIRED_EXPLANATION =
  "Inert: a summary compaction written by an older agent. Format 4 keeps it for the record " +
  "but only a verbatim-lines compaction is a context boundary, so the entries before it " +
  "stay in the context unchanged.";

/** A context list the comparison shows (a `ContextPane` reading the older agent's view). */
export interface ComparisonPane {
  readonly element: HTMLElement;
  start(): Promise<void>;
  dispose(): void;
}

/**
 * The note under the context summary: which record is retired, and a closed
 * "as the older agent would have sent it" section that builds its pane on first open.
 *
 * @example
 * ```ts
 * import { retiredNote } from "./older_agent.ts";
 * // const note = retiredNote({ id: "cp1", firstKeptEntryId: "a1" }, () => pane);
 * ```
 */
export function retiredNote(
  retired: { id: string; firstKeptEntryId: string | null },
  makePane: () => ComparisonPane,
): { element: HTMLElement; dispose(): void } {
  let pane: ComparisonPane | undefined;
  const body = el("div", { class: "older-agent-body" });
  const details = el(
    "details",
    { class: "older-agent", attrs: { id: "older-agent" } },
    el("summary", {}, "As the older agent would have sent it (read-only comparison)"),
    el(
      "p",
      { class: "muted" },
      "The summary replaces everything before ",
      retired.firstKeptEntryId ? el("code", {}, retired.firstKeptEntryId) : "the record",
      "; the entries from there on are as the current context has them. Nothing here is sent " +
        "or stored.",
    ),
    body,
  );
  details.addEventListener("toggle", () => {
    if (!details.open || pane) return;
    pane = makePane();
    replaceChildren(body, pane.element);
    pane.start().catch((error) => {
      replaceChildren(body, el("p", { class: "error" }, `Could not build it: ${String(error)}`));
    });
  });
  const element = el(
    "div",
    { class: "retired-note", attrs: { id: "retired-note", role: "note" } },
    el(
      "p",
      {},
      "Retired summary compaction ",
      el("code", {}, retired.id),
      " on this branch is inert: the context below does not start at its summary. ",
    ),
    details,
  );
  return { element, dispose: () => pane?.dispose() };
}
