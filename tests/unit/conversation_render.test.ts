/**
 * The conversation view's pure layer (issue 15), without a browser: the ANSI parser,
 * markdown → description (raw HTML as text, link and image rules, highlighted fences),
 * edit diffs with line numbers, folding, and branch entries → chat items with tool results
 * inside their calls.
 */
import { test } from "node:test";
import { assert, assertEquals } from "../conformance/assert.ts";
import { ansiToHNodes, parseAnsi } from "../../web/conversation/ansi.ts";
import { type HElement, type HNode, hText, safeHref } from "../../web/conversation/hnode.ts";
import { markdownToHNodes } from "../../web/conversation/markdown.ts";
import { diffLines, recordedDiffLines } from "../../web/conversation/diff.ts";
import { foldInto } from "../../web/conversation/fold.ts";
import { entryPreview } from "../../web/worker/describe.ts";
import { branchSummary } from "../../web/worker/branch_summary.ts";
import { outlineRows, outlineShows } from "../../web/conversation/outline_model.ts";
import { conversationItems } from "../../web/conversation/model.ts";
import { parseSessionJsonlSync } from "../../src/jsonl.ts";
import { SessionIndex } from "../../src/tree.ts";
import { CONV, conversationSession } from "../viewer/conversation_fixture.ts";

function find(nodes: HNode[], test: (node: HElement) => boolean): HElement[] {
  const found: HElement[] = [];
  const walk = (node: HNode) => {
    if (typeof node === "string") return;
    if (test(node)) found.push(node);
    node.children?.forEach(walk);
  };
  nodes.forEach(walk);
  return found;
}

test("ansi: SGR colours (16, 256, truecolor), bold/italic/underline, reset; other escapes removed", () => {
  assertEquals(parseAnsi("\x1b[31merror\x1b[0m ok"), [
    { text: "error", style: { fg: 1 } },
    { text: " ok", style: {} },
  ]);
  assertEquals(parseAnsi("\x1b[1;3;4;92mx\x1b[22;23;24my"), [
    { text: "x", style: { bold: true, italic: true, underline: true, fg: 10 } },
    { text: "y", style: { fg: 10 } },
  ]);
  assertEquals(parseAnsi("\x1b[38;5;196ma\x1b[48;5;244mb\x1b[38;5;4mc"), [
    { text: "a", style: { fg: "rgb(255,0,0)" } },
    { text: "b", style: { fg: "rgb(255,0,0)", bg: "rgb(128,128,128)" } },
    { text: "c", style: { fg: 4, bg: "rgb(128,128,128)" } },
  ]);
  assertEquals(parseAnsi("\x1b[38;2;300;20;30mt\x1b[m"), [{
    text: "t",
    style: { fg: "rgb(255,20,30)" },
  }]);
  // Cursor moves, erase, OSC title/hyperlink, charset switch: gone, text kept.
  const noisy = "a\x1b[2K\x1b[1Gb\x1b]0;title\x07c\x1b]8;;https://x\x1b\\d\x1b(Be\x9b1mf";
  assertEquals(parseAnsi(noisy).map((s) => s.text).join(""), "abcdef");
  const nodes = ansiToHNodes("\x1b[1;32mPASS\x1b[0m plain \x1b[38;2;1;2;3mrgb");
  assertEquals(nodes[0], {
    tag: "span",
    class: "ansi-bold ansi-fg-2",
    style: undefined,
    children: ["PASS"],
  });
  assertEquals(nodes[1], " plain ");
  assertEquals((nodes[2] as HElement).style, { color: "rgb(1,2,3)" });
});

