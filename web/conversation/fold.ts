/**
 * Long outputs folded: the first lines are shown, the rest sits behind "show all" and is
 * only built when asked for (see {@link HElement.more}). Works on any flat list of
 * {@link HNode}s (plain text, highlighted code, ANSI runs), splitting text at a line end.
 *
 * @module
 */
import type { HElement, HNode } from "./hnode.ts";
import { formatCount } from "../dom.ts";
import { cutPoint } from "../worker/describe.ts";

/** Lines shown before "show all". */
export const FOLD_LINES = 40;
/** Characters shown before "show all" (very long lines count too). */
export const FOLD_TEXT = 8_000;

function lineCount(node: HNode): { lines: number; chars: number } {
  const text = typeof node === "string" ? node : flatText(node);
  let lines = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) lines++;
  return { lines, chars: text.length };
}

function flatText(node: HElement): string {
  return (node.children ?? []).map((c) => typeof c === "string" ? c : flatText(c)).join("");
}

/**
 * Put `nodes` into `into`, folding after {@link FOLD_LINES} lines or {@link FOLD_TEXT}
 * characters; returns `into`.
 *
 * @example
 * ```ts
 * const pre = foldInto({ tag: "pre" }, ["line\n".repeat(100)]);
 * // pre.children = 40 lines; pre.more = { label: "Show all 100 lines", children: [60 lines] }
 * ```
 */
export function foldInto(into: HElement, nodes: HNode[], maxLines = FOLD_LINES): HElement {
  let lines = 0;
  let chars = 0;
  const shown: HNode[] = [];
  let i = 0;
  let rest: HNode[] = [];
  for (; i < nodes.length; i++) {
    const node = nodes[i];
    const size = lineCount(node);
    if (lines + size.lines < maxLines && chars + size.chars <= FOLD_TEXT) {
      shown.push(node);
      lines += size.lines;
      chars += size.chars;
      continue;
    }
    if (typeof node === "string") {
      const at = cutPoint(node, maxLines - lines, FOLD_TEXT - chars);
      if (at > 0) shown.push(node.slice(0, at));
      rest = [at > 0 ? node.slice(at) : node, ...nodes.slice(i + 1)];
    } else if (shown.length === 0) {
      shown.push(node); // one huge span: show it rather than nothing
      rest = nodes.slice(i + 1);
    } else rest = nodes.slice(i);
    break;
  }
  into.children = [...(into.children ?? []), ...shown];
  if (rest.length && rest.some((n) => n !== "")) {
    const total = nodes.reduce((sum, n) => sum + lineCount(n).lines, 0) + 1;
    into.more = { label: `Show all ${formatCount(total)} lines`, children: rest };
  }
  return into;
}
