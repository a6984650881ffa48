/**
 * Viewer search (issue 14), registered from `tests/deno/viewer.test.ts`: a term that appears
 * only on an abandoned branch is found from the list's search box, the hit's snippet marks
 * the term, and opening the hit lands on that branch (the entry is the leaf) with the entry
 * scrolled into view and highlighted; find in session steps through matches with next /
 * previous, switching branch as needed.
 *
 * @module
 */
import { openWithImported, screenshot, withViewerBrowser } from "./helpers.ts";
import { assert, assertEquals } from "./page.ts";

const TERM = "zanzibarquux";
/** The abandoned branch's entry holding the term. */
const HIT = "b0000003";
/** The newest leaf (the session opens here by default). */
const TIP = "b0000005";

/** root → reply → (abandoned: the term) | (newer: main line → reply); padded to scroll. */
function branchedSession(): string {
  const at = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
  const message = (id: string, parentId: string | null, n: number, role: string, text: string) => ({
    type: "message",
    id,
    parentId,
    timestamp: at(n),
    message: role === "user"
      ? { role, content: text, timestamp: n }
      : { role, content: [{ type: "text", text }], timestamp: n },
  });
  const records: unknown[] = [
    { type: "session", version: 4, id: "search-branch-1", timestamp: at(0), cwd: "/work" },
  ];
  // A long shared prefix, so the hit sits below the fold until it is scrolled to.
  let parent: string | null = null;
  for (let i = 0; i < 40; i++) {
    const id = `p${String(i).padStart(7, "0")}`;
    records.push(message(id, parent, i + 1, i % 2 ? "assistant" : "user", `step ${i} `.repeat(30)));
    parent = id;
  }
  records.push(
    message("b0000001", parent, 100, "user", "which cache should we use"),
    message("b0000002", "b0000001", 101, "assistant", "let me check"),
    message(HIT, "b0000002", 102, "user", `try the ${TERM} cache instead`),
    message("b0000004", "b0000002", 103, "user", "keep the main line"),
    message(TIP, "b0000004", 104, "assistant", "done on the main line"),
  );
  return records.map((record) => JSON.stringify(record)).join("\n") + "\n";
}

Deno.test({
  name: "viewer: search finds a term on an abandoned branch; the hit opens on that branch",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const work = await Deno.makeTempDir({ prefix: "mu-viewer-search-" });
  try {
    const file = `${work}/branched.jsonl`;
    await Deno.writeTextFile(file, branchedSession());
    await withViewerBrowser({}, 180_000, async (viewer, browser) => {
      const { page, watch } = await openWithImported(viewer, browser, [file]);

      // The list filter knows only titles; the search box finds message text.
      await page.fill("#session-search", TERM);
      await page.press("#session-search", "Enter");
      const hit = page.locator(".search-group .search-hit-link").first();
      await hit.waitFor();
      assertEquals(await page.locator(".search-group").count(), 1, "one session");
      assertEquals(await page.locator(".search-hit").count(), 1, "one hit");
      assertEquals(await page.locator(".search-hit mark").allTextContents(), [TERM], "marked");
      assert((await hit.innerText()).includes(`try the ${TERM} cache`), await hit.innerText());
      assertEquals(await page.getAttribute(".search-hit", "data-entry"), HIT);

      // A query with no match says so.
      await page.fill("#session-search", "nothing-like-this-anywhere");
      await page.press("#session-search", "Enter");
      await page.waitForSelector("#search-empty");
      await page.fill("#session-search", TERM);
      await page.press("#session-search", "Enter");
      await hit.waitFor();

      await hit.click();
      await page.waitForSelector(`#context-view[data-leaf="${HIT}"]`);
      assertEquals(await page.textContent("#current-leaf"), HIT, "the hit is the leaf");
      const entry = page.locator(`.raw-item.highlight[data-id="${HIT}"]`);
      await entry.waitFor();
      assertEquals(await page.locator(".raw-item.highlight").count(), 1, "one highlight");
      assert(await entry.isVisible(), "highlighted entry visible");
      const inView = await entry.evaluate((node) => {
        const box = node.getBoundingClientRect();
        return box.top < innerHeight && box.bottom > 0;
      });
      assert(inView, "the highlighted entry is scrolled into view");
      // On the abandoned branch: the newer tip is not on the path, the hit's row is the leaf.
      await page.waitForSelector(`.tree-row.leaf[data-id="${HIT}"]`);
      assertEquals(
        await page.locator(`.raw-item[data-id="${TIP}"]`).count(),
        0,
        "the main line's tip is not on this branch",
      );
      assert((await entry.textContent())?.includes(TERM), "the highlighted entry is the hit");
      await screenshot(page, "search-hit");

      // Find in session: next / previous walk the matches in time order, across branches,
      // each one made the leaf and highlighted.
      const expectFocus = async (id: string, status: string) => {
        await page.waitForSelector(`.raw-item.highlight[data-id="${id}"]`);
        assertEquals(await page.textContent("#current-leaf"), id);
        assertEquals(await page.textContent("#find-status"), status);
      };
      await page.fill("#find-in-session", "main line");
      await page.press("#find-in-session", "Enter");
      await expectFocus("b0000004", "1 of 2");
      await page.click("#find-next");
      await expectFocus(TIP, "2 of 2");
      await page.click("#find-next");
      await expectFocus("b0000004", "1 of 2");
      await page.click("#find-prev");
      await expectFocus(TIP, "2 of 2");
      await page.fill("#find-in-session", TERM);
      await page.click("#find-next");
      await expectFocus(HIT, "1 of 1");
      assertEquals(watch.errors, [], "page errors");
    });
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});
