/**
 * `mu show <id|file>`: the header and the tree of a session: branches indented, labels,
 * the leaf marked, and missing parents named.
 *
 * @module
 */
import type { Command } from "../args.ts";
import type { SessionEntry } from "../../src/schema.ts";
import { SessionIndex, type SessionTreeNode } from "../../src/tree.ts";
import { preview, shortDate, visible } from "../format.ts";
import { loadTarget } from "../target.ts";

/** A warning naming the parent ids a session refers to but does not contain ("" if none). */
export function describeMissingParents(index: SessionIndex): string {
  const missing = index.missingParentIds();
  if (missing.length === 0) return "";
  return `warning: ${missing.length} missing parent id${missing.length === 1 ? "" : "s"}: ${
    missing.slice(0, 10).map((id) => visible(id)).join(", ")
  }${missing.length > 10 ? ", ..." : ""} (entries below them start new roots)\n`;
}

/** A one-line description of an entry for the tree. */
function describeEntry(entry: SessionEntry): string {
  const data = entry as SessionEntry & Record<string, unknown>;
  if (entry.type === "message") {
    const message = entry.message as { role: string; content?: unknown };
    return `${message.role}: ${preview(message.content, 70)}`;
  }
  const detail = data.summary ?? data.name ?? data.customType ?? data.modelId ??
    data.thinkingLevel ?? data.label;
  return detail === undefined ? entry.type : `${entry.type}: ${preview(detail, 70)}`;
}

/** Render the tree with an explicit stack (sessions can be 100k entries deep). */
export function renderTree(index: SessionIndex, leafId: string | null): string[] {
  const lines: string[] = [];
  const stack: { node: SessionTreeNode; depth: number }[] = index.getTree().reverse()
    .map((node) => ({ node, depth: 0 }));
  while (stack.length) {
    const { node, depth } = stack.pop()!;
    const { entry } = node;
    const marks = [
      node.label === undefined ? "" : `[${visible(node.label)}]`,
      entry.id === leafId ? "<- leaf" : "",
    ].filter(Boolean).join(" ");
    lines.push(
      `${"  ".repeat(depth)}${visible(entry.id)}  ${visible(describeEntry(entry))}${
        marks ? "  " + marks : ""
      }`,
    );
    // A single child continues the same line of work: same indentation. Branches indent.
    const childDepth = node.children.length > 1 ? depth + 1 : depth;
    for (let i = node.children.length - 1; i >= 0; i--) {
      stack.push({ node: node.children[i], depth: childDepth });
    }
  }
  return lines;
}

export const show: Command = {
  name: "show",
  summary: "Show a session's header and tree (branches, labels, leaf, missing parents).",
  operands: "<id|file>",
  arity: [1, 1],
  flags: {},
  async run(invocation, cli) {
    const target = await loadTarget(invocation, cli, invocation.operands[0]);
    const index = SessionIndex.build(target.entries, { source: target.file });
    const leafId = index.lastEntry?.id ?? null;
    if (invocation.json) {
      cli.out(
        JSON.stringify(
          {
            header: target.header,
            sourceVersion: target.sourceVersion,
            leafId,
            missingParents: index.missingParentIds(),
            tree: index.getTree(),
          },
          null,
          2,
        ) + "\n",
      );
      return 0;
    }
    const { header } = target;
    cli.out(`session ${header.id}\n`);
    cli.out(`cwd ${visible(header.cwd ?? "?")}\n`);
    cli.out(`created ${shortDate(new Date(header.createdAt))}  format ${target.sourceVersion}\n`);
    if (header.parentSessionId) cli.out(`forked from ${header.parentSessionId}\n`);
    if (target.file) cli.out(`file ${target.file}\n`);
    cli.out(`entries ${target.entries.length}  leaf ${leafId ?? "-"}\n\n`);
    cli.out(describeMissingParents(index));
    for (const line of renderTree(index, leafId)) cli.out(line + "\n");
    return 0;
  },
};
