/**
 * The one-line summary of an import the page shows as a toast. Counts every outcome, so
 * a re-import says "already present" instead of pretending it imported something, and says
 * how many imported sessions the list hides (internal workflow sessions behind the toggle).
 * Pure (no DOM), so it is tested directly.
 *
 * @module
 */
import type { ImportResultView } from "./types.ts";

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/**
 * Summarise import results.
 *
 * @example
 * ```ts
 * import { importSummary } from "./import_summary.ts";
 * importSummary([{ path: "a.jsonl", size: 1, status: "imported", internal: true }], false).text;
 * // "Imported 1 session (1 internal, hidden)."
 * ```
 */
export function importSummary(
  results: readonly ImportResultView[],
  includeInternal: boolean,
): { text: string; tone: "info" | "error" } {
  const count = (...statuses: ImportResultView["status"][]) =>
    results.filter((r) => statuses.includes(r.status)).length;
  const added = count("imported", "kept-both");
  const hidden = includeInternal
    ? 0
    : results.filter((r) =>
      r.internal && ["imported", "kept-both", "updated", "replaced"].includes(r.status)
    ).length;
  const parts: string[] = [];
  const failed = count("failed");
  const others: Array<[number, string]> = [
    [count("kept-both"), "kept beside a stored session with the same id (new id)"],
    [count("updated"), "updated with new entries"],
    [count("replaced"), "replaced"],
    [count("unchanged"), "already present"],
    [count("skipped"), "skipped"],
  ];
  if (added > 0 || others.every(([n]) => n === 0)) {
    parts.push(
      `Imported ${plural(added, "session")}${hidden ? ` (${hidden} internal, hidden)` : ""}`,
    );
  } else if (hidden) {
    parts.push(`${hidden} internal, hidden`);
  }
  for (const [n, what] of others) if (n) parts.push(`${n} ${what}`);
  if (failed) parts.push(`${plural(failed, "file")} could not be loaded (see the list)`);
  return { text: parts.join("; ") + ".", tone: failed ? "error" : "info" };
}
