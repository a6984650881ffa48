/**
 * What a new reader meets, at 390, 768 and 1400 px, registered from
 * `tests/deno/viewer.test.ts`: a session opens on the Conversation tab with the raw pane
 * off (switching it on is remembered across a reload), the conversation column is a
 * readable width, the phone's pane tab says "Conversation" like the wide tab, and an
 * untitled session's 600-character first message is clamped to two lines in the list row,
 * the session header and the HTML export's heading, with the whole text one click away;
 * both open with a summary block (date, models, messages by role, tool calls, tokens, cost).
 * Screenshots go to `test-output/viewer/reader-*.png`.
 *
 * @module
 */
import type { Page } from "playwright-core";
import { openWithImported, screenshot, withViewerBrowser } from "./helpers.ts";
import { assert, assertEquals, crampedTreeRows, readDownload } from "./page.ts";
import { bushySession } from "./bushy_session.ts";

const WIDTHS = [390, 768, 1400];

/** About 600 characters of one sentence-long request, as pi users type them. */
const LONG_FIRST_MESSAGE = Array.from(
  { length: 12 },
  (_, i) => `step ${i + 1}: read the failing test, find the cause and fix it without a retry;`,
).join(" ");

function longTitleSession(): string {
  const at = (i: number) => new Date(Date.UTC(2026, 5, 1) + i * 1000).toISOString();
  const rows: unknown[] = [
    { type: "session", version: 4, id: "reader-0001", createdAt: at(0), cwd: "/reader" },
  ];
  for (let i = 1; i <= 8; i++) {
    const user = i % 2 === 1;
    rows.push({
      type: "message",
      id: `r000000${i}`,
      parentId: i === 1 ? null : `r000000${i - 1}`,
      timestamp: at(i),
      message: user
        ? { role: "user", content: i === 1 ? LONG_FIRST_MESSAGE : `question ${i}`, timestamp: i }
        : {
          role: "assistant",
          provider: "anthropic",
          model: "claude-sonnet-4-5",
          stopReason: "stop",
          content: [{ type: "text", text: `answer ${i} `.repeat(i === 8 ? 600 : 40) }],
          timestamp: i,
        },
    });
  }
  return rows.map((row) => JSON.stringify(row)).join("\n") + "\n";
}

/** Height of an element in lines of its own line height. */
async function lines(page: Page, selector: string): Promise<number> {
  // The list may be redrawn meanwhile (a detached node has no style): measure what is shown.
  const handle = await page.waitForFunction((selector) => {
    const node = document.querySelector(selector);
    if (!node?.isConnected) return null;
    const style = getComputedStyle(node);
    const lineHeight = parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.2;
    const value = node.getBoundingClientRect().height / lineHeight;
    return Number.isFinite(value) ? value : null;
  }, selector);
  return await handle.jsonValue() as number;
}

