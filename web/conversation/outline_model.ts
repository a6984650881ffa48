/**
 * The conversation's outline: one short row per item (who, what, whether it calls tools,
 * its label), and the filters the outline rail offers, as pure data so the worker can send
 * the rows of a long branch at once and the export can build them from its items.
 *
 * @module
 */
import { oneLine } from "../worker/describe.ts";
import type { ConvItem, ConvKind } from "./model.ts";

/** One row of the outline. */
export interface OutlineRow {
  /** Position of the item in the branch's conversation. */
  index: number;
  id: string;
  kind: ConvKind;
  /** The start of the item's text (or its tool names, or a marker's text). */
  text: string;
  /** The item is a tool's output, or tool calls without text of its own. */
  tool: boolean;
  /** The label the branch gives this item, if any. */
  label?: string;
}

/** The rail's filters: pi's export offers the same five. */
export type OutlineFilter = "default" | "no-tools" | "user" | "labeled" | "all";

/** Filters in the order the rail shows them, with their names. */
export const OUTLINE_FILTERS: ReadonlyArray<readonly [OutlineFilter, string]> = [
  ["default", "Default"],
  ["no-tools", "No tools"],
  ["user", "User only"],
  ["labeled", "Labeled"],
  ["all", "All"],
];

function rowText(item: ConvItem): string {
  const texts: string[] = [];
  const tools: string[] = [];
  for (const block of item.blocks) {
    if (block.type === "text") texts.push(block.text);
    else if (block.type === "tool") tools.push(block.name);
  }
  const text = oneLine(texts.join(" "), 90);
  if (item.kind === "bash") return oneLine(`$ ${item.command ?? ""}`, 90);
  if (item.kind === "meta") return item.title ?? "";
  if (text) return text;
  return tools.length ? `→ ${tools.join(", ")}` : item.title ?? "";
}

/**
 * The outline of a conversation: a row per item, labels (the last one set on the branch
 * wins, a cleared label removes it) on the rows they name.
 *
 * @example
 * ```ts
 * import { outlineRows } from "./outline_model.ts";
 * outlineRows([{ id: "a", kind: "user", time: "", blocks: [{ type: "text", text: "hi" }] }]);
 * // [{ index: 0, id: "a", kind: "user", text: "hi", tool: false }]
 * ```
 */
export function outlineRows(items: readonly ConvItem[]): OutlineRow[] {
  const labels = new Map<string, string>();
  for (const item of items) {
    if (!item.label) continue;
    if (item.label.text) labels.set(item.label.target, item.label.text);
    else labels.delete(item.label.target);
  }
  return items.map((item, index) => {
    const row: OutlineRow = {
      index,
      id: item.id,
      kind: item.kind,
      text: rowText(item),
      tool: item.kind === "tool" || item.kind === "bash" ||
        (item.blocks.some((block) => block.type === "tool") &&
          !item.blocks.some((block) => block.type === "text" && block.text.trim())),
    };
    const label = labels.get(item.id);
    if (label !== undefined) row.label = label;
    return row;
  });
}

/** Whether `row` shows under `filter`. */
export function outlineShows(row: OutlineRow, filter: OutlineFilter): boolean {
  switch (filter) {
    case "all":
      return true;
    case "default":
      return row.kind !== "meta";
    case "no-tools":
      return row.kind !== "meta" && !row.tool;
    case "user":
      return row.kind === "user";
    case "labeled":
      return row.label !== undefined;
  }
}
