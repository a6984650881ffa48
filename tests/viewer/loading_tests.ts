/**
 * Switching the tab (or the branch) never leaves the old pane on screen with no sign of
 * loading: the moment the Conversation tab is chosen on the Context tab, the context is
 * gone and a loading notice says what is coming, until the conversation's first rows are
 * in. At 390, 768 and 1400 px. Registered from `tests/viewer/window_tests.ts`.
 *
 * @module
 */
import { openWithImported, withViewerBrowser } from "./helpers.ts";
import { assert, assertEquals } from "./page.ts";
import { unevenSession } from "./scroll_anchor_tests.ts";

Deno.test({
  name: "viewer: a tab that is loading shows a loading notice, never the old pane",
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  const work = await Deno.makeTempDir({ prefix: "mu-viewer-loading-" });
  try {
    const file = `${work}/uneven.jsonl`;
    await Deno.writeTextFile(file, unevenSession());
    await withViewerBrowser({}, 240_000, async (viewer, browser) => {
      const { page, watch } = await openWithImported(viewer, browser, [file]);
      const link = await page.locator("#session-table .session-link").first()
        .getAttribute("href");
      for (
        const size of [{ width: 390, height: 844 }, { width: 768, height: 1000 }, {
          width: 1400,
          height: 900,
        }]
      ) {
        await t.step(`${size.width} px`, async () => {
          await page.setViewportSize(size);
          await page.goto(`${viewer.url}#/`);
          // The previous step's click chose Conversation, which the page remembers: start
          // each width on the Context tab again.
          await page.evaluate(() => localStorage.setItem("mu.viewer.tab", "context"));
          await page.goto(new URL(link!, viewer.url).href);
          await page.waitForSelector("#context-view .context-item");
          const tab = size.width < 900
            ? "#pane-tab-conversation"
            : ".main-pane > .tabs > .tab:nth-child(2)";
          // What the page shows in the same task as the click (before any answer arrives).
          const atClick = await page.evaluate((tab) => {
            document.querySelector<HTMLElement>(tab)!.click();
            const notice = document.querySelector<HTMLElement>("#pane-loading");
            return {
              oldContext: document.querySelector("#context-view") !== null,
              notice: notice?.textContent ?? null,
              noticeShown: notice ? notice.getBoundingClientRect().height > 0 : false,
            };
          }, tab);
          assertEquals(atClick.oldContext, false, "the old context is not left on screen");
          assertEquals(atClick.notice, "Loading the conversation…");
          assert(atClick.noticeShown, "the notice is visible");
          await page.waitForSelector("#conversation-view .conv-item");
          assertEquals(await page.locator("#pane-loading").count(), 0, "gone once rows are in");
        });
      }
      assertEquals(watch.errors, [], "page errors");
    });
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});