Deno.test({
  name: "viewer: a new reader's session opens on Conversation, raw off, long titles clamped",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const work = await Deno.makeTempDir({ prefix: "mu-viewer-reader-" });
  try {
    const file = `${work}/long-title.jsonl`;
    await Deno.writeTextFile(file, longTitleSession());
    await withViewerBrowser({ newReader: true }, 240_000, async (viewer, browser) => {
      const { page, watch } = await openWithImported(viewer, browser, [file]);
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: width < 900 ? 844 : 900 });
        await page.goto(`${viewer.url}#/`);
        await page.waitForSelector("#session-table .session-link");
        const rowLines = await lines(page, "#session-table .session-link");
        assert(rowLines <= 2.1, `${width} px: the list's title takes ${rowLines} lines`);
        assertEquals(
          await page.locator("#session-table .session-link").first().getAttribute("title"),
          LONG_FIRST_MESSAGE,
          "the whole message is the tooltip",
        );
        await screenshot(page, `reader-list-${width}`);

        await page.locator("#session-table .session-link").first().click();
        await page.waitForSelector("#conversation-view .conv-item");
        assertEquals(await page.locator("#context-view").count(), 0, `${width} px: no context`);
        const summary = await page.locator("#conv-summary").innerText();
        for (
          const fact of ["anthropic/claude-sonnet-4-5", "8 (4 user, 4 assistant)", "tool calls"]
        ) {
          assert(summary.includes(fact), `${width} px: summary lacks ${fact}: ${summary}`);
        }
        assertEquals(await page.locator(".raw-pane:visible").count(), 0, `${width} px: raw off`);
        const titleLines = await lines(page, "#session-title");
        assert(titleLines <= 2.1, `${width} px: the header's title takes ${titleLines} lines`);
        await page.click("#session-title-toggle");
        const openLines = await lines(page, "#session-title");
        assert(openLines > 2.5, `${width} px: "Show all" shows the whole title (${openLines})`);
        await page.click("#session-title-toggle");

        // "Jump to latest" on a last message taller than the screen: its header is shown,
        // below every sticky bar.
        // Seen once (its real height remembered), then back to the top, then the jump.
        await page.locator('.conv-item[data-id="r0000008"]').scrollIntoViewIfNeeded();
        await page.waitForTimeout(100);
        await page.evaluate(() => {
          for (
            const at of [document.scrollingElement, ...document.querySelectorAll("main, .pane")]
          ) {
            at?.scrollTo(0, 0);
          }
        });
        await page.click("#conv-latest");
        await page.waitForSelector('.conv-current[data-id="r0000008"]');
        const header = await page.evaluate(() => {
          const head = document.querySelector(".conv-current > :first-child")!;
          const bars = [...document.querySelectorAll<HTMLElement>(".topbar, .conv-toolbar")]
            .filter((bar) => ["sticky", "fixed"].includes(getComputedStyle(bar).position))
            .map((bar) => bar.getBoundingClientRect())
            .filter((box) => box.height > 0 && box.top <= 1);
          return {
            top: head.getBoundingClientRect().top,
            under: Math.max(0, ...bars.map((box) => box.bottom)),
          };
        });
        assert(
          header.top >= header.under - 1 && header.top < 844,
          `${width} px: after Jump to latest the last header is at ${header.top}, bars end at ${header.under}`,
        );
        await screenshot(page, `reader-latest-${width}`);
        await page.evaluate(() => {
          for (
            const at of [document.scrollingElement, ...document.querySelectorAll("main, .pane")]
          ) {
            at?.scrollTo(0, 0);
          }
        });
        if (width < 900) {
          const paneTabs = await page.locator(".pane-tabs .tab").allInnerTexts();
          assert(paneTabs.includes("Conversation") && !paneTabs.includes("Chat"), `${paneTabs}`);
          const lastTab = await page.locator(".pane-tabs .tab").last().boundingBox();
          assert(lastTab && lastTab.x + lastTab.width <= width, `${width} px: every pane tab fits`);
          assertEquals(await page.getAttribute("#pane-tab-conversation", "aria-selected"), "true");
        } else {
          // A readable measure: the conversation's text column is neither cramped nor a
          // full-width line.
          const column = await page.locator(".conv-item .conv-body").first().evaluate((n) =>
            n.getBoundingClientRect().width
          );
          assert(column >= 560 && column <= 900, `1400 px: conversation column ${column} px`);
        }
        await screenshot(page, `reader-session-${width}`);
      }

      // The find box in the dark scheme: a dark field, its placeholder at AA contrast.
      await page.emulateMedia({ colorScheme: "dark" });
      const find = await page.locator("#find-in-session").evaluate((input) => {
        const rgb = (value: string) => (value.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);
        const luminance = (value: string) => {
          const [r, g, b] = rgb(value).map((c) => {
            const s = c / 255;
            return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
          });
          return 0.2126 * r + 0.7152 * g + 0.0722 * b;
        };
        const background = getComputedStyle(input).backgroundColor;
        const placeholder = getComputedStyle(input, "::placeholder").color;
        const [hi, lo] = [luminance(placeholder), luminance(background)].sort((a, b) => b - a);
        return { background: luminance(background), ratio: (hi + 0.05) / (lo + 0.05) };
      });
      assert(find.background < 0.1, `dark find box background (luminance ${find.background})`);
      assert(find.ratio >= 4.5, `find box placeholder contrast ${find.ratio.toFixed(2)}:1`);
      await page.emulateMedia({ colorScheme: "light" });

      // The raw pane, once switched on, stays on after a reload.
      await page.setViewportSize({ width: 1400, height: 900 });
      await page.check("#show-raw");
      await page.waitForSelector(".raw-pane .raw-item");
      await page.reload();
      await page.waitForSelector(".raw-pane .raw-item");
      assert(await page.isChecked("#show-raw"), "remembered");

      // The HTML export's heading is clamped too.
      const html = await readDownload(page, () => page.click("#export-html"));
      await Deno.writeTextFile(`${work}/long-title.html`, html);
      const reader = await browser.context.newPage();
      for (const width of WIDTHS) {
        await reader.setViewportSize({ width, height: width < 900 ? 844 : 900 });
        await reader.goto(`file://${work}/long-title.html`);
        await reader.waitForSelector("body[data-ready] .conv-item");
        assert(
          (await reader.locator("#conv-summary").innerText()).includes("8 (4 user, 4 assistant)"),
          `${width} px: the export's summary`,
        );
        const headingLines = await lines(reader, "#session-title");
        assert(headingLines <= 2.1, `${width} px: the export's heading takes ${headingLines}`);
        await reader.click("#session-title-toggle");
        assert(await lines(reader, "#session-title") > 2.5, `${width} px: export "Show all"`);
        await screenshot(reader, `reader-export-${width}`);
      }
      assertEquals(watch.errors, [], "page errors");
    });
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});

