/**
 * The facts block at the top of a session page: id, folder, dates, format, counts, where it
 * was imported from, and the missing-history note. Separate from `session.ts`, which mounts
 * the page and switches leaf and tab; the facts only read the overview.
 *
 * @module
 */
import { el, factList, formatCount, formatDate } from "../dom.ts";
import type { SessionOverview } from "../types.ts";

/** Where a session was imported from (remembered by the page). */
export interface ImportOrigin {
  path: string;
  /** Format version of the imported file (1-4). */
  sourceVersion: number;
  /** Epoch ms. */
  importedAt: number;
}

function formatText(version: number): string {
  return version === 4 ? "v4" : `v${version} (upgraded to v4)`;
}

/** The header facts (and the missing-history note); counts say "…" while pending. */
export function sessionFacts(overview: SessionOverview, origin?: ImportOrigin): HTMLElement {
  const count = (n: number) => overview.pending ? "…" : formatCount(n);
  const facts: Array<[string, string]> = [
    ["id", overview.id],
    ["cwd", overview.cwd || "—"],
    ["created", formatDate(overview.created)],
    ["format", formatText(origin?.sourceVersion ?? overview.sourceVersion)],
    ["entries", count(overview.entryCount)],
    ["branch points", count(overview.branchPoints)],
    ["labels", count(overview.labels)],
  ];
  if (overview.parentSessionId) facts.push(["parent session", overview.parentSessionId]);
  if (origin) facts.push(["imported from", origin.path]);
  if (overview.source === "computer") facts.push(["source", "this computer (live)"]);
  const missing = overview.missingParentIds;
  return el(
    "div",
    { class: "facts-block" },
    factList(facts, "facts inline"),
    missing.length
      ? el(
        "p",
        { class: "warn-note", attrs: { id: "missing-parents", role: "note" } },
        `History is missing: entries point at ${
          missing.length === 1 ? "a parent" : `${missing.length} parents`
        } not in this session (${missing.join(", ")}). ` +
          "Their entries show as extra roots, and a context through them starts mid-conversation.",
      )
      : null,
  );
}
