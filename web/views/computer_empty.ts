/**
 * "This computer" with no sessions: the places `mu serve` read (with their paths, from
 * `/api/info`) and what to do about it, so an empty list never leaves a user guessing which
 * folder was read.
 *
 * @module
 */
import { button, el } from "../dom.ts";
import type { ListActions } from "./list.ts";

/** A place `mu serve` reads sessions from. */
export interface LookedIn {
  label: string;
  location: string;
  /** Looked for, not there. */
  missing?: boolean;
}

/** The empty state of the "This computer" list. */
export function computerEmptyState(
  actions: ListActions,
  lookedIn: readonly LookedIn[],
): HTMLElement {
  return el(
    "section",
    { class: "empty-state card" },
    el("h2", {}, "No sessions on this computer yet"),
    el(
      "p",
      {},
      "mu serve found no sessions in this computer's store. Sessions an agent writes there ",
      "appear here as they are created.",
    ),
    el("p", {}, "It looked in:"),
    el(
      "ul",
      { class: "looked-in" },
      ...lookedIn.map((place) =>
        el(
          "li",
          {},
          el("code", {}, place.location),
          ` (${place.label}${place.missing ? ": not there" : ""})`,
        )
      ),
    ),
    el(
      "p",
      {},
      "Sessions elsewhere? Start mu serve with PI_CODING_AGENT_DIR set to your agent folder, ",
      "or with --session-dir DIR for a folder of JSONL sessions; or copy them in with ",
      el("code", {}, "mu import FILES"),
      ".",
    ),
    el(
      "div",
      { class: "actions" },
      button("Show this browser's sessions", () => actions.setSource("browser"), {
        class: "primary",
      }),
    ),
  );
}