Deno.test({
  name: "viewer: a tree with 95 nested branch points stays readable at 390/768/1400 px",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const work = await Deno.makeTempDir({ prefix: "mu-viewer-bushy-" });
  try {
    const file = `${work}/bushy.jsonl`;
    await Deno.writeTextFile(file, bushySession(95));
    await withViewerBrowser({ newReader: true }, 180_000, async (viewer, browser) => {
      const { page, watch } = await openWithImported(viewer, browser, [file]);
      await page.locator("#session-table .session-link").first().click();
      await page.waitForSelector(".tree-row[data-id]");
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: width < 900 ? 844 : 900 });
        if (width < 900) await page.click("#pane-tab-tree");
        // The deepest rows: the leaf's end of the tree.
        await page.locator(".tree").evaluate((tree) => tree.scrollTop = tree.scrollHeight);
        await page.waitForSelector('.tree-row[data-id="k0094"]');
        const { rows, cramped } = await crampedTreeRows(page);
        assert(rows > 5, `${width} px: the Tree tab shows rows (${rows})`);
        assertEquals(cramped, [], `${width} px: rows whose text is squeezed or cut off`);
        await screenshot(page, `reader-tree-${width}`);
      }
      assertEquals(watch.errors, [], "page errors");
    });
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});

Deno.test({
  name: "viewer: the HTML export of all branches switches between them",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const work = await Deno.makeTempDir({ prefix: "mu-viewer-all-branches-" });
  try {
    const file = `${work}/bushy3.jsonl`;
    await Deno.writeTextFile(file, bushySession(3));
    await withViewerBrowser({ newReader: true }, 180_000, async (viewer, browser) => {
      const { page, watch } = await openWithImported(viewer, browser, [file]);
      await page.locator("#session-table .session-link").first().click();
      await page.waitForSelector("#conversation-view .conv-item");
      const html = await readDownload(page, () => page.click("#export-html-all"));
      await Deno.writeTextFile(`${work}/all.html`, html);
      const reader = await browser.context.newPage();
      await reader.goto(`file://${work}/all.html`);
      await reader.waitForSelector("body[data-ready] .conv-item");
      const ids = () =>
        reader.locator(".conv-item").evaluateAll((nodes) =>
          nodes.map((n) => (n as HTMLElement).dataset.id)
        );
      // Four leaves: three abandoned answers and the kept tip, which the export opens on.
      assertEquals(await reader.locator("#branch-switcher option").count(), 4);
      assertEquals((await ids()).at(-1), "k0002");
      const abandoned = await reader.locator("#branch-switcher option", {
        hasText: "abandoned answer at level 1",
      }).getAttribute("value");
      await reader.selectOption("#branch-switcher", abandoned!);
      await reader.waitForFunction(() =>
        [...document.querySelectorAll<HTMLElement>(".conv-item")].at(-1)?.dataset.id === "d0001"
      );
      const shown = await ids();
      assert(!shown.includes("k0001") && !shown.includes("q0002"), `other branch: ${shown}`);
      assertEquals(await reader.textContent("#export-leaf"), "d0001");
      assert(
        (await reader.locator("#conv-summary").innerText()).includes("4 (2 user, 2 assistant)"),
        "the summary follows the branch",
      );
      await screenshot(reader, "reader-export-all-branches");
      assertEquals(watch.errors, [], "page errors");
    });
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});
