/**
 * Viewer search (issue 14), registered from `tests/deno/viewer.test.ts`: a term that appears
 * only on an abandoned branch is found from the list's search box, the hit's snippet marks
 * the term, and opening the hit shows its message in the conversation on that branch with
 * the term marked, without cutting the branch or naming a leaf in the address; find in
 * session steps through matches with next / previous the same way, switching branch only
 * when the match is not on the one shown; "Make this the leaf" cuts it on request.
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

      // The hit opens the conversation at the message, the term marked, on the hit's
      // branch (the abandoned one: the hit is its newest entry), with no leaf in the URL.
      await hit.click();
      const shown = page.locator(`#conversation-view .conv-item.conv-hit[data-id="${HIT}"]`);
      await shown.waitFor();
      assertEquals(await page.textContent("#current-leaf"), HIT, "the hit's branch");
      assertEquals(await shown.locator("mark.find-mark").allTextContents(), [TERM], "marked");
      const inView = (selector: string) =>
        page.locator(selector).evaluate((node) => {
          const box = node.getBoundingClientRect();
          return box.top < innerHeight && box.bottom > 0;
        });
      assert(
        await inView(`.conv-item.conv-hit[data-id="${HIT}"]`),
        "the hit is scrolled to " + await shown.evaluate((n) => {
          const out = [JSON.stringify(n.getBoundingClientRect())];
          for (let e: Element | null = n; e; e = e.parentElement) {
            if (e.scrollTop) {
              out.push(`${e.tagName}.${e.className} ${e.scrollTop}/${e.scrollHeight}`);
            }
          }
          return out.join(" | ");
        }),
      );
      assert(!page.url().includes("leaf="), `no leaf in the address: ${page.url()}`);
      await page.waitForSelector(`.tree-row.leaf[data-id="${HIT}"]`);
      await screenshot(page, "search-hit");

      // Find in session: next / previous walk the matches in time order, across branches;
      // a hit on the newest branch shows that whole branch (not cut at the hit).
      const expectHit = async (id: string, leaf: string, status: string) => {
        await page.waitForSelector(
          `#conversation-view[data-leaf="${leaf}"] .conv-hit[data-id="${id}"]`,
        );
        assertEquals(await page.textContent("#current-leaf"), leaf);
        assertEquals(await page.textContent("#find-status"), status);
        assert(await inView(`.conv-hit[data-id="${id}"]`), `${id} scrolled to`);
      };
      await page.fill("#find-in-session", "main line");
      await page.press("#find-in-session", "Enter");
      await expectHit("b0000004", TIP, "1 of 2");
      assertEquals(await page.locator(`.conv-item[data-id="${TIP}"]`).count(), 1, "not cut");
      assertEquals(
        (await page.locator(".conv-hit mark.find-mark").allTextContents()).join(" "),
        "main line",
        "the matched words marked",
      );
      await page.click("#find-next");
      await expectHit(TIP, TIP, "2 of 2");
      await page.click("#find-next");
      await expectHit("b0000004", TIP, "1 of 2");
      assert(!page.url().includes("leaf="), `finding names no leaf: ${page.url()}`);
      // Cutting the branch at the hit is an explicit action.
      await page.click("#make-leaf");
      await page.waitForSelector('#conversation-view[data-leaf="b0000004"]');
      assertEquals(await page.textContent("#current-leaf"), "b0000004");
      assert(page.url().includes("leaf=b0000004"), page.url());
      await page.fill("#find-in-session", TERM);
      await page.click("#find-next");
      await expectHit(HIT, HIT, "1 of 1");

      // On a phone the hit lands on the message, not on the raw JSON.
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(`${viewer.url}#/`);
      await page.fill("#session-search", TERM);
      await page.press("#session-search", "Enter");
      await hit.click();
      await shown.waitFor();
      assert(await shown.isVisible(), "the message is shown on a phone");
      assert(await inView(`.conv-item.conv-hit[data-id="${HIT}"]`), "and scrolled to");
      assert(!(await page.locator(".raw-pane").isVisible()), "not the raw JSON");
      await screenshot(page, "search-hit-390");
      await page.setViewportSize({ width: 1400, height: 900 });
      assertEquals(watch.errors, [], "page errors");
    });
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});

/** Entries of the session whose search index the import leaves to the first search. */
const DEFERRED_ENTRIES = 3000;

/** A chain of messages, every third one holding `word` (far more hits than the limit). */
function deferredSession(word: string): string {
  const at = (n: number) => new Date(Date.UTC(2026, 1, 1, 0, 0, n)).toISOString();
  const records: unknown[] = [
    { type: "session", version: 4, id: "search-deferred-1", timestamp: at(0), cwd: "/work" },
  ];
  for (let i = 0; i < DEFERRED_ENTRIES; i++) {
    const text = i % 3 ? `ordinary line ${i}` : `a ${word} sighting ${i}`;
    records.push({
      type: "message",
      id: `d${String(i).padStart(7, "0")}`,
      parentId: i ? `d${String(i - 1).padStart(7, "0")}` : null,
      timestamp: at(i + 1),
      message: { role: "user", content: text, timestamp: i },
    });
  }
  return records.map((record) => JSON.stringify(record)).join("\n") + "\n";
}

Deno.test({
  name: "viewer: the first search after a large import shows hits and progress before the end",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const work = await Deno.makeTempDir({ prefix: "mu-viewer-search-progress-" });
  try {
    const file = `${work}/deferred.jsonl`;
    await Deno.writeTextFile(file, deferredSession("pelican"));
    await withViewerBrowser({}, 180_000, async (viewer, browser) => {
      const { page, watch } = await openWithImported(viewer, browser, [file]);
      // Every state the results pass through, in order (a partial one may last one frame).
      await page.evaluate(() => {
        const results = document.querySelector("#search-results")!;
        const seen: string[] = [];
        (globalThis as unknown as { seenResults: string[] }).seenResults = seen;
        new MutationObserver(() => seen.push(results.textContent ?? "")).observe(results, {
          childList: true,
          subtree: true,
          characterData: true,
        });
      });
      await page.fill("#session-search", "pelican");
      await page.press("#session-search", "Enter");
      await page.waitForFunction(() => {
        const count = document.querySelector("#search-results .count")?.textContent ?? "";
        return count !== "" && !count.includes("so far") &&
          !document.querySelector("#search-progress");
      });
      const seen = await page.evaluate(() =>
        (globalThis as unknown as { seenResults: string[] }).seenResults
      );
      const total = DEFERRED_ENTRIES.toLocaleString("en-US");
      const partial = seen.find((text) => text.includes("so far"));
      assert(partial !== undefined, `no partial results before the last: ${seen.join(" | ")}`);
      assert(
        new RegExp(`Searching… [\\d,]+ of ${total} entries`).test(partial),
        `the progress line counts the entries searched: ${partial}`,
      );
      assert(partial.includes("pelican sighting"), `partial hits are shown: ${partial}`);
      assertEquals(
        await page.textContent("#search-results .count"),
        "100+ matches in 1+ sessions",
        "more hits than the limit say so",
      );
      assertEquals(watch.errors, [], "page errors");
    });
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});
