/**
 * A large session through `mu serve` (a real process) opens on its conversation first: the
 * first conversation page is asked of the server and answered before the session's entry
 * pages (which the tree and the raw pane wait for) are asked for at all, so the server
 * works for the page shown first. The page says only that more items follow until it knows
 * how many, "Jump to latest" still lands on the branch's last item, and the tree's rows,
 * answered by the server from the session it keeps open, need none of the entry pages (its
 * loading notice never counts them) and are readable at 390/768/1400 px.
 * Requests are counted in the order the browser issued them, not timed. Imported by
 * `tests/deno/viewer.test.ts`; runs alone too.
 */
import { SessionIndex } from "../../src/tree.ts";
import { conversationItems } from "../../web/conversation/model.ts";
import { serveGeneratedSession } from "./served_session.ts";
import { bounded, launchBrowser, screenshot, waitReady, watchPage } from "./helpers.ts";
import { assert, assertEquals, crampedTreeRows } from "./page.ts";

const WATCHDOG_MS = 180_000;
/** More entries than one page of the API (2,000): the full load takes several. */
const ENTRIES = 5000;

Deno.test({
  name:
    "viewer over mu serve: the first conversation page is answered before the entry pages are asked",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const { root, session, server } = await serveGeneratedSession(
    "mu-viewer-serve-order-",
    ENTRIES,
    11,
  );
  const id = session.header.id;
  const index = SessionIndex.build(session.entries, { source: id });
  const items = conversationItems(index.getPath(session.entries.at(-1)!.id));
  const browser = await launchBrowser({ newReader: true });
  const watchdog = setTimeout(() => void browser.close(), WATCHDOG_MS);
  try {
    const page = await browser.context.newPage();
    const watch = watchPage(page, server.origin);
    // The session's API requests in the order issued, and when each was answered.
    const sessionPath = `/api/sessions/${encodeURIComponent(id)}`;
    const log: string[] = [];
    const kind = (url: string) => {
      const { pathname, search } = new URL(url);
      if (pathname === `${sessionPath}/conversation`) return "conversation";
      if (pathname === sessionPath && search.includes("offset=")) return "entries";
      return undefined;
    };
    browser.context.on("request", (request) => {
      const what = kind(request.url());
      if (what) log.push(`ask ${what}`);
    });
    browser.context.on("requestfinished", (request) => {
      const what = kind(request.url());
      if (what) log.push(`answered ${what}`);
    });

    // Every text the tree's loading notice shows, as the page changes it.
    await page.addInitScript(() => {
      const seen: string[] = (globalThis as unknown as { treeLoading: string[] }).treeLoading = [];
      new MutationObserver(() => {
        const text = document.getElementById("tree-loading")?.textContent;
        if (text && seen.at(-1) !== text) seen.push(text);
      }).observe(document, { childList: true, subtree: true, characterData: true });
    });
    await page.goto(`${server.origin}/`);
    await waitReady(page);
    await page.locator("#session-table .session-link").first().click();
    await page.waitForSelector("#conversation-view .conv-item");
    await page.waitForSelector(".tree .tree-row.leaf");
    const firstEntries = log.indexOf("ask entries");
    assertEquals(log[0], "ask conversation", log.join(", "));
    assert(firstEntries > 0, `the tree's entry pages were asked: ${log.join(", ")}`);
    assert(
      log.slice(0, firstEntries).includes("answered conversation"),
      `the first conversation page was answered before any entry page was asked: ${log.join(", ")}`,
    );
    const count = await page.locator(".conv-count").textContent() ?? "";
    assert(count.endsWith("+ items"), `only that more items follow: ${count}`);

    // The tree did not wait for the entry pages: its notice never counted one.
    const notices = await page.evaluate(() =>
      (globalThis as unknown as { treeLoading: string[] }).treeLoading
    );
    assertEquals(notices.filter((text) => text.includes(" entries")), [], notices.join(" | "));

    // The tree renders and stays readable at each width (on a phone it is a tab).
    for (const width of [390, 768, 1400]) {
      await page.setViewportSize({ width, height: width < 900 ? 844 : 900 });
      if (width < 900) await page.click("#pane-tab-tree");
      await page.waitForSelector(".tree-row[data-id]");
      const { rows, cramped } = await crampedTreeRows(page);
      assert(rows > 5, `${width} px: the Tree tab shows rows (${rows})`);
      assertEquals(cramped, [], `${width} px: rows whose text is squeezed or cut off`);
      await screenshot(page, `41-serve-tree-${width}`);
    }
    await page.setViewportSize({ width: 1400, height: 900 });

    // The end of the branch is its real end, not the end of what the server had read.
    await page.click("#conv-latest");
    const last = items.at(-1)!.id;
    await page.waitForSelector(`#conversation-view .conv-item.conv-current[data-id="${last}"]`);
    const exact = `${items.length.toLocaleString("en-US")} items`;
    assertEquals(await page.locator(".conv-count").textContent(), exact, "the count once known");
    await screenshot(page, "40-serve-conversation-first");
    await page.waitForFunction(
      (total) => document.querySelector(".facts-block")?.textContent?.includes(total),
      ENTRIES.toLocaleString("en-US"),
    );
    assert(log.filter((line) => line === "ask entries").length >= 3, "the full load took pages");
    assertEquals(watch.errors, []);
  } finally {
    clearTimeout(watchdog);
    await browser.close();
    await bounded(server.stop(), 5000);
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
});
