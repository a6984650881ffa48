/**
 * Edit diffs as {@link HNode} rows with old/new line numbers, bounded so that one large
 * edit cannot hold the page's main thread: Myers' line diff costs about
 * (old lines + new lines) × edit distance steps, so the edit distance searched is capped
 * by a fixed step budget (and a wall-clock backstop); an edit beyond it is shown as a
 * plain "before" / "after" pair instead. Where pi recorded its own diff of the whole file
 * in the tool result's `details.diff` (`+12 text`, `-12 text`, ` 12 text`, `   ...`), that
 * diff is shown with the file's real line numbers and context.
 *
 * @module
 */
import { structuredPatch } from "diff";
import { foldInto } from "./fold.ts";
import type { HElement } from "./hnode.ts";
import { formatCount } from "../dom.ts";

/** Longest old + new text that is diffed at all; longer edits are shown before/after. */
export const DIFF_LIMIT = 200_000;
/**
 * Diff steps allowed for one edit: the edit distance searched is this divided by the
 * number of lines, which keeps the worst case to a few tens of milliseconds.
 */
export const DIFF_STEP_BUDGET = 600_000;
/** Smallest edit distance worth searching; below it the before/after view is clearer. */
const MIN_EDIT_DISTANCE = 16;
/** Wall-clock backstop for one diff (a slow device may take longer per step). */
const DIFF_TIMEOUT_MS = 60;
/** Diff rows shown before "show all"; the rest are built only when asked for. */
export const DIFF_ROWS_SHOWN = 400;
/** Longest pi-recorded diff that is parsed; a longer one falls back to the arguments. */
const RECORDED_DIFF_LIMIT = 400_000;

type RowKind = "add" | "del" | "ctx";

function row(kind: RowKind, oldNo: string, newNo: string, text: string): HElement {
  return {
    tag: "div",
    class: `diff-line diff-${kind}`,
    children: [
      { tag: "span", class: "ln", children: [oldNo] },
      { tag: "span", class: "ln", children: [newNo] },
      { tag: "span", class: "sign", children: [kind === "add" ? "+" : kind === "del" ? "-" : " "] },
      { tag: "span", class: "diff-text", children: [text] },
    ],
  };
}

const note = (text: string): HElement => ({ tag: "div", class: "diff-note", children: [text] });

function countLines(text: string): number {
  let lines = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) lines++;
  return lines;
}

/**
 * The largest edit distance (in lines) searched for an edit of these sizes, or 0 when the
 * edit is too large to diff within {@link DIFF_STEP_BUDGET}.
 */
export function diffEditBound(oldText: string, newText: string): number {
  if (oldText.length + newText.length > DIFF_LIMIT) return 0;
  const bound = Math.floor(DIFF_STEP_BUDGET / (countLines(oldText) + countLines(newText)));
  return bound < MIN_EDIT_DISTANCE ? 0 : bound;
}

/**
 * Lines of either text that the other does not have at all: a lower bound on the line
 * diff's edit distance, counted in one pass, so a rewrite is known hopeless before the
 * diff starts.
 */
function unmatchedLines(oldText: string, newText: string): number {
  const oldLines = oldText.split("\n");
  const newLines = newText.split("\n");
  const inOld = new Set(oldLines);
  const inNew = new Set(newLines);
  let unmatched = 0;
  for (const line of oldLines) if (!inNew.has(line)) unmatched++;
  for (const line of newLines) if (!inOld.has(line)) unmatched++;
  return unmatched;
}

/** An edit too large to diff: the old and new text, each folded. */
export function beforeAfter(oldText: string, newText: string): HElement[] {
  return [
    note(
      `(too large to diff: ${formatCount(oldText.length)} → ${
        formatCount(newText.length)
      } characters; before and after shown)`,
    ),
    { tag: "div", class: "diff-side-label", children: ["before"] },
    foldInto({ tag: "pre", class: "diff-side diff-side-del" }, [oldText]),
    { tag: "div", class: "diff-side-label", children: ["after"] },
    foldInto({ tag: "pre", class: "diff-side diff-side-add" }, [newText]),
  ];
}

