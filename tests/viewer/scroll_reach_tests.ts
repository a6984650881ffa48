/**
 * Scrolling down the context pane keeps loading pages while the pane still adds a page a
 * batch per frame (web/paged_window.ts): in 2 of 6 traced runs at 100k entries the window
 * stayed at its first 90 rows. Scrolls as `bench/browser/trace_scroll.ts` does (to the bottom,
 * then on as soon as the rows at either end change: the page's later batches are still to
 * come) right after the open, then to the bottom every frame until the last entry is in.
 * Registered from `tests/viewer/window_tests.ts`. Counts rows and frames, times nothing.
 *
 * @module
 */
import { openWithImported, withViewerBrowser } from "./helpers.ts";
import { assert, assertEquals } from "./page.ts";
import { wordySession } from "./sessions.ts";

/** Entries in the session; messages of about 840 characters (a context page is 2-3 batches). */
const ENTRIES = 2000;

Deno.test({
  name: "viewer: scrolling down the context pane reaches the last entry while pages arrive",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const work = await Deno.makeTempDir({ prefix: "mu-viewer-reach-" });
  try {
    const file = `${work}/wordy.jsonl`;
    await Deno.writeTextFile(file, wordySession(ENTRIES, 30));
    await withViewerBrowser({}, 240_000, async (viewer, browser) => {
      const { page, watch } = await openWithImported(viewer, browser, [file]);
      await page.locator("#session-table .session-link").first().click();
      await page.waitForSelector(".session-page #context-view .context-item");
      const numbers = () =>
        page.locator(".context-pane .context-item").evaluateAll((nodes) =>
          nodes.map((n) => Number((n as HTMLElement).dataset.source!.slice(1)))
        );
      // The trace's steps, from the open on (the first page's batches still coming in).
      const steps = await page.evaluate(async () => {
        const pane = document.querySelector<HTMLElement>(".context-pane")!;
        const frame = () => new Promise((r) => requestAnimationFrame(r));
        const ends = () => {
          const items = pane.querySelectorAll(".context-item");
          return [items.length, items[0], items[items.length - 1]];
        };
        let changed = 0;
        for (let step = 0; step < 20; step++) {
          const before = ends();
          pane.scrollTop = pane.scrollHeight;
          // Up to 120 frames for a change at either end.
          for (let f = 0; f < 120 && ends().every((v, i) => v === before[i]); f++) await frame();
          if (!ends().every((v, i) => v === before[i])) changed++;
          await frame();
          await frame();
        }
        return changed;
      });
      const afterSteps = await numbers();
      assert(
        afterSteps.at(-1)! > 90,
        `20 steps down load past the first 90 rows (${steps} steps changed the rows; ` +
          `rows ${afterSteps[0]}..${afterSteps.at(-1)})`,
      );
      // Then to the bottom every frame: every page is loaded in turn, to the last entry.
      const frames = await page.evaluate(async (last) => {
        const pane = document.querySelector<HTMLElement>(".context-pane")!;
        const lastRow = () =>
          pane.querySelector<HTMLElement>(".context-item:last-child")?.dataset.source;
        let f = 0;
        for (; f < 6000 && lastRow() !== last; f++) {
          pane.scrollTop = pane.scrollHeight;
          await new Promise((r) => requestAnimationFrame(r));
        }
        return f;
      }, `w${String(ENTRIES).padStart(7, "0")}`);
      const rows = await numbers();
      assertEquals(rows.at(-1), ENTRIES, `the last entry is reached (after ${frames} frames)`);
      assert(rows.length <= 90, `the pane holds a window: ${rows.length} rows`);
      assert(rows.every((n, i) => i === 0 || n === rows[i - 1] + 1), "the rows are contiguous");
      assertEquals(watch.errors, [], "page errors");
    });
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});
