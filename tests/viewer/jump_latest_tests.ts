/**
 * "Jump to latest" ends at the end: at 390, 768 and 1400 px, on a generated session whose
 * last items stand in at placeholder heights until laid out (their real heights differ
 * from what the jump scrolled by), the last message is the current item and, once nothing
 * moves any more, ends at the bottom of the view with the scroller at its end (it was left
 * lower, cut off, when the layout settled after the jump). Each width jumps from a freshly
 * opened session twice (the layout's timing decides the outcome).
 * Registered from `tests/deno/viewer.test.ts`.
 *
 * @module
 */
import type { Page } from "playwright-core";
import { serializeSessionJsonl } from "../../src/jsonl.ts";
import { generatedSession } from "../unit/context_sessions.ts";
import { openWithImported, screenshot, withViewerBrowser } from "./helpers.ts";
import { assert, assertEquals } from "./page.ts";

const ENTRIES = 3000;
const ROUNDS = 2;

/** Where the current item ends once nothing has moved for ten frames. */
function settledPlace(page: Page) {
  return page.evaluate(async () => {
    const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
    const current = () => document.querySelector<HTMLElement>(".conv-current")!;
    let last = "";
    for (let still = 0, frames = 0; still < 10 && frames < 600; frames++) {
      await frame();
      const box = current().getBoundingClientRect();
      const now = `${box.top}|${box.bottom}`;
      still = now === last ? still + 1 : 0;
      last = now;
    }
    const node = current();
    const items = document.querySelectorAll(".conv-item");
    // The scroller: the pane where it scrolls, else the page (narrow screens).
    let scroller: Element | null = node.parentElement;
    while (scroller && scroller !== document.body) {
      const overflow = getComputedStyle(scroller).overflowY;
      const scrolls = overflow === "auto" || overflow === "scroll";
      if (scrolls && scroller.scrollHeight > scroller.clientHeight + 2) break;
      scroller = scroller.parentElement;
    }
    if (!scroller || scroller === document.body) scroller = document.scrollingElement!;
    const isPage = scroller === document.scrollingElement;
    const viewBottom = isPage
      ? innerHeight
      : Math.min(innerHeight, scroller.getBoundingClientRect().bottom);
    const box = node.getBoundingClientRect();
    return {
      isLast: node === items[items.length - 1],
      top: Math.round(box.top),
      bottom: Math.round(box.bottom),
      viewBottom: Math.round(viewBottom),
      room: Math.round(scroller.scrollHeight - scroller.clientHeight - scroller.scrollTop),
    };
  });
}

Deno.test({
  name: "viewer: Jump to latest leaves the last message at the end of the view",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const work = await Deno.makeTempDir({ prefix: "mu-viewer-jump-latest-" });
  try {
    const session = generatedSession(ENTRIES, 29);
    const file = `${work}/long.jsonl`;
    await Deno.writeTextFile(file, serializeSessionJsonl(session.header, session.entries));
    await withViewerBrowser({ newReader: true }, 240_000, async (viewer, browser) => {
      const { page, watch } = await openWithImported(viewer, browser, [file]);
      for (const width of [1400, 768, 390]) {
        await page.setViewportSize({ width, height: width < 900 ? 1024 : 900 });
        for (let round = 0; round < ROUNDS; round++) {
          await page.goto(`${viewer.url}#/`);
          await page.locator("#session-table .session-link").first().click();
          await page.waitForSelector("#conversation-view .conv-item");
          await page.click("#conv-latest");
          await page.waitForSelector(".conv-current");
          const place = await settledPlace(page);
          const where = `${width} px, round ${round + 1}: ${JSON.stringify(place)}`;
          assert(place.isLast, `the current item is the last: ${where}`);
          assertEquals(place.room <= 2, true, `the scroller is at its end: ${where}`);
          assert(place.bottom <= place.viewBottom, `the last message is not cut off: ${where}`);
        }
        await screenshot(page, `jump-latest-${width}`);
      }
      assertEquals(watch.errors, [], "page errors");
    });
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});
