/**
 * One conversation item as an {@link HNode} description (pure, so the viewer, the HTML
 * export and the unit tests share it): user and assistant text as markdown, thinking in a
 * closed `<details>`, tool calls via `tools.ts`, a user-run command with its ANSI output,
 * summaries and custom messages as markdown, bookkeeping entries as one thin marker line.
 * The wrapper (entry id, keyboard focus) is added by `render.ts`.
 *
 * @module
 */
import type { HElement, HNode } from "./hnode.ts";
import { MARKDOWN_LIMIT, markdownToHNodes } from "./markdown.ts";
import type { ConvBlock, ConvItem } from "./model.ts";
import { outputBlock, toolCallHNode } from "./tools.ts";
import { foldInto } from "./fold.ts";
import { highlight } from "./highlight.ts";
import { formatCount } from "../dom.ts";

/** What the header calls each kind. */
export const ROLE_NAMES: Readonly<Record<ConvItem["kind"], string>> = {
  user: "You",
  assistant: "Assistant",
  tool: "Tool result",
  bash: "Shell",
  summary: "Summary",
  custom: "Custom",
  meta: "",
};

function cutNote(shown: number, full: number | undefined): HNode[] {
  if (!full) return [];
  return [{
    tag: "div",
    class: "note",
    children: [
      `(text cut at ${formatCount(shown)} of ${
        formatCount(full)
      } characters; the raw entry has all of it)`,
    ],
  }];
}

/** Message text: markdown, or plain folded text when it is very long. */
export function textHNodes(text: string): HNode[] {
  if (text.length > MARKDOWN_LIMIT) {
    return [foldInto({ tag: "pre", class: "plain-text" }, [text], 200)];
  }
  return [{ tag: "div", class: "markdown", children: markdownToHNodes(text) }];
}

/** One block of a message. */
export function blockHNodes(block: ConvBlock): HNode[] {
  switch (block.type) {
    case "text":
      return [...textHNodes(block.text), ...cutNote(block.text.length, block.cut)];
    case "thinking":
      return [{
        tag: "details",
        class: "thinking",
        children: [
          { tag: "summary", children: ["Thinking"] },
          { tag: "div", class: "thinking-text", children: [block.text] },
          ...cutNote(block.text.length, block.cut),
        ],
      }];
    case "image":
      return block.dataUrl
        ? [{ tag: "img", src: block.dataUrl, alt: `${block.mimeType} image` }]
        : [{ tag: "div", class: "note", children: [`[${block.note ?? "image not displayed"}]`] }];
    case "tool":
      return [toolCallHNode(block)];
  }
}

/** The body of an item (everything under its header). */
export function itemBody(item: ConvItem): HNode[] {
  if (item.kind === "bash") {
    const output = item.blocks[0]?.type === "text" ? item.blocks[0].text : "";
    return [
      {
        tag: "pre",
        class: "bash-command hljs",
        children: ["$ ", ...highlight(item.command ?? "", "bash")],
      },
      output ? outputBlock(output) : { tag: "div", class: "muted", children: ["(no output)"] },
    ];
  }
  return item.blocks.flatMap(blockHNodes);
}

/** The header line of an item: role, title (model, tool, type) and facts. */
export function itemHead(item: ConvItem): HElement {
  return {
    tag: "div",
    class: "conv-head",
    children: [
      { tag: "span", class: "conv-role", children: [ROLE_NAMES[item.kind]] },
      item.title ? { tag: "span", class: "conv-title", children: [item.title] } : "",
      ...(item.meta ?? []).map((fact): HNode => ({
        tag: "span",
        class: "conv-fact",
        children: [fact],
      })),
    ],
  };
}
