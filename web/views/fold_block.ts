/**
 * Long text in the context and raw panes, folded: the first lines are shown and the rest
 * sits behind "Show all" (issue 15: "long outputs folded with show all"). These blocks were
 * boxes with a `max-height` and a scrollbar of their own; at 100k entries the panes held
 * ~60 such nested scrollers, and scrolling the context back up spent its longest tasks in
 * paint and layerization (`PaintArtifactCompositor::Update`) after each scroll. A folded
 * block is plain flow content, and the text behind the fold is not laid out until asked for.
 *
 * @module
 */
import { append, button, el, formatCount, showFolded } from "../dom.ts";
import { cutPoint } from "../conversation/fold.ts";

/** Lines and characters a folded block shows before "Show all". */
export interface FoldSize {
  lines: number;
  chars: number;
}

/** A context block: about as much as its old 420 px box showed. */
export const BLOCK_FOLD: FoldSize = { lines: 20, chars: 1_500 };
/** A raw JSON line (one line, wrapped): about as much as its old 260 px box showed. */
export const RAW_FOLD: FoldSize = { lines: 12, chars: 600 };

/** Text the worker cut: how long it is, and how to load all of it. */
export interface FullText {
  length: number;
  load(): Promise<string>;
}

/** Where to fold `text` (-1: it is shown whole), never inside a surrogate pair. */
function foldPoint(text: string, size: FoldSize): number {
  let at = cutPoint(text, size.lines, size.chars);
  if (at < 0 || at >= text.length) return -1;
  const last = text.charCodeAt(at - 1);
  if (last >= 0xd800 && last <= 0xdbff) at++;
  return at < text.length ? at : -1;
}

/** How many lines `text` has (a last line without a line end counts). */
function lineCount(text: string): number {
  let lines = 1;
  for (let i = 0; i < text.length - 1; i++) if (text.charCodeAt(i) === 10) lines++;
  return lines;
}

/**
 * A `<pre>` with `text`, folded after `size`, and its "Show all" button (null when the
 * text is shown whole). When the worker sent only the start of the text (`full`), the
 * button loads all of it and shows it a fold of {@link showFolded} at a time; otherwise it
 * adds the folded rest of `text`. Returns the nodes to put into the block, in order.
 *
 * @example
 * ```ts
 * import { BLOCK_FOLD, foldedBlock } from "./fold_block.ts";
 * const [pre, more] = foldedBlock("text", "line\n".repeat(100), BLOCK_FOLD);
 * // pre shows 20 lines; more is a "Show all 100 lines" button that adds the other 80
 * ```
 */
export function foldedBlock(
  cls: string,
  text: string,
  size: FoldSize,
  full?: FullText,
): [HTMLPreElement, HTMLButtonElement | null] {
  const at = foldPoint(text, size);
  const pre = el("pre", { class: cls }, at < 0 ? text : text.slice(0, at));
  if (at < 0 && !full) return [pre, null];
  const label = full
    ? `Show all ${formatCount(full.length)} characters`
    : lineCount(text) > size.lines
    ? `Show all ${formatCount(lineCount(text))} lines`
    : `Show all ${formatCount(text.length)} characters`;
  const more: HTMLButtonElement = button(label, async () => {
    if (!full) {
      more.remove();
      append(pre, text.slice(at));
      return;
    }
    more.disabled = true;
    try {
      const whole = await full.load();
      more.remove();
      showFolded(pre, whole); // long text a fold at a time, not all laid out at once
    } catch (error) {
      more.disabled = false;
      more.textContent = `Could not load: ${(error as Error).message}`;
    }
  }, { class: "link-button show-all" });
  return [pre, more];
}
