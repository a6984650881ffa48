/**
 * Viewer text handling (issue 11, finding 14), registered from `tests/deno/viewer.test.ts`:
 * bidi controls in names, tree rows and messages are shown as markers inside an isolating
 * `<bdi>` (text like `invoice‮gnp.exe` cannot pass for another file name), and a 1 MB
 * message is laid out a fold at a time instead of all at once. Counts what is in the DOM;
 * nothing is timed.
 *
 * @module
 */
import { openWithImported, screenshot, withViewerBrowser } from "./helpers.ts";
import { assert, assertEquals, openFromList } from "./page.ts";
import "./fold_tests.ts"; // long blocks folded behind "Show all", no nested scrollers

const RLO = "\u202e";
const NAME = `invoice${RLO}gnp.exe`;
const HUGE = 1_000_000;

function hostileTextSession(): string {
  const at = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
  const records = [
    { type: "session", version: 4, id: "bidi-1", createdAt: at(0), cwd: "/work" },
    {
      type: "message",
      id: "t0000001",
      parentId: null,
      timestamp: at(1),
      message: {
        role: "user",
        content: `open ${NAME} ${"\u05e9\u05dc\u05d5\u05dd"} now`,
        timestamp: 1,
      },
    },
    {
      type: "message",
      id: "t0000002",
      parentId: "t0000001",
      timestamp: at(2),
      message: {
        role: "assistant",
        content: [{ type: "text", text: `${"long line ".repeat(HUGE / 10)}` }],
        timestamp: 2,
      },
    },
    { type: "session_info", id: "t0000003", parentId: "t0000002", timestamp: at(3), name: NAME },
  ];
  return records.map((record) => JSON.stringify(record)).join("\n") + "\n";
}

Deno.test({
  name: "viewer: bidi controls are shown and isolated; a 1 MB message is folded",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const work = await Deno.makeTempDir({ prefix: "mu-viewer-text-" });
  try {
    const file = `${work}/bidi.jsonl`;
    await Deno.writeTextFile(file, hostileTextSession());
    await withViewerBrowser({}, 180_000, async (viewer, browser) => {
      const { page, watch } = await openWithImported(viewer, browser, [file]);

      const rawControls = (selector: string) =>
        page.locator(selector).evaluateAll((nodes) =>
          nodes.filter((node) => (node.textContent ?? "").includes("\u202e")).length
        );
      // The list: the name is isolated and its control shown, never acting.
      const link = page.locator("#session-table .session-link").first();
      assertEquals(await link.locator("bdi .bidi-control").count(), 1, "marker in the list");
      assert((await link.innerText()).includes("⟨RLO⟩"), await link.innerText());
      assertEquals(await rawControls("#session-table"), 0, "raw RLO in the list");

      await openFromList(page, viewer.url, "invoice");
      await page.waitForSelector(".tree-row[data-id]");
      assertEquals(await rawControls(".tree"), 0, "raw RLO in the tree");
      assertEquals(await rawControls("#session-title"), 0, "raw RLO in the title");
      assert(await page.locator(".tree bdi .bidi-control").count() >= 1, "marker in the tree");
      assert(await page.locator(".context-pane bdi").count() >= 1, "Hebrew text isolated");

      // The huge reply: "Show all" lays out one fold, more on demand.
      const more = page.locator("button.link-button", { hasText: "Show all" }).first();
      await more.click();
      const next = page.locator("button.fold-more").first();
      await next.waitFor();
      const pre = page.locator(".context-pane pre.text").filter({ hasText: "long line" }).first();
      assertEquals(await pre.evaluate((node) => node.textContent!.length), 20_000);
      await next.click();
      assertEquals(await pre.evaluate((node) => node.textContent!.length), 40_000);
      assert((await next.innerText()).includes("960,000 remaining"), await next.innerText());
      // The page still answers: another tree row is clickable and switches the leaf.
      await page.locator('.tree-row[data-id="t0000001"]').click();
      await page.waitForFunction(() =>
        document.getElementById("current-leaf")?.textContent === "t0000001"
      );
      await screenshot(page, "bidi-and-fold");
      assertEquals(watch.errors, [], "page errors");
    });
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});