/** Rows past {@link DIFF_ROWS_SHOWN} go behind "show all" so a long diff lays out lazily. */
export function diffBlock(rows: HElement[]): HElement {
  const block: HElement = { tag: "div", class: "diff", children: rows };
  if (rows.length > DIFF_ROWS_SHOWN + DIFF_ROWS_SHOWN / 4) {
    block.children = rows.slice(0, DIFF_ROWS_SHOWN);
    block.more = {
      label: `Show all ${formatCount(rows.length)} diff lines`,
      children: rows.slice(DIFF_ROWS_SHOWN),
    };
  }
  return block;
}

/**
 * One edit as unified-diff rows with old/new line numbers (relative to the edited text),
 * or the before/after view when the edit is larger than the diff's bounded work.
 */
export function diffLines(oldText: string, newText: string): HElement[] {
  const maxEditLength = diffEditBound(oldText, newText);
  if (maxEditLength === 0 || unmatchedLines(oldText, newText) > maxEditLength) {
    return beforeAfter(oldText, newText);
  }
  const patch = structuredPatch("a", "b", oldText, newText, "", "", {
    context: 3,
    maxEditLength,
    timeout: DIFF_TIMEOUT_MS,
  });
  if (!patch) return beforeAfter(oldText, newText);
  const rows: HElement[] = [];
  for (const hunk of patch.hunks) {
    rows.push({
      tag: "div",
      class: "diff-hunk",
      children: [`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`],
    });
    let oldLine = hunk.oldStart;
    let newLine = hunk.newStart;
    for (const line of hunk.lines) {
      const sign = line[0];
      if (sign === "\\") continue; // "\ No newline at end of file"
      const kind: RowKind = sign === "+" ? "add" : sign === "-" ? "del" : "ctx";
      const oldNo = kind === "add" ? "" : String(oldLine++);
      const newNo = kind === "del" ? "" : String(newLine++);
      rows.push(row(kind, oldNo, newNo, line.slice(1)));
    }
  }
  if (!rows.length) rows.push(note("(no change)"));
  return rows;
}

const RECORDED_LINE = /^([+\- ])\s*(\d+) (.*)$/;
const RECORDED_GAP = /^\s*\.\.\.\s*$/;

/**
 * Rows of the diff pi recorded for an edit (`details.diff`): every line numbered in the
 * real file, `...` between distant changes. pi numbers a context line in the old file;
 * its new-file number follows from the changes above it. Undefined when the text is not
 * in that shape (another agent's details), so the caller diffs the arguments instead.
 */
export function recordedDiffLines(diff: string): HElement[] | undefined {
  if (!diff || diff.length > RECORDED_DIFF_LIMIT) return undefined;
  const rows: HElement[] = [];
  let nextOld = 1;
  let nextNew = 1;
  for (const line of diff.split("\n")) {
    if (RECORDED_GAP.test(line)) {
      rows.push({ tag: "div", class: "diff-hunk", children: ["⋯"] });
      continue;
    }
    const match = RECORDED_LINE.exec(line);
    if (!match) {
      if (line === "") continue;
      return undefined;
    }
    const n = Number(match[2]);
    const text = match[3];
    if (match[1] === "-") {
      rows.push(row("del", String(n), "", text));
      nextOld = n + 1;
    } else if (match[1] === "+") {
      rows.push(row("add", "", String(n), text));
      nextNew = n + 1;
    } else {
      nextNew += n - nextOld; // a gap skips the same unchanged lines in both files
      rows.push(row("ctx", String(n), String(nextNew), text));
      nextOld = n + 1;
      nextNew++;
    }
  }
  return rows.length ? rows : undefined;
}
