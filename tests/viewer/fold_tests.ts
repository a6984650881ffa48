/**
 * Long text in the context and raw panes is folded behind "Show all", not put in a box
 * with a scrollbar of its own (issue 15: "long outputs folded with show all"; at 100k
 * entries ~60 nested scrollers made scrolling the context back up spend its longest tasks
 * in paint and layerization). Registered from `tests/viewer/text_tests.ts`. Reads what the
 * DOM holds and how the panes' descendants are styled; times nothing.
 *
 * @module
 */
import type { Locator, Page } from "playwright-core";
import { openWithImported, withViewerBrowser } from "./helpers.ts";
import { assert, assertEquals, openFromList } from "./page.ts";

/** 100 short lines (2,900 characters): cut by lines. */
const LINES = Array.from({ length: 100 }, (_, i) => `line ${i + 1} of the user's paste`)
  .join("\n");
/** 250 lines of output, 6,000+ characters. */
const OUTPUT = Array.from({ length: 250 }, (_, i) => `out ${i + 1} ${"=".repeat(16)}`)
  .join("\n");
/** One long line of tool-call arguments (folded by characters). */
const ARGUMENT = "x".repeat(2_400);

function foldSession(): string {
  const at = (n: number) => new Date(Date.UTC(2026, 3, 1, 0, 0, n)).toISOString();
  const message = (n: number, body: Record<string, unknown>) => ({
    type: "message",
    id: `f000000${n}`,
    parentId: n === 1 ? null : `f000000${n - 1}`,
    timestamp: at(n),
    message: { timestamp: n, ...body },
  });
  const records = [
    { type: "session", version: 4, id: "fold-0001", createdAt: at(0), cwd: "/fold" },
    message(1, { role: "user", content: "fold test: a long paste follows" }),
    message(2, { role: "user", content: LINES }),
    message(3, {
      role: "assistant",
      stopReason: "toolUse",
      content: [{ type: "toolCall", id: "call-1", name: "bash", arguments: { arg: ARGUMENT } }],
    }),
    message(4, {
      role: "toolResult",
      toolCallId: "call-1",
      toolName: "bash",
      content: [{ type: "text", text: OUTPUT }],
      isError: false,
    }),
  ];
  return records.map((record) => JSON.stringify(record)).join("\n") + "\n";
}

/** Elements in the panes' items that the reader could scroll (a scrollbar of their own). */
function nestedScrollers(page: Page): Promise<string[]> {
  return page.locator(".context-item *, .raw-item *").evaluateAll((nodes) =>
    nodes.filter((n) => {
      const style = getComputedStyle(n);
      return [style.overflowX, style.overflowY].some((o) => o === "auto" || o === "scroll");
    }).map((n) => `${n.tagName.toLowerCase()}.${n.className}`)
  );
}

/** Click the "Show all N characters" button in `where` and wait until it is done. */
async function showAll(where: Locator): Promise<void> {
  const more = where.getByRole("button", { name: /^Show all [\d,]+ characters$/ });
  await more.click();
  await more.waitFor({ state: "detached" });
}

/** The block (in the context item of `source`) whose text includes `text`. */
function block(page: Page, source: string, text: string) {
  return page.locator(`.context-item[data-source="${source}"] .block`, { hasText: text });
}

Deno.test({
  name: "viewer: long blocks are folded behind a working Show all, with no nested scrollers",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const work = await Deno.makeTempDir({ prefix: "mu-viewer-fold-" });
  try {
    const file = `${work}/fold.jsonl`;
    await Deno.writeTextFile(file, foldSession());
    await withViewerBrowser({}, 180_000, async (viewer, browser) => {
      const { page, watch } = await openWithImported(viewer, browser, [file]);
      await openFromList(page, viewer.url, "fold test");
      await page.waitForSelector('.context-item[data-source="f0000004"]');
      await page.waitForSelector(".raw-item");
      assertEquals(await nestedScrollers(page), [], "no scroller inside a context or raw item");
      // An opaque pane scrolls on the compositor; a transparent one re-layerized its contents
      // on scroll steps (PaintArtifactCompositor::Update, traced at 100k).
      const paneBackground = await page.locator(".context-pane")
        .evaluate((n) => getComputedStyle(n).backgroundColor);
      assert(!/^rgba\(.*, 0\)$|^transparent$/.test(paneBackground), `pane: ${paneBackground}`);

      // The paste: folded after its first lines, and "Show all" shows every line.
      const paste = block(page, "f0000002", "line 1 of");
      const pre = paste.locator("pre");
      const shownLines = await pre.evaluate((n) => n.textContent!.split("\n").length);
      assert(shownLines <= 21, `the paste is folded (${shownLines} of 100 lines shown)`);
      await showAll(paste);
      assertEquals(await pre.textContent(), LINES, "every line after Show all");

      // One long line of arguments: folded by characters, then shown whole.
      const call = block(page, "f0000003", "xxxx");
      const shownChars = await call.locator("pre").evaluate((n) => n.textContent!.length);
      assert(shownChars < ARGUMENT.length, `arguments folded (${shownChars} characters)`);
      await showAll(call);
      assert((await call.locator("pre").textContent())!.includes(ARGUMENT), "all arguments");

      // A long output: "Show all" loads the rest, every line of it.
      const output = block(page, "f0000004", "out 1 ");
      await showAll(output);
      assertEquals(await output.locator("pre").textContent(), OUTPUT, "the whole output");

      // The raw line of that entry: folded, and "Show all N characters" shows all N.
      const raw = page.locator('.raw-item[data-id="f0000004"]');
      const more = raw.getByRole("button", { name: /^Show all [\d,]+ characters$/ });
      const total = Number((await more.textContent())!.replace(/\D/g, ""));
      assert((await raw.locator("pre").textContent())!.length < total, "the raw line is folded");
      await more.click();
      await more.waitFor({ state: "detached" });
      assertEquals((await raw.locator("pre").textContent())!.length, total, "the whole line");
      assert((await raw.locator("pre").textContent())!.includes("out 250 "), "to its end");

      assertEquals(await nestedScrollers(page), [], "still none with everything shown");
      assertEquals(watch.errors, [], "page errors");
    });
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});
