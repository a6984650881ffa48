/**
 * What the conversation view lays out (issue 15: "a 100k-entry session scrolls with no
 * main-thread task over 50 ms"), registered from `tests/deno/viewer.test.ts`. An assistant
 * turn with several tool calls is thousands of pixels tall; the trace of the 100k scroll
 * showed such a turn laid out whole (52-110 ms of CPU) the moment its top came into view.
 * Its blocks out of view must be skipped (`content-visibility`), which the browser reports
 * through `checkVisibility({ contentVisibilityAuto: true })`. Nothing is timed.
 *
 * @module
 */
import { openWithImported, withViewerBrowser } from "./helpers.ts";
import { assert, assertEquals, openFromList } from "./page.ts";

/** One user message, then one assistant turn with `calls` bash calls of 40-line outputs. */
function tallTurnSession(calls: number): string {
  const at = (n: number) => new Date(Date.UTC(2026, 2, 2, 9, 0, n)).toISOString();
  const id = (n: number) => `t${String(n).padStart(7, "0")}`;
  const lines: unknown[] = [
    { type: "session", version: 4, id: "conv-tall-0001", createdAt: at(0), cwd: "/tall" },
    {
      type: "message",
      id: id(1),
      parentId: null,
      timestamp: at(1),
      message: { role: "user", content: "tall turn please", timestamp: 1 },
    },
  ];
  let n = 1;
  const content = Array.from({ length: calls }, (_, i) => ({
    type: "toolCall",
    id: `call-${i}`,
    name: "bash",
    arguments: { command: `seq 1 40 # call ${i}` },
  }));
  lines.push({
    type: "message",
    id: id(++n),
    parentId: id(n - 1),
    timestamp: at(n),
    message: {
      role: "assistant",
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      stopReason: "toolUse",
      content,
      timestamp: n,
    },
  });
  for (let i = 0; i < calls; i++) {
    lines.push({
      type: "message",
      id: id(++n),
      parentId: id(n - 1),
      timestamp: at(n),
      message: {
        role: "toolResult",
        toolCallId: `call-${i}`,
        toolName: "bash",
        content: [{ type: "text", text: Array.from({ length: 40 }, (_, k) => `${k}`).join("\n") }],
        isError: false,
        timestamp: n,
      },
    });
  }
  return lines.map((l) => JSON.stringify(l)).join("\n") + "\n";
}

Deno.test({
  name: "viewer: a tall assistant turn lays out only its blocks in view",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const work = await Deno.makeTempDir({ prefix: "mu-viewer-conv-tall-" });
  try {
    const file = `${work}/tall.jsonl`;
    await Deno.writeTextFile(file, tallTurnSession(12));
    await withViewerBrowser({}, 120_000, async (viewer, browser) => {
      const { page, watch } = await openWithImported(viewer, browser, [file]);
      await openFromList(page, viewer.url, "tall turn please");
      await page.getByRole("tab", { name: "Conversation" }).click();
      await page.waitForSelector("#conversation-view .conv-assistant .tool-call");
      await page.evaluate(() =>
        new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))
      );
      const blocks = await page.locator(".conv-assistant .conv-body > *").evaluateAll((nodes) =>
        nodes.map((n) => ({
          // A skipped block keeps its own box; what it skips is its content.
          rendered: n.firstElementChild!.checkVisibility({ contentVisibilityAuto: true }),
          below: n.getBoundingClientRect().top > innerHeight * 3,
        }))
      );
      assertEquals(blocks.length, 12, "one block per tool call");
      assert(blocks[0].rendered, "the turn's first block, in view, is rendered");
      const skipped = blocks.filter((b) => b.below && !b.rendered).length;
      const far = blocks.filter((b) => b.below).length;
      assert(far >= 3, `the turn reaches well below the view (${far} blocks three screens down)`);
      assertEquals(skipped, far, "blocks three screens below the view are not laid out");
      assertEquals(watch.errors, [], "page errors");
    });
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});
