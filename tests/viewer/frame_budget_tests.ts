/**
 * How much text each frame adds to the context and raw panes (issue 15: "a 100k-entry
 * session opens and scrolls with no main-thread task over 50 ms"). The traces showed the
 * style, layout and paint of a frame growing with the text it adds: a context page of 15
 * items went in at once (40-51 ms of CPU when scrolling, 56-70 ms for the open's first
 * layout). The panes add a page a batch per frame instead ({@link FRAME_CHARS}); this counts
 * the characters of the items each rendered frame added, on open and scrolling both ways.
 * Registered from `tests/viewer/window_tests.ts`. Nothing is timed.
 *
 * @module
 */
import { bounded, launchBrowser, serveFreshViewer, waitReady, watchPage } from "./helpers.ts";
import { assert, assertEquals } from "./page.ts";
import { FRAME_CHARS } from "../../web/paged_window.ts";
import { wordySession } from "./sessions.ts";

/**
 * Installed before the viewer's code: groups the context and raw items added to the page
 * by the frame that renders them. A counter's first-registered animation-frame callback
 * makes it even (changes made in the frame's callbacks are rendered in that frame); a
 * message posted from there makes it odd once the frame is rendered (changes made by later
 * tasks are rendered in the next frame).
 */
const FRAME_LOG = `
  const log = globalThis.__frameLog = { value: 1, groups: {} };
  const channel = new MessageChannel();
  channel.port1.onmessage = () => log.value++;
  const tick = () => {
    requestAnimationFrame(tick); // registered first, so it runs first in every frame
    log.value++;
    channel.port2.postMessage(0);
  };
  requestAnimationFrame(tick);
  new MutationObserver((records) => {
    const frame = Math.floor((log.value + 1) / 2);
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (!(node instanceof Element)) continue;
        const sel = ".context-item, .raw-item";
        for (const item of node.matches(sel) ? [node] : node.querySelectorAll(sel)) {
          const kind = item.classList.contains("raw-item") ? "raw" : "context";
          const group = log.groups[kind + " " + frame] ??= { kind, frame, items: 0, chars: 0, max: 0 };
          const chars = item.textContent.length;
          group.items++;
          group.chars += chars;
          group.max = Math.max(group.max, chars);
        }
      }
    }
  }).observe(document, { childList: true, subtree: true });
`;

interface Group {
  kind: "context" | "raw";
  frame: number;
  items: number;
  chars: number;
  /** The longest item's characters. */
  max: number;
}

Deno.test({
  name: "viewer: the context and raw panes add a bounded amount of text per frame",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const work = await Deno.makeTempDir({ prefix: "mu-viewer-frames-" });
  const viewer = await serveFreshViewer();
  const browser = await launchBrowser({});
  const watchdog = setTimeout(() => void browser.close(), 180_000);
  try {
    const file = `${work}/wordy.jsonl`;
    await Deno.writeTextFile(file, wordySession(240));
    const page = await browser.context.newPage();
    const watch = watchPage(page, viewer.url.replace(/\/$/, ""));
    await page.addInitScript(FRAME_LOG);
    await page.goto(viewer.url);
    await waitReady(page);
    await page.setInputFiles("#file-input", [file]);
    await page.waitForSelector("#session-table .session-link");
    await page.locator("#session-table .session-link").first().click();
    await page.waitForSelector(".session-page #context-view .raw-item");
    const groups = () =>
      page.evaluate(() =>
        Object.values(
          (globalThis as unknown as { __frameLog: { groups: object } }).__frameLog
            .groups,
        ) as Group[]
      );
    const open = await groups();
    // Down far enough that the window drops pages at the top, then back up to the start.
    const pane = page.locator(".context-pane");
    for (let i = 0; i < 12; i++) {
      await pane.evaluate((n) => n.scrollTop = n.scrollHeight);
      await page.waitForTimeout(150);
    }
    const first = () =>
      page.locator(".context-pane .context-item").first().getAttribute("data-source");
    assert((await first()) !== "w0000001", "the window moved past the first entry");
    for (let i = 0; i < 40 && (await first()) !== "w0000001"; i++) {
      await pane.evaluate((n) => n.scrollTop = 0);
      await page.waitForTimeout(150);
    }
    assertEquals(await first(), "w0000001", "scrolled back to the first entry");
    const all = await groups();
    const items = (kind: string, list: Group[]) =>
      list.filter((g) => g.kind === kind).reduce((n, g) => n + g.items, 0);
    // The first context page (15 items of about 2,000 characters) is in, over several frames.
    assert(items("context", open) >= 15, `the first page is in (${items("context", open)})`);
    assert(items("context", all) > 200, `scrolling added pages both ways`);
    assert(items("raw", all) >= 25, `the raw pane's first page is in`);
    for (const group of all) {
      // A batch closes at the first item that brings it to the budget.
      assert(
        group.items === 1 || group.chars - group.max < FRAME_CHARS,
        `one frame added ${group.items} ${group.kind} items, ${group.chars} characters ` +
          `(budget ${FRAME_CHARS} and one item)`,
      );
    }
    assertEquals(watch.errors, [], "page errors");
  } finally {
    clearTimeout(watchdog);
    await browser.close();
    await bounded(viewer.close(), 5000);
    await Deno.remove(work, { recursive: true });
  }
});
