/**
 * What arrives late above the conversation does not move the message the reader looks at:
 * the branch's summary and outline rail are asked for alongside the first page and, on a
 * busy machine, land after "Jump to latest" (even during the reader's first wheel steps).
 * Here the worker's answers to them are held back until the reader is at the end, then let
 * go: the message under the pointer must stay where it is, and the wheel steps after it
 * must move it by the wheel's distance alone. Before the fix the summary's height stayed
 * on screen as a jump and the next wheel step "corrected" it by as much again (the CI
 * flake of the scroll-anchor test, at 768 px). At 390, 768 and 1400 px. Registered from
 * `tests/viewer/window_tests.ts`. Measures positions, times nothing.
 *
 * @module
 */
import {
  describeSteps as show,
  placeLost as jumps,
  wheelUp as wheel,
} from "../../bench/browser/scroll_place.ts";
import { openWithImported, withViewerBrowser } from "./helpers.ts";
import { assert } from "./page.ts";
import { openAtLatest, unevenSession } from "./scroll_anchor_tests.ts";

const MESSAGES = 554;
/** The worker calls whose answers build what sits above the conversation list. */
const LATE_CALLS = ["branchSummary", "conversationOutline"];

/**
 * Runs in the page before the app: calls to the worker whose method is in
 * `globalThis.muHoldCalls` are kept until `globalThis.muReleaseCalls()` sends them.
 */
const HOLD_WORKER_CALLS = `(() => {
  const post = Worker.prototype.postMessage;
  const held = [];
  globalThis.muHoldCalls = [];
  globalThis.muReleaseCalls = () => {
    globalThis.muHoldCalls = [];
    for (const [worker, message, transfer] of held.splice(0)) post.call(worker, message, transfer);
  };
  Worker.prototype.postMessage = function (message, transfer) {
    if (message && message.rpc === "call" && globalThis.muHoldCalls.includes(message.method)) {
      held.push([this, message, transfer]);
      return;
    }
    return post.call(this, message, transfer);
  };
})()`;

Deno.test({
  name: "viewer: the summary and outline arriving late do not move the message being read",
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  const work = await Deno.makeTempDir({ prefix: "mu-viewer-anchor-late-" });
  try {
    const file = `${work}/uneven.jsonl`;
    await Deno.writeTextFile(file, unevenSession(MESSAGES));
    await withViewerBrowser({}, 300_000, async (viewer, browser) => {
      await browser.context.addInitScript(HOLD_WORKER_CALLS);
      const { page, watch } = await openWithImported(viewer, browser, [file]);
      const link = await page.locator("#session-table .session-link").first()
        .getAttribute("href");
      const last = `u${String(MESSAGES).padStart(7, "0")}`;
      for (
        const size of [
          { width: 768, height: 1000 },
          { width: 1400, height: 900 },
          { width: 390, height: 844 },
        ]
      ) {
        await t.step(`${size.width} px`, async () => {
          await openAtLatest(page, viewer.url, link!, size, last, () =>
            page.evaluate((calls) => {
              (globalThis as unknown as { muHoldCalls: string[] }).muHoldCalls = calls;
            }, LATE_CALLS));
          assert(
            await page.locator(".conv-summary").count() === 0,
            "the summary was held back until the reader is at the end",
          );
          const box = (await page.locator("#conversation").boundingBox())!;
          const x = box.x + box.width / 2;
          const y = Math.min(box.y + box.height, size.height) - size.height / 3;
          const under = await page.evaluate(([x, y]) => {
            const item = document.elementFromPoint(x, y)?.closest<HTMLElement>(".conv-item");
            return item ? { id: item.dataset.id!, top: item.getBoundingClientRect().top } : null;
          }, [x, y]);
          assert(under, `a message under the pointer at ${x},${y}`);
          await page.evaluate(() =>
            (globalThis as unknown as { muReleaseCalls(): void }).muReleaseCalls()
          );
          await page.waitForSelector(".conv-summary");
          await page.waitForFunction(() =>
            document.querySelector(".outline-count")?.textContent !== "…"
          );
          // Two frames: whatever follows the new blocks' layout has run.
          await page.evaluate(() =>
            new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))
          );
          const top = await page.evaluate(
            (id) =>
              document.querySelector<HTMLElement>(`.conv-item[data-id="${id}"]`)
                ?.getBoundingClientRect().top ?? null,
            under.id,
          );
          assert(
            top !== null && Math.abs(top - under.top) <= 1,
            `${under.id} moved from ${under.top} to ${top} when the summary and outline came in`,
          );
          const readings = await wheel(page, x, y, 3);
          const lost = jumps(readings);
          assert(lost.length === 0, `the place was lost on ${lost.length} steps: ${show(lost)}`);
        });
      }
      assert(watch.errors.length === 0, watch.errors.join("\n"));
    });
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});