test("markdown: raw HTML stays text; only http(s)/mailto links; only raster data images; fences highlighted", () => {
  const nodes = markdownToHNodes([
    "# Title",
    "",
    "<script>alert(1)</script>",
    "",
    "[a](javascript:alert(1)) [b](https://example.com) [c](mailto:me@example.com) [d](/relative)",
    "",
    "![x](https://example.com/t.png) ![y](data:image/png;base64,AAAA) ![z](data:image/svg+xml;base64,AAAA)",
    "",
    "```ts",
    "const a = '<script>';",
    "```",
    "",
    "- [x] done",
    "",
    "| h |",
    "|:-:|",
    "| c |",
  ].join("\n"));
  assertEquals(find(nodes, (n) => n.tag === "h1").map(hText), ["Title"]);
  assertEquals(find(nodes, (n) => n.class === "md-raw-html").map(hText), [
    "<script>alert(1)</script>",
  ]);
  assertEquals(find(nodes, (n) => n.tag === "a").map((a) => a.href), [
    "https://example.com",
    "mailto:me@example.com",
  ]);
  assertEquals(find(nodes, (n) => n.class === "md-link-blocked").map(hText), ["a", "d"]);
  assertEquals(find(nodes, (n) => n.tag === "img").map((i) => i.src), [
    "data:image/png;base64,AAAA",
  ]);
  assertEquals(find(nodes, (n) => n.class === "md-image-blocked").length, 2);
  const code = find(nodes, (n) => n.tag === "pre")[0];
  assertEquals(code.class, "code-block lang-ts");
  assertEquals(hText(code), "const a = '<script>';");
  assert(find([code], (n) => n.class === "hljs-keyword").length === 1, "keyword span");
  assertEquals(find(nodes, (n) => n.tag === "input").map((n) => n.checked), [true]);
  assertEquals(find(nodes, (n) => n.tag === "td").map((n) => n.class), ["align-center"]);
  for (const url of ["javascript:x", "data:text/html,x", "//evil", "https://a b", " vbscript:x"]) {
    assertEquals(safeHref(url), undefined, url);
  }
});

test("markdown: prose skips the parser but gives the same paragraphs; markers still parse", () => {
  assertEquals(markdownToHNodes("Plain words\nsecond line\n\n  next paragraph  "), [
    { tag: "p", children: ["Plain words\nsecond line"] },
    { tag: "p", children: ["next paragraph"] },
  ]);
  assertEquals(find(markdownToHNodes("Title\n---"), (n) => n.tag === "h2").map(hText), ["Title"]);
  assertEquals(find(markdownToHNodes("- one\n- two"), (n) => n.tag === "li").length, 2);
  assertEquals(find(markdownToHNodes("1. one"), (n) => n.tag === "ol").length, 1);
  assertEquals(find(markdownToHNodes("see www.example.com"), (n) => n.tag === "a").length, 1);
  assertEquals(find(markdownToHNodes("    indented"), (n) => n.tag === "pre").length, 1);
});

test("diff: an edit as unified lines numbered in the old and new text", () => {
  const rows = diffLines("a\nb\nc\n", "a\nB\nc\nd\n").map((row) =>
    row.class === "diff-hunk" ? hText(row) : row.children!.map(hText).join("|")
  );
  assertEquals(rows, ["@@ -1,3 +1,4 @@", "1|1| |a", "2||-|b", "|2|+|B", "3|3| |c", "|4|+|d"]);
});

/** `lines` lines of short random-looking text, distinct per seed. */
function numberedLines(lines: number, seed: string): string {
  return Array.from({ length: lines }, (_, i) => `${seed}${(i * 7919) % 1009}`).join("\n");
}

test("diff: a large edit with little change still diffs; a large rewrite shows before/after", () => {
  // 40k characters, one line changed: a small edit distance, found within the bound.
  const before = numberedLines(6_000, "line ");
  const lines = before.split("\n");
  lines[3_000] = "changed";
  const small = diffLines(before, lines.join("\n"));
  const cells = (row: HElement) => row.children!.map(hText).join("|");
  assertEquals(
    small.filter((r) => r.class === "diff-line diff-del").map(cells).join(),
    "3001||-|line 95",
  );
  assertEquals(
    small.filter((r) => r.class === "diff-line diff-add").map(cells).join(),
    "|3001|+|changed",
  );
  // 40k characters rewritten on every line: the edit distance passes the bound, so the
  // diff gives up early and shows both texts instead of blocking the page.
  const rewrite = diffLines(numberedLines(6_000, "a"), numberedLines(6_000, "b"));
  assertEquals(rewrite.filter((r) => r.class?.startsWith("diff-line")).length, 0);
  assert(hText(rewrite[0]).startsWith("(too large to diff"), hText(rewrite[0]));
  assertEquals(rewrite.filter((r) => r.tag === "pre").length, 2);
});

test("diff: pi's recorded diff keeps the file's line numbers and context", () => {
  const recorded = [
    "  9 import a",
    " 10 import b",
    "-11 old()",
    "+11 fresh()",
    "+12 extra()",
    " 12 done()",
    "    ...",
    " 40 tail()",
    "-41 gone()",
    " 42 end()",
  ].join("\n");
  const rows = recordedDiffLines(recorded)!.map((row) =>
    row.class === "diff-hunk" ? hText(row) : row.children!.map(hText).join("|")
  );
  assertEquals(rows, [
    "9|9| |import a",
    "10|10| |import b",
    "11||-|old()",
    "|11|+|fresh()",
    "|12|+|extra()",
    "12|13| |done()",
    "⋯",
    "40|41| |tail()",
    "41||-|gone()",
    "42|42| |end()",
  ]);
  assertEquals(recordedDiffLines("not a diff\nat all"), undefined);
});

