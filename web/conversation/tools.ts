/**
 * Tool calls made readable, as {@link HNode}s: an `edit` as a unified diff with line
 * numbers (see diff.ts), a `write` and a `read` with the file path and highlighted content, a
 * `bash` call as its command and its output with ANSI colours; any other tool as its
 * arguments (highlighted JSON) and result. Long outputs fold behind "show all". Argument
 * names follow pi/Atomic's tools (`path`, `oldText`/`newText` or `edits[]`, `content`,
 * `command`), with the common aliases (`file_path`, `old_string`/`new_string`, `cmd`).
 *
 * @module
 */
import { ansiToHNodes, hasAnsi } from "./ansi.ts";
import { diffBlock, diffLines, recordedDiffLines } from "./diff.ts";
import { foldInto } from "./fold.ts";
import { highlight, languageOfPath } from "./highlight.ts";
import type { HElement, HNode } from "./hnode.ts";
import type { ConvBlock, ConvImage, ConvToolResult } from "./model.ts";
import { formatCount } from "../dom.ts";

type Json = Record<string, unknown>;
type ToolBlock = Extract<ConvBlock, { type: "tool" }>;

function str(args: Json, ...names: string[]): string | undefined {
  for (const name of names) if (typeof args[name] === "string") return args[name] as string;
  return undefined;
}

function edits(args: Json): Array<{ oldText: string; newText: string }> {
  if (Array.isArray(args.edits)) {
    return (args.edits as Json[]).filter((e) => e && typeof e === "object").map((e) => ({
      oldText: str(e, "oldText", "old_string", "old") ?? "",
      newText: str(e, "newText", "new_string", "new") ?? "",
    }));
  }
  const oldText = str(args, "oldText", "old_string", "old_str");
  const newText = str(args, "newText", "new_string", "new_str");
  return oldText === undefined && newText === undefined
    ? []
    : [{ oldText: oldText ?? "", newText: newText ?? "" }];
}

/**
 * The diff pi recorded in the result (real file line numbers and context) when there is
 * one, else each edit's old/new text diffed.
 */
function editDiffs(
  edit: Array<{ oldText: string; newText: string }>,
  result: ConvToolResult | undefined,
): HElement[] {
  const recorded = result?.diff === undefined ? undefined : recordedDiffLines(result.diff);
  if (recorded) return [diffBlock(recorded)];
  return edit.map((e) => diffBlock(diffLines(e.oldText, e.newText)));
}

/** Output text as folded, ANSI-coloured or highlighted nodes. */
export function outputBlock(text: string, lang?: string, cls = "tool-output"): HElement {
  const nodes = hasAnsi(text) ? ansiToHNodes(text) : lang ? highlight(text, lang) : [text];
  return foldInto({ tag: "pre", class: `${cls}${lang ? " hljs" : ""}` }, nodes);
}

function images(list: ConvImage[]): HNode[] {
  return list.map((image) =>
    image.dataUrl
      ? { tag: "img", src: image.dataUrl, alt: `${image.mimeType} image` }
      : { tag: "div", class: "note", children: [`[${image.note ?? "image not displayed"}]`] }
  );
}

function resultPart(result: ConvToolResult | undefined, lang?: string): HNode[] {
  if (!result) {
    return [{ tag: "div", class: "tool-pending", children: ["no result on this branch"] }];
  }
  const parts: HNode[] = [];
  if (result.text) parts.push(outputBlock(result.text, result.isError ? undefined : lang));
  parts.push(...images(result.images));
  if (result.cut) {
    parts.push({
      tag: "div",
      class: "note",
      children: [
        `(output cut at ${formatCount(result.text.length)} of ${
          formatCount(result.cut)
        } characters; the raw entry has all of it)`,
      ],
    });
  }
  return parts;
}

function head(name: string, detail: HNode[], result?: ConvToolResult): HElement {
  return {
    tag: "div",
    class: "tool-head",
    children: [
      { tag: "span", class: "tool-name", children: [name] },
      ...detail,
      result?.isError ? { tag: "span", class: "chip tone-error", children: ["error"] } : "",
    ],
  };
}

const pathNode = (path: string): HElement => ({
  tag: "code",
  class: "tool-path",
  children: [path],
});

/**
 * A tool call (with its result, when the branch has it) as a readable block.
 *
 * @example
 * ```ts
 * toolCallHNode({ type: "tool", name: "edit", callId: "c1", args: { path: "a.ts", oldText: "a", newText: "b" } });
 * // a div.tool-call with the path and a diff: "-a" / "+b", numbered
 * ```
 */
export function toolCallHNode(block: ToolBlock): HElement {
  const args = (block.args && typeof block.args === "object" ? block.args : {}) as Json;
  const name = block.name;
  const path = str(args, "path", "file_path", "filePath", "file");
  const lang = path ? languageOfPath(path) : undefined;
  const result = block.result;
  const tone = result?.isError ? " is-error" : "";
  const wrap = (kind: string, children: HNode[]): HElement => ({
    tag: "div",
    class: `tool-call tool-${kind}${tone}`,
    children,
  });
  const lower = name.toLowerCase();
  const edit = edits(args);
  if (block.args === undefined) {
    return wrap("orphan", [head(name, [" result"], result), ...resultPart(result)]);
  }
  if ((lower === "edit" || lower === "multiedit" || lower === "str_replace") && edit.length) {
    return wrap("edit", [
      head(name, path ? [" ", pathNode(path)] : [], result),
      ...editDiffs(edit, result),
      ...resultPart(result),
    ]);
  }
  if (lower === "write" && typeof args.content === "string") {
    return wrap("write", [
      head(name, path ? [" ", pathNode(path)] : [], result),
      outputBlock(args.content, lang, "file-content"),
      ...resultPart(result),
    ]);
  }
  if (lower === "read" && path) {
    const range = [
      typeof args.offset === "number" ? `from line ${args.offset}` : "",
      typeof args.limit === "number" ? `${args.limit} lines` : "",
    ].filter(Boolean).join(", ");
    return wrap("read", [
      head(name, [" ", pathNode(path), range ? ` (${range})` : ""], result),
      ...resultPart(result, lang),
    ]);
  }
  const command = str(args, "command", "cmd");
  if (lower === "bash" && command !== undefined) {
    return wrap("bash", [
      head(name, [], result),
      { tag: "pre", class: "bash-command hljs", children: ["$ ", ...highlight(command, "bash")] },
      ...resultPart(result),
    ]);
  }
  return wrap("generic", [
    head(name, [], result),
    outputBlock(JSON.stringify(args, null, 2) ?? "", "json", "tool-args"),
    ...resultPart(result),
  ]);
}
