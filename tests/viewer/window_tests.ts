/**
 * The context and raw panes hold a bounded window of rows, as the conversation does
 * (issue 15: the 100k trace showed a 40-54 ms major GC tracing a context pane that kept
 * every page it had loaded). Registered from `tests/deno/viewer.test.ts`. Counts rows, times
 * nothing.
 *
 * @module
 */
import { openWithImported, withViewerBrowser } from "./helpers.ts";
import { assert, assertEquals, openFromList } from "./page.ts";
import { longSession } from "./conversation_tests.ts";
import "./frame_budget_tests.ts"; // and add a bounded amount of text per frame
import "./scroll_reach_tests.ts"; // and keep loading pages while scrolling down fast
import "./scroll_anchor_tests.ts"; // and keep the reader's place scrolling up after a jump
import "./scroll_anchor_late_tests.ts"; // and keep it while the summary and outline come in
import "./scroll_anchor_shrink_tests.ts"; // and while a message above comes out shorter at the end
import "./loading_tests.ts"; // and say a tab is loading instead of showing the old one

/** The entry numbers (`l0000042` → 42) of a pane's rows, in order. */
function rowNumbers(page: import("playwright-core").Page, selector: string, attr: string) {
  return page.locator(selector).evaluateAll(
    (nodes, attr) => nodes.map((n) => Number((n as HTMLElement).dataset[attr]!.slice(1))),
    attr,
  );
}

Deno.test({
  name:
    "viewer: the context and raw panes hold a window of rows after scrolling through many pages",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const work = await Deno.makeTempDir({ prefix: "mu-viewer-window-" });
  const entries = 1500;
  try {
    const file = `${work}/long.jsonl`;
    await Deno.writeTextFile(file, longSession(entries));
    await withViewerBrowser({}, 180_000, async (viewer, browser) => {
      const { page, watch } = await openWithImported(viewer, browser, [file]);
      await openFromList(page, viewer.url, "message 1");
      for (const pane of [".context-pane", ".raw-pane"]) {
        for (let i = 0; i < 25; i++) {
          await page.locator(pane).evaluate((n) => n.scrollTop = n.scrollHeight);
          await page.waitForTimeout(120);
        }
      }
      const context = await rowNumbers(page, ".context-pane .context-item", "source");
      const raw = await rowNumbers(page, ".raw-pane .raw-item", "id");
      // 25 scrolls reach well past a window's worth of pages (15 context items, 25 raw a page).
      assert(context.at(-1)! > 200, `context scrolled far (to #${context.at(-1)})`);
      assert(raw.at(-1)! > 300, `raw scrolled far (to #${raw.at(-1)})`);
      assert(context.length <= 90, `context holds a window: ${context.length} rows`);
      assert(raw.length <= 150, `raw holds a window: ${raw.length} rows`);
      assert(context.every((n, i) => i === 0 || n === context[i - 1] + 1), "context contiguous");
      assert(raw.every((n, i) => i === 0 || n === raw[i - 1] + 1), "raw contiguous");

      // Scrolling back up loads the dropped pages again, down to the first entry.
      for (let i = 0; i < 40; i++) {
        await page.locator(".context-pane").evaluate((n) => n.scrollTop = 0);
        await page.waitForTimeout(120);
        if ((await rowNumbers(page, ".context-pane .context-item", "source"))[0] === 1) break;
      }
      const back = await rowNumbers(page, ".context-pane .context-item", "source");
      assertEquals(back[0], 1, "the first entry is back at the top");
      assert(back.length <= 90, `still a window: ${back.length} rows`);
      assertEquals(watch.errors, [], "page errors");
    });
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});
