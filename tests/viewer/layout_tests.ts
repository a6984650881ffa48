/**
 * Small screens and contrast (issue 15), registered from `tests/deno/viewer.test.ts`. At
 * 390 px (a phone) the list, session and usage pages scroll only vertically, the session's
 * panes are tabs and the list is cards; at 768 px (a tablet) nothing scrolls sideways
 * either; screenshots at 390, 768 and 1400 px go to `test-output/viewer/`, and with
 * `MU_WRITE_SCREENSHOTS=1` also to `docs/screenshots/` (committed, linked from the README;
 * CI leaves the tree clean). Every text/background pair on those pages meets WCAG AA in the
 * light and the dark scheme.
 *
 * @module
 */
import type { Page } from "playwright-core";
import { openWithImported, publishScreenshot, screenshot, withViewerBrowser } from "./helpers.ts";
import { assert, assertEquals, DEMO, openFromList } from "./page.ts";
import { auditContrast } from "./contrast.ts";
import { writeListSessions, writeRetiredCompaction } from "./sessions.ts";

const WIDTHS = [
  { width: 390, height: 844 },
  { width: 768, height: 1024 },
  { width: 1400, height: 900 },
];

/** A file that cannot be imported, with a long path-like name, for the unloadable section. */
async function writeTorn(dir: string): Promise<string> {
  const path = `${dir}/${"a-very-long-session-file-name-".repeat(4)}torn.jsonl`;
  await Deno.writeTextFile(
    path,
    '{"type":"session","version":4,"id":"torn-1","cwd":"/x"}\n{"type":',
  );
  return path;
}

/** Screenshot to test-output, and to docs/screenshots when asked. */
async function shoot(page: Page, name: string): Promise<void> {
  await page.evaluate(() => document.querySelectorAll(".toast").forEach((t) => t.remove()));
  await publishScreenshot(await screenshot(page, name), `screenshots/${name}.png`);
}

/** Fail when the document or the app's main area scrolls sideways; names what sticks out. */
async function assertNoSideScroll(page: Page, where: string): Promise<void> {
  const report = await page.evaluate(() => {
    const doc = document.scrollingElement!;
    const main = document.getElementById("app")!;
    const wide = [...document.body.querySelectorAll("*")].filter((el) => {
      const box = el.getBoundingClientRect();
      return box.width > 0 && box.right > doc.clientWidth + 1 && !el.closest(".tree, pre");
    }).slice(0, 5).map((el) => `${el.tagName}.${el.className}`);
    return {
      doc: [doc.scrollWidth, doc.clientWidth],
      main: [main.scrollWidth, main.clientWidth],
      wide,
    };
  });
  assert(report.doc[0] <= report.doc[1], `${where}: document ${report.doc} ${report.wide}`);
  assert(report.main[0] <= report.main[1], `${where}: main ${report.main} ${report.wide}`);
}

