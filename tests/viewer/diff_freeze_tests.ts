/**
 * One large edit must not freeze the page: a session whose edit replaces 50,000 characters
 * with 50,000 others (every line changed, the worst case of a line diff) is opened on the
 * Conversation tab and exported as HTML, and a long-task observer (installed before the
 * page's code) sees no main-thread task of 200 ms or more in either. The edit is shown as a
 * plain before/after pair. Registered from `tests/deno/viewer.test.ts`.
 *
 * The 200 ms is a behaviour bound on the browser, not a speed target: unbounded, the same
 * diff blocks the tab for tens of seconds.
 *
 * @module
 */
import type { Page } from "playwright-core";
import { openWithImported, screenshot, withViewerBrowser } from "./helpers.ts";
import { assert, assertEquals, openFromList, readDownload } from "./page.ts";
import { CONV, conversationSession } from "./conversation_fixture.ts";

/** Main-thread task length that counts as a freeze. */
const FREEZE_MS = 200;

const LONG_TASKS = `
  globalThis.__longTasks = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) globalThis.__longTasks.push(Math.round(entry.duration));
  }).observe({ type: "longtask" });
`;

/** Short distinct lines (`prefix` + a number) adding up to about `chars` characters. */
function lines(prefix: string, chars: number): string {
  const out: string[] = [];
  let size = 0;
  for (let i = 0; size < chars; i++) {
    const line = `${prefix}${i.toString(36)}`;
    out.push(line);
    size += line.length + 1;
  }
  return out.join("\n");
}

/** A session with one edit that rewrites 100,000 characters. */
export function bigEditSession(): string {
  const at = (i: number) => new Date(Date.UTC(2026, 4, 1) + i * 1000).toISOString();
  const rows = [
    { type: "session", version: 4, id: "big-edit-0001", createdAt: at(0), cwd: "/big" },
    {
      type: "message",
      id: "b0000001",
      parentId: null,
      timestamp: at(1),
      message: { role: "user", content: "rewrite the table", timestamp: 1 },
    },
    {
      type: "message",
      id: "b0000002",
      parentId: "b0000001",
      timestamp: at(2),
      message: {
        role: "assistant",
        stopReason: "toolUse",
        timestamp: 2,
        content: [{
          type: "toolCall",
          id: "call-big",
          name: "edit",
          arguments: {
            path: "table.txt",
            oldText: lines("o", 50_000),
            newText: lines("n", 50_000),
          },
        }],
      },
    },
    {
      type: "message",
      id: "b0000003",
      parentId: "b0000002",
      timestamp: at(3),
      message: {
        role: "toolResult",
        toolCallId: "call-big",
        toolName: "edit",
        content: [{ type: "text", text: "Edited table.txt" }],
        isError: false,
        timestamp: 3,
      },
    },
  ];
  return rows.map((row) => JSON.stringify(row)).join("\n") + "\n";
}

async function longTasks(page: Page): Promise<number[]> {
  await page.waitForTimeout(300); // let the observer deliver the last entries
  return await page.evaluate(() =>
    (globalThis as unknown as { __longTasks: number[] }).__longTasks.splice(0)
  );
}

Deno.test({
  name: "viewer: a 100k-character edit shows before/after without a main-thread task >= 200 ms",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const work = await Deno.makeTempDir({ prefix: "mu-viewer-big-edit-" });
  try {
    const file = `${work}/big-edit.jsonl`;
    await Deno.writeTextFile(file, bigEditSession());
    const small = `${work}/small.jsonl`;
    await Deno.writeTextFile(small, conversationSession());
    await withViewerBrowser({}, 180_000, async (viewer, browser) => {
      const { page, watch } = await openWithImported(viewer, browser, [small, file]);
      // The conversation's code (markdown, grammars) loads once, on a small session; what is
      // measured below is the big edit alone.
      await openFromList(page, viewer.url, CONV.title);
      await page.getByRole("tab", { name: "Conversation" }).click();
      await page.waitForSelector("#conversation-view .conv-item");
      await page.goto(`${viewer.url}#/`);
      await page.waitForSelector("#session-table .session-link");
      await page.evaluate(LONG_TASKS);
      await page.locator("#session-table .session-link", { hasText: "rewrite the table" }).click();
      await page.waitForSelector("#conversation-view .tool-edit .diff-side-add");
      const viewerTasks = await longTasks(page);
      console.log(`big edit, viewer: long tasks ${JSON.stringify(viewerTasks)} ms`);
      assert(
        viewerTasks.every((ms) => ms < FREEZE_MS),
        `viewer main-thread tasks ${viewerTasks}`,
      );
      assertEquals(await page.locator(".tool-edit .diff-line").count(), 0, "no line diff");
      await screenshot(page, "big-edit");

      const html = await readDownload(page, () => page.click("#export-html"));
      const exported = `${work}/big-edit.html`;
      await Deno.writeTextFile(exported, html);
      const reader = await browser.context.newPage();
      await reader.addInitScript(LONG_TASKS);
      await reader.goto(`file://${exported}`);
      await reader.waitForSelector("body[data-ready] .tool-edit .diff-side-add");
      const exportTasks = await longTasks(reader);
      console.log(`big edit, export: long tasks ${JSON.stringify(exportTasks)} ms`);
      assert(
        exportTasks.every((ms) => ms < FREEZE_MS),
        `export main-thread tasks ${exportTasks}`,
      );
      assertEquals(watch.errors, [], "page errors");
    });
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});