test("tree labels: terminal escapes are dropped from one-line previews", () => {
  const result = {
    type: "message",
    id: "t1",
    parentId: null,
    timestamp: "2026-01-01T00:00:00.000Z",
    message: {
      role: "toolResult",
      toolCallId: "c1",
      toolName: "bash",
      content: [{ type: "text", text: "\x1b[1;31mFAIL\x1b[0m src/a.test.ts \x1b]0;title\x07ok" }],
      isError: false,
      timestamp: 1,
    },
  } as unknown as Parameters<typeof entryPreview>[0];
  assertEquals(entryPreview(result), "bash: FAIL src/a.test.ts ok");
});

test("branch summary: dates, models, messages by role, tool calls, tokens", () => {
  const { entries } = parseSessionJsonlSync(conversationSession());
  const path = SessionIndex.build(entries).getPath(CONV.last);
  const summary = branchSummary(path);
  assertEquals(summary.first, path[0].timestamp);
  assertEquals(summary.last, path.at(-1)!.timestamp);
  assertEquals(summary.models, ["anthropic/claude-sonnet-4-5"]);
  const messages = path.filter((e) => e.type === "message").map((e) =>
    (e.message as { role: string }).role
  );
  const expected: Record<string, number> = {};
  for (const role of messages) expected[role] = (expected[role] ?? 0) + 1;
  assertEquals(summary.roles, expected);
  assertEquals(summary.toolCalls, 3); // edit, bash, write
  assertEquals(branchSummary([]).toolCalls, 0);
});

test("outline: a row per item, labels on their targets, the five filters", () => {
  const { entries } = parseSessionJsonlSync(conversationSession());
  const rows = outlineRows(conversationItems(SessionIndex.build(entries).getPath(CONV.last)));
  const ids = (filter: Parameters<typeof outlineShows>[1]) =>
    rows.filter((row) => outlineShows(row, filter)).map((row) => row.id);
  assertEquals(ids("all").length, rows.length);
  assertEquals(ids("user"), [CONV.user]);
  assertEquals(ids("labeled"), [CONV.edit]);
  assertEquals(rows.find((row) => row.id === CONV.edit)?.label, "the fix");
  assert(ids("default").every((id) => rows.find((r) => r.id === id)!.kind !== "meta"));
  // "No tools" keeps messages with text, drops tool-only turns.
  assert(ids("no-tools").includes(CONV.edit), "an edit turn with text stays");
  assert(ids("no-tools").length < ids("default").length, "tool-only turns are dropped");
});

test("fold: long output shows 40 lines, the rest behind show all", () => {
  const text = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`).join("\n");
  const pre = foldInto({ tag: "pre" }, [text]);
  assertEquals(hText(pre).split("\n").length, 41); // 40 lines, each with its line end
  assertEquals(hText(pre) + hText(pre.more!.children), text);
  assertEquals(pre.more!.label, "Show all 100 lines");
  assertEquals(foldInto({ tag: "pre" }, ["short"]).more, undefined);
});

test("conversation items: results inside their calls, markers for bookkeeping entries", () => {
  const { entries } = parseSessionJsonlSync(conversationSession());
  const index = SessionIndex.build(entries);
  const items = conversationItems(index.getPath(CONV.last));
  assertEquals(items.map((i) => i.kind), [
    "user",
    "meta",
    "assistant",
    "assistant",
    "meta",
    "assistant",
    "assistant",
  ]);
  const edit = items.find((i) => i.id === CONV.edit)!;
  const call = edit.blocks.find((b) => b.type === "tool");
  assert(call?.type === "tool" && call.result?.text === "Edited src/a.ts", JSON.stringify(call));
  assertEquals(items[1].title, "model → anthropic/claude-sonnet-4-5");
  // A branch cut before the result: the call has none.
  const cut = conversationItems(index.getPath(CONV.edit));
  const pending = cut.at(-1)!.blocks.find((b) => b.type === "tool");
  assert(pending?.type === "tool" && pending.result === undefined, "no result on this branch");
});