Deno.test({
  name: "viewer: 390/768/1400 px layouts without side scrolling; WCAG AA contrast, both schemes",
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  const work = await Deno.makeTempDir({ prefix: "mu-viewer-layout-" });
  try {
    const files = [
      DEMO.realistic,
      DEMO.boundary,
      DEMO.interrupted,
      DEMO.v1,
      ...await writeListSessions(work),
      await writeRetiredCompaction(work),
      await writeTorn(work),
    ];
    await withViewerBrowser({}, 300_000, async (viewer, browser) => {
      const { page, watch } = await openWithImported(viewer, browser, files);
      await page.waitForFunction(() => document.querySelectorAll("tr[data-id]").length === 8);
      await page.waitForSelector("#unloadable"); // its long path and reason must wrap too

      for (const size of WIDTHS) {
        await t.step(`${size.width} px: list, session and usage pages`, async () => {
          await page.setViewportSize(size);
          const narrow = size.width < 900;
          await page.goto(`${viewer.url}#/`);
          await page.waitForSelector("#session-table tr[data-id]");
          if (narrow) await assertNoSideScroll(page, `list at ${size.width}`);
          if (size.width === 390) {
            // Cards: no column headings, each session its own box.
            assert(!(await page.locator("#session-table thead").isVisible()), "headings hidden");
          }
          await shoot(page, `list-${size.width}`);

          await openFromList(page, viewer.url, "Fix token refresh race");
          await page.waitForSelector(".tree-row[data-id]", { state: "attached" });
          if (narrow) {
            await assertNoSideScroll(page, `session at ${size.width}`);
            // The panes are tabs: context first; the tree and the raw entries a tap away.
            assert(await page.locator(".context-pane").isVisible(), "context shown");
            assert(!(await page.locator(".tree-pane").isVisible()), "tree is a tab");
            assert(!(await page.locator(".raw-pane").isVisible()), "raw is a tab");
            await page.click("#pane-tab-tree");
            await page.locator(".tree-row[data-id]").first().waitFor();
            assert(!(await page.locator(".context-pane").isVisible()), "context hidden");
            await assertNoSideScroll(page, `tree at ${size.width}`);
            await page.locator('.tree-row[data-id="a1000013"]').click();
            await page.waitForSelector('#context-view[data-leaf="a1000013"] .context-item');
            assert(await page.locator(".context-pane").isVisible(), "a tree choice shows context");
            await page.click("#pane-tab-raw");
            await page.locator(".raw-item").first().waitFor();
            await assertNoSideScroll(page, `raw at ${size.width}`);
            // The conversation is a tab too (the page's own tabs are hidden here).
            await page.click("#pane-tab-conversation");
            await page.locator("#conversation .conv-item, #conversation .conv-marker").first()
              .waitFor();
            assert(!(await page.locator(".raw-pane").isVisible()), "raw hidden in the chat");
            await assertNoSideScroll(page, `conversation at ${size.width}`);
            await page.click("#pane-tab-context");
            await page.waitForSelector("#context-view .context-item");
          } else {
            assert(!(await page.locator(".pane-tabs").isVisible()), "no pane tabs when wide");
            assert(await page.locator(".tree-pane").isVisible(), "tree beside the context");
          }
          await shoot(page, `session-${size.width}`);
          await page.getByRole("tab", { name: "Conversation" }).click(); // the visible one
          await page.locator("#conversation .conv-item").first().waitFor();
          await shoot(page, `conversation-${size.width}`);

          await page.click(narrow ? "#pane-tab-usage" : "text=Usage & cost");
          await page.waitForSelector("svg.chart rect");
          if (narrow) await assertNoSideScroll(page, `usage at ${size.width}`);
          await shoot(page, `usage-${size.width}`);

          if (narrow) {
            // A search hit opens on the message in the conversation (not the raw JSON).
            await page.goto(`${viewer.url}#/`);
            await page.fill("#session-search", "mutex");
            await page.press("#session-search", "Enter");
            await page.locator(".search-hit-link").first().click();
            await page.locator(".conv-item.conv-hit").waitFor();
            assert(await page.locator(".conv-item.conv-hit").isVisible(), "the hit is shown");
            assert(!(await page.locator(".raw-pane").isVisible()), "not the raw entries");
            await assertNoSideScroll(page, `search hit at ${size.width}`);
          }
        });
      }

      for (const scheme of ["light", "dark"] as const) {
        await t.step(`WCAG AA contrast, ${scheme} scheme`, async () => {
          await page.setViewportSize({ width: 1400, height: 900 });
          await page.emulateMedia({ colorScheme: scheme });
          // One report per distinct element kind and colour pair, so a failure reads short.
          const failures = new Map<string, unknown>();
          const audit = async (where: string) => {
            for (const failure of await page.evaluate(auditContrast)) {
              const key = `${failure.where}|${failure.color}|${failure.background}`;
              if (!failures.has(key)) failures.set(key, { page: where, ...failure });
            }
          };
          await page.goto(`${viewer.url}#/`);
          await page.waitForSelector("#session-table tr[data-id]");
          await page.fill("#session-search", "retry");
          await page.press("#session-search", "Enter");
          await page.locator(".search-hit mark").first().waitFor();
          await audit("list");
          for (const title of ["Fix token refresh race", "Stripe", "Regenerate", "first: why"]) {
            await openFromList(page, viewer.url, title);
            const older = page.locator("#older-agent > summary");
            if (await older.count()) {
              await older.click();
              await page.locator(".older-agent-pane .context-item").first().waitFor();
            }
            await page.locator(".raw-item").first().waitFor();
            await audit(`session ${title}`);
            await page.getByRole("tab", { name: "Conversation" }).click();
            await page.locator("#conversation .conv-item").first().waitFor();
            await audit(`conversation ${title}`);
            await page.getByRole("tab", { name: "Context", exact: true }).click();
            await page.locator("#context-view").waitFor();
            if (title.startsWith("Fix")) {
              await page.getByRole("tab", { name: "Usage & cost" }).click();
              await page.waitForSelector("svg.chart rect");
              await audit("usage");
            }
          }
          await page.setViewportSize({ width: 390, height: 844 });
          await page.goto(`${viewer.url}#/`);
          await page.waitForSelector("#session-table tr[data-id]");
          await audit("list cards");
          assertEquals([...failures.values()], [], `${scheme}: pairs below AA`);
        });
      }
      assertEquals(watch.errors, [], "page errors");
    });
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});
