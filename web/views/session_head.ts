/**
 * A session page's head: its title (clamped), the facts, the export and copy buttons, and
 * the find box with "Make this the leaf" beside it. The page (`session.ts`) owns the state
 * the buttons act on; the head only draws them.
 *
 * @module
 */
import { button, el } from "../dom.ts";
import type { SessionOverview } from "../types.ts";
import { clampedTitle } from "./clamped_title.ts";
import type { FindBar } from "./find.ts";
import type { SessionTab } from "./reading_prefs.ts";

/** What the session page can ask the app to do. */
export interface SessionActions {
  /** The leaf or tab changed (update the URL; an `undefined` leaf is not named there). */
  navigate(leafId: string | null | undefined, tab: SessionTab): void;
  /**
   * Download the session (null) or the branch to `leafId`; `html`: the branch as one HTML
   * file, `"all"`: every branch in one HTML file with a switcher (opening on `leafId`).
   */
  exportJsonl(leafId: string | null, html?: boolean | "all"): void;
  /** For a computer session: copy it into this browser's store. */
  keepCopy?(): void;
}

/** The parts of the head the page keeps (the facts are replaced once the session loads). */
export interface SessionHeadParts {
  overview: SessionOverview;
  facts: HTMLElement;
  actions: SessionActions;
  /** The current leaf, when a button is pressed. */
  leafId(): string | null;
  find: FindBar;
  makeLeaf: HTMLButtonElement;
}

/** The head of a session page. */
export function sessionHead(parts: SessionHeadParts): HTMLElement {
  const { overview, actions, leafId } = parts;
  return el(
    "header",
    { class: "session-head" },
    el(
      "div",
      { class: "title-row" },
      clampedTitle("h2", "session-title", overview.title),
      overview.internal ? el("span", { class: "chip tone-internal" }, "internal") : null,
    ),
    parts.facts,
    el(
      "div",
      { class: "actions" },
      button("Export session", () => actions.exportJsonl(null), {
        attrs: { id: "export-session" },
      }),
      button("Export this branch", () => actions.exportJsonl(leafId()), {
        attrs: { id: "export-branch" },
      }),
      button("All branches as HTML", () => actions.exportJsonl(leafId(), "all"), {
        attrs: { id: "export-html-all" },
        title: "Every branch in one self-contained HTML file, with a branch switcher",
      }),
      button("Export as HTML", () => actions.exportJsonl(leafId(), true), {
        attrs: { id: "export-html" },
        title: "This branch as one self-contained HTML file (the conversation view)",
      }),
      actions.keepCopy
        ? button("Keep a copy in this browser", () => actions.keepCopy?.(), {
          attrs: { id: "keep-copy" },
        })
        : null,
    ),
    el("div", { class: "find-row" }, parts.find.element, parts.makeLeaf),
  );
}
