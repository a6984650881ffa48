/**
 * Long text in the context and raw panes: the start the worker sent, in flow, and "Show
 * all" to load the rest (long outputs folded, with "show all"). These blocks were
 * boxes with a `max-height` and a scrollbar of their own; at 100k entries the panes held
 * ~60 such nested scrollers, and scrolling the context back up spent its longest tasks in
 * paint and layerization (`PaintArtifactCompositor::Update`) after each scroll. The worker
 * cuts a block at about what such a box showed (`BLOCK_TEXT_LIMIT`, `RAW_TEXT_LIMIT`).
 *
 * @module
 */
import { button, el, formatCount, showFolded } from "../dom.ts";

/** Text the worker cut: how long it is, and how to load all of it. */
export interface FullText {
  length: number;
  load(): Promise<string>;
}

/**
 * A `<pre>` with `text` and, when the worker sent only its start (`full`), a "Show all N
 * characters" button that loads all of it into the `<pre>` a fold of {@link showFolded} at
 * a time (null otherwise). Returns the nodes to put into the block, in order.
 *
 * @example
 * ```ts
 * import { foldedBlock } from "./fold_block.ts";
 * declare const loadAll: () => Promise<string>;
 * const [pre, more] = foldedBlock("text", "the first 20 lines…", { length: 9000, load: loadAll });
 * // more is "Show all 9,000 characters"; clicking it shows all of them in pre
 * ```
 */
export function foldedBlock(
  cls: string,
  text: string,
  full?: FullText,
): [HTMLPreElement, HTMLButtonElement | null] {
  const pre = el("pre", { class: cls }, text);
  if (!full) return [pre, null];
  const more: HTMLButtonElement = button(
    `Show all ${formatCount(full.length)} characters`,
    async () => {
      more.disabled = true;
      try {
        const whole = await full.load();
        more.remove();
        showFolded(pre, whole); // long text a fold at a time, not all laid out at once
      } catch (error) {
        more.textContent = `Could not load: ${(error as Error).message}`;
      }
    },
    { class: "link-button" },
  );
  return [pre, more];
}
