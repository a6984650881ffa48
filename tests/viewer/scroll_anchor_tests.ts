/**
 * Scrolling up after "Jump to latest" keeps the reader's place: each 100 px wheel step up
 * moves the message under the pointer down by about 100 px (never a jump of a screen or
 * to the start), while earlier pages are loaded above it. At 390, 768 and 1400 px in the
 * viewer, and in the HTML export (the same list, scrolled by the page). Registered from
 * `tests/viewer/window_tests.ts`. Measures positions, times nothing.
 *
 * @module
 */
import {
  describeSteps as show,
  placeLost as jumps,
  STEP_PX,
  wheelUp as wheel,
} from "../../bench/browser/scroll_place.ts";
import { openWithImported, screenshot, withViewerBrowser } from "./helpers.ts";
import { assert, readDownload } from "./page.ts";
import type { Page } from "playwright-core";

/** Messages in the session: several conversation pages, more than the window holds. */
const MESSAGES = 554;
/** Wheel steps up after the jump (of `STEP_PX` each). */
const STEPS = 40;

/** A chain of messages of very different heights (one line to a few screens). */
export function unevenSession(n = MESSAGES): string {
  const at = (i: number) => new Date(Date.UTC(2026, 3, 1) + i * 1000).toISOString();
  const lines = [JSON.stringify({
    type: "session",
    version: 4,
    id: "scroll-anchor-0001",
    createdAt: at(0),
    cwd: "/anchor",
  })];
  for (let i = 1; i <= n; i++) {
    const role = i % 2 ? "user" : "assistant";
    const paragraphs = 1 + ((i * 7) % 11);
    const text = Array.from(
      { length: paragraphs },
      (_, p) =>
        `message ${i} paragraph ${p} ` + "words to read here ".repeat(1 + ((i + p) % 9) * 6),
    ).join("\n\n");
    lines.push(JSON.stringify({
      type: "message",
      id: `u${String(i).padStart(7, "0")}`,
      parentId: i === 1 ? null : `u${String(i - 1).padStart(7, "0")}`,
      timestamp: at(i),
      message: role === "user"
        ? { role, content: text, timestamp: i }
        : { role, content: [{ type: "text", text }], stopReason: "stop", timestamp: i },
    }));
  }
  return lines.join("\n") + "\n";
}

/**
 * Open the conversation of the session at `link` in a `size` viewport and "Jump to latest";
 * resolves once the message `last` is in and the view has had a moment to settle.
 * `beforeOpen` runs on the list page, before the session is opened.
 */
export async function openAtLatest(
  page: Page,
  viewerUrl: string,
  link: string,
  size: { width: number; height: number },
  last: string,
  beforeOpen?: () => Promise<unknown>,
): Promise<void> {
  await page.setViewportSize(size);
  await page.goto(`${viewerUrl}#/`);
  await beforeOpen?.();
  await page.goto(new URL(`${link}?tab=conversation`, viewerUrl).href);
  await page.locator("#conversation .conv-item").first().waitFor();
  if (size.width < 900) await page.click("#pane-tab-conversation");
  await page.click("#conv-latest");
  await page.waitForSelector(`.conv-item[data-id="${last}"]`);
  await page.waitForTimeout(500);
}

Deno.test({
  name: "viewer: scrolling up after Jump to latest keeps the message under the pointer",
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  const work = await Deno.makeTempDir({ prefix: "mu-viewer-anchor-" });
  try {
    const file = `${work}/uneven.jsonl`;
    await Deno.writeTextFile(file, unevenSession());
    await withViewerBrowser({}, 400_000, async (viewer, browser) => {
      const { page, watch } = await openWithImported(viewer, browser, [file]);
      const link = await page.locator("#session-table .session-link").first()
        .getAttribute("href");
      for (
        const size of [{ width: 1400, height: 900 }, { width: 768, height: 1000 }, {
          width: 390,
          height: 844,
        }]
      ) {
        await t.step(`${size.width} px`, async () => {
          const last = `u${String(MESSAGES).padStart(7, "0")}`;
          await openAtLatest(page, viewer.url, link!, size, last);
          const box = (await page.locator("#conversation").boundingBox())!;
          const x = box.x + box.width / 2;
          const y = Math.min(box.y + box.height, size.height) - size.height / 3;
          // The layout the first step starts from, for a failure to be read from its message.
          const start = await page.evaluate((last) => {
            const item = document.querySelector(`.conv-item[data-id="${last}"]`)!;
            const blocks = [...item.querySelectorAll(".conv-body > *")].map((block) =>
              Math.round(block.getBoundingClientRect().height)
            );
            const scrollers = [...document.querySelectorAll("main, .pane")].map((node) =>
              `${node.tagName}.${node.className}: top ${Math.round(node.scrollTop)} of ${
                node.scrollHeight - node.clientHeight
              }`
            );
            const box = item.getBoundingClientRect();
            return `last item ${Math.round(box.top)}..${Math.round(box.bottom)}, blocks ${blocks}` +
              `; ${scrollers.join("; ")}`;
          }, last);
          const readings = await wheel(page, x, y, STEPS);
          await screenshot(page, `scroll-anchor-${size.width}`);
          const lost = jumps(readings);
          assert(
            lost.length === 0,
            `the place was lost on ${lost.length} steps: ${show(lost)} (before: ${start})`,
          );
          const end = readings.at(-1)!;
          assert(
            Number(end.after.slice(1)) > MESSAGES - 40,
            `${STEPS} steps of ${STEP_PX} px stay near the end (${show(readings)})`,
          );
        });
      }
      await t.step("the HTML export (scrolled by the page)", async () => {
        await page.setViewportSize({ width: 1400, height: 900 });
        const html = await readDownload(page, () => page.click("#export-html"));
        const exported = `${work}/export.html`;
        await Deno.writeTextFile(exported, html);
        for (const size of [{ width: 1400, height: 900 }, { width: 390, height: 844 }]) {
          const reader = await browser.context.newPage();
          try {
            await reader.setViewportSize(size);
            await reader.goto(`file://${exported}`);
            await reader.waitForSelector("body[data-ready]");
            await reader.locator(".conv-item").first().waitFor();
            await reader.click("#conv-latest");
            const last = `u${String(MESSAGES).padStart(7, "0")}`;
            await reader.waitForSelector(`.conv-item[data-id="${last}"]`);
            await reader.waitForTimeout(500);
            const readings = await wheel(reader, size.width / 2, size.height * 2 / 3, STEPS);
            const lost = jumps(readings);
            assert(
              lost.length === 0,
              `export at ${size.width}: the place was lost on ${lost.length} steps: ${show(lost)}`,
            );
          } finally {
            await reader.close();
          }
        }
      });
      assert(watch.errors.length === 0, watch.errors.join("\n"));
    });
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});
