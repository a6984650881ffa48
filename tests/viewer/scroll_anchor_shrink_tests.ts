/**
 * A message above the one being read that comes out shorter when it is laid out again
 * (it stood in at a height remembered from an earlier layout) does not move the one being
 * read, even at the end of the conversation. There the scroller has less room below the
 * view than the message shrinks by, so the browser itself pulls the scroll position back
 * to the new end; the anchor must not take that pull for the reader's own scrolling (it
 * did: the first wheel step after "Jump to latest" moved the text a few hundred pixels too
 * far, the CI flake of the scroll-anchor test at 768 px). The shrink is made directly here
 * (the message above gets a smaller height) so that it happens on every run, at 768 px
 * (the page's `main` scrolls) and 1400 px (the conversation pane scrolls). Registered
 * from `tests/viewer/window_tests.ts`. Measures positions, times nothing.
 *
 * Also: layout changes above the list of a fraction of a pixel each (the summary, the
 * outline and its count landing one after the other) do not add up to a visible move.
 *
 * @module
 */
import { openWithImported, withViewerBrowser } from "./helpers.ts";
import { assert } from "./page.ts";
import { openAtLatest, unevenSession } from "./scroll_anchor_tests.ts";

const MESSAGES = 554;

Deno.test({
  name: "viewer: a message above shrinking at the end of the conversation keeps the place",
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  const work = await Deno.makeTempDir({ prefix: "mu-viewer-anchor-shrink-" });
  try {
    const file = `${work}/uneven.jsonl`;
    await Deno.writeTextFile(file, unevenSession(MESSAGES));
    await withViewerBrowser({}, 300_000, async (viewer, browser) => {
      const { page, watch } = await openWithImported(viewer, browser, [file]);
      const link = await page.locator("#session-table .session-link").first()
        .getAttribute("href");
      const last = `u${String(MESSAGES).padStart(7, "0")}`;
      for (const size of [{ width: 768, height: 1000 }, { width: 1400, height: 900 }]) {
        await t.step(`${size.width} px`, async () => {
          await openAtLatest(page, viewer.url, link!, size, last);
          // The message before the last one shrinks by more than the room left below the
          // view; the last message is the one read (across the middle of the view).
          const result = await page.evaluate(async (last) => {
            const frame = () => new Promise((done) => requestAnimationFrame(done));
            const item = document.querySelector<HTMLElement>(`.conv-item[data-id="${last}"]`)!;
            const before = item.previousElementSibling as HTMLElement;
            const scroller = [...document.querySelectorAll("main, .pane")].find((node) =>
              node.scrollHeight - node.clientHeight > 2
            )!;
            // At the very end (where "Jump to latest" leaves the view unless the last
            // message is taller than it).
            scroller.scrollTop = scroller.scrollHeight;
            await frame();
            await frame();
            const room = scroller.scrollHeight - scroller.clientHeight - scroller.scrollTop;
            const height = before.getBoundingClientRect().height;
            const shrink = Math.round(Math.min(300, height / 2));
            const top = item.getBoundingClientRect().top;
            before.style.height = `${height - shrink}px`;
            before.style.overflow = "hidden";
            await frame();
            await frame();
            return { room, shrink, height, top, now: item.getBoundingClientRect().top };
          }, last);
          assert(
            result.shrink > result.room + 50,
            `the message above shrinks by more than the room below the view (${
              JSON.stringify(result)
            })`,
          );
          assert(
            Math.abs(result.now - result.top) <= 1,
            `${last} moved from ${result.top} to ${result.now} when the message above it ` +
              `shrank by ${result.shrink} px with ${result.room} px left below the view`,
          );
        });
      }
      for (const size of [{ width: 768, height: 1000 }, { width: 1400, height: 900 }]) {
        await t.step(`${size.width} px, changes of a fraction of a pixel`, async () => {
          await openAtLatest(page, viewer.url, link!, size, last);
          const result = await page.evaluate(async () => {
            const frame = () => new Promise((done) => requestAnimationFrame(done));
            const scroller = [...document.querySelectorAll("main, .pane")].find((node) =>
              node.scrollHeight - node.clientHeight > 2
            )!;
            // A screen up from the end: room on both sides, so no clamp is involved.
            scroller.scrollTop -= scroller.clientHeight;
            for (let i = 0; i < 3; i++) await frame();
            const box = scroller.getBoundingClientRect();
            const middle = (Math.max(0, box.top) + Math.min(innerHeight, box.bottom)) / 2;
            const item = document.elementFromPoint(box.left + box.width / 2, middle)!
              .closest<HTMLElement>(".conv-item")!;
            // Put in above the list, then scrolled a pixel up and back so that the anchor,
            // choosing again, watches it as it watches what the page puts there.
            const above = document.createElement("div");
            above.style.flex = "none"; // at 1400 px the pane is a flex column
            item.parentElement!.before(above);
            scroller.scrollTop -= 1;
            await frame();
            scroller.scrollTop += 1;
            await frame();
            await frame();
            const top = item.getBoundingClientRect().top;
            // It grows by 0.3 px a frame, eight times: each shift is less than the pixel
            // the scroll position moves by.
            for (let step = 1; step <= 8; step++) {
              above.style.height = `${0.3 * step}px`;
              await frame();
              await frame();
            }
            const now = item.getBoundingClientRect().top;
            above.remove();
            return { id: item.dataset.id, top, now };
          });
          assert(
            Math.abs(result.now - result.top) <= 1,
            `${result.id} moved from ${result.top} to ${result.now} while 2.4 px came in ` +
              `above it 0.3 px at a time`,
          );
        });
      }
      assert(watch.errors.length === 0, watch.errors.join("\n"));
    });
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});
