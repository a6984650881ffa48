/**
 * Scrolling up after "Jump to latest" keeps the reader's place: each 100 px wheel step up
 * moves the message under the pointer down by about 100 px (never a jump of a screen or
 * to the start), while earlier pages are loaded above it. At 390, 768 and 1400 px in the
 * viewer, and in the HTML export (the same list, scrolled by the page). Registered from
 * `tests/viewer/window_tests.ts`. Measures positions, times nothing.
 *
 * @module
 */
import type { Page } from "playwright-core";
import { openWithImported, screenshot, withViewerBrowser } from "./helpers.ts";
import { assert, readDownload } from "./page.ts";

/** Messages in the session: several conversation pages, more than the window holds. */
const MESSAGES = 554;
/** Wheel steps up after the jump, and the pixels of each. */
const STEPS = 40;
const STEP_PX = 100;
/** How far the message under the pointer may move beyond the step (rounding, sticky bars). */
const SLACK_PX = 40;

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

/** One wheel step's reading: the message under the pointer before and after. */
interface StepReading {
  step: number;
  before: number;
  after: number;
  /** How far the message that was under the pointer moved down (NaN: it left the page). */
  moved: number;
}

/**
 * Wheel up `STEPS` times over the point (x, y) of the page, waiting for the scroll and any
 * page load to settle after each, and read which message is under the point and how far
 * the one that was there moved.
 */
async function wheelUp(page: Page, x: number, y: number): Promise<StepReading[]> {
  const under = () =>
    page.evaluate(([x, y]) => {
      // The point may fall in the gap between two messages: the nearest one around it.
      const item = [0, -12, 12].map((dy) =>
        document.elementFromPoint(x, y + dy)?.closest<HTMLElement>(".conv-item")
      ).find((found) => found);
      if (!item) return null;
      return { id: item.dataset.id!, top: item.getBoundingClientRect().top };
    }, [x, y]);
  const topOf = (id: string) =>
    page.evaluate((id) => {
      const item = document.querySelector<HTMLElement>(`.conv-item[data-id="${id}"]`);
      return item ? item.getBoundingClientRect().top : null;
    }, id);
  const readings: StepReading[] = [];
  await page.mouse.move(x, y);
  for (let step = 0; step < STEPS; step++) {
    const before = await under();
    assert(before, `a message under the pointer before step ${step}`);
    await page.mouse.wheel(0, -STEP_PX);
    // A slow reader: the scroll arrives (on a busy machine a wheel event can wait for the
    // main thread), then it and whatever page it asked for settle.
    for (let i = 0; i < 40 && (await topOf(before.id)) === before.top; i++) {
      await page.waitForTimeout(50);
    }
    let last = await topOf(before.id);
    for (let i = 0; i < 20; i++) {
      await page.waitForTimeout(150);
      const now = await topOf(before.id);
      if (now === last) break;
      last = now;
    }
    const after = await under();
    const top = await topOf(before.id);
    readings.push({
      step,
      before: Number(before.id.slice(1)),
      after: after ? Number(after.id.slice(1)) : NaN,
      moved: top === null ? NaN : top - before.top,
    });
  }
  return readings;
}

/**
 * The steps on which the place was lost: the message under the pointer moved other than
 * the wheel did. A wheel event the busy browser delivered late (the step moved nothing)
 * moves the next step twice as far.
 */
function jumps(readings: StepReading[]): StepReading[] {
  let owed = 0;
  return readings.filter((r) => {
    const expected = STEP_PX * (1 + owed);
    if (Math.abs(r.moved) <= 1 && owed < 2) {
      owed++;
      return false;
    }
    owed = 0;
    return !(Math.abs(r.moved - expected) <= SLACK_PX);
  });
}

const show = (readings: StepReading[]) =>
  readings.map((r) => `${r.step}: ${r.before}->${r.after} moved ${Math.round(r.moved)}`)
    .join("; ");

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
          await page.setViewportSize(size);
          await page.goto(`${viewer.url}#/`);
          await page.goto(new URL(`${link}?tab=conversation`, viewer.url).href);
          await page.locator("#conversation .conv-item").first().waitFor();
          if (size.width < 900) await page.click("#pane-tab-conversation");
          await page.click("#conv-latest");
          const last = `u${String(MESSAGES).padStart(7, "0")}`;
          await page.waitForSelector(`.conv-item[data-id="${last}"]`);
          await page.waitForTimeout(500);
          const box = (await page.locator("#conversation").boundingBox())!;
          const x = box.x + box.width / 2;
          const y = Math.min(box.y + box.height, size.height) - size.height / 3;
          const readings = await wheelUp(page, x, y);
          await screenshot(page, `scroll-anchor-${size.width}`);
          const lost = jumps(readings);
          assert(lost.length === 0, `the place was lost on ${lost.length} steps: ${show(lost)}`);
          const end = readings.at(-1)!;
          assert(
            end.after > MESSAGES - 40,
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
            const readings = await wheelUp(reader, size.width / 2, size.height * 2 / 3);
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
