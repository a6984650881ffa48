/**
 * The session list arranged for reading (issue 15), registered from
 * `tests/deno/viewer.test.ts`: sessions grouped by project with counts, a fork linked to the
 * session it came from (the link opens it), the three sort orders, and the filter matching
 * message text through the store's search. And a retired summary compaction from a format-3
 * file: marked inert at its entry, with the older agent's context as a comparison.
 *
 * @module
 */
import type { Page } from "playwright-core";
import { openWithImported, withViewerBrowser } from "./helpers.ts";
import { assert, assertEquals, contextText } from "./page.ts";
import { LIST, RETIRED, writeListSessions, writeRetiredCompaction } from "./sessions.ts";

/** Ids of the listed session rows, in order. */
async function rowIds(page: Page): Promise<string[]> {
  return await page.locator("#session-table tr[data-id]").evaluateAll((rows) =>
    rows.map((row) => (row as HTMLElement).dataset.id ?? "")
  );
}

/** The project headings: `[cwd, count text]`, in order. */
async function groups(page: Page): Promise<string[][]> {
  return await page.locator("#session-table tr.group-row").evaluateAll((rows) =>
    rows.map((row) => [
      (row as HTMLElement).dataset.cwd ?? "",
      row.querySelector(".group-count")?.textContent ?? "",
    ])
  );
}

Deno.test({
  name: "viewer: list grouped by project, forks link to their parent, sort orders, text filter",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const work = await Deno.makeTempDir({ prefix: "mu-viewer-list-" });
  try {
    const files = await writeListSessions(work);
    await withViewerBrowser({}, 180_000, async (viewer, browser) => {
      const { page, watch } = await openWithImported(viewer, browser, files);
      await page.waitForFunction(() => document.querySelectorAll("tr[data-id]").length === 3);

      // Last modified (the default): the parent was touched last, so its project leads.
      assertEquals(await groups(page), [
        ["/home/dev/alpha", "2 sessions"],
        ["/home/dev/beta", "1 session"],
      ]);
      assertEquals(await rowIds(page), [LIST.parent, LIST.fork, LIST.other]);

      await page.selectOption("#list-sort", "created");
      await page.waitForFunction(
        (id) => document.querySelector("tr[data-id]")?.getAttribute("data-id") === id,
        LIST.other,
      );
      assertEquals(await rowIds(page), [LIST.other, LIST.fork, LIST.parent]);
      assertEquals((await groups(page)).map(([cwd]) => cwd), ["/home/dev/beta", "/home/dev/alpha"]);

      await page.selectOption("#list-sort", "size");
      await page.waitForFunction(
        (id) => document.querySelector("tr[data-id]")?.getAttribute("data-id") === id,
        LIST.fork,
      );
      assertEquals(await rowIds(page), [LIST.fork, LIST.parent, LIST.other]);

      // The sort is remembered across a reload.
      await page.reload();
      await page.waitForSelector("#session-table tr[data-id]");
      assertEquals(await page.inputValue("#list-sort"), "size");
      assertEquals(await rowIds(page), [LIST.fork, LIST.parent, LIST.other]);

      // Message text matches through the search; titles, cwd and ids still do.
      await page.fill(".filter", LIST.word);
      await page.waitForFunction(() => document.querySelectorAll("tr[data-id]").length === 1);
      assertEquals(await rowIds(page), [LIST.other]);
      assertEquals(
        await page.locator(`tr[data-id="${LIST.other}"] .text-match`).count(),
        1,
        "marked as a message-text match",
      );
      await page.fill(".filter", "alpha");
      await page.waitForFunction(() =>
        document.querySelectorAll("tr[data-id]").length === 2 &&
        !document.querySelector(".count")?.textContent?.includes("searching")
      );
      assertEquals(await rowIds(page), [LIST.fork, LIST.parent]);
      await page.fill(".filter", "");

      // The fork names its parent; the link opens the parent.
      const link = page.locator(`tr[data-id="${LIST.fork}"] .fork-of a.parent-link`);
      assertEquals(await link.textContent(), "plan the alpha migration");
      assertEquals(await page.locator(`tr[data-id="${LIST.parent}"] .fork-of`).count(), 0);
      await link.click();
      await page.waitForSelector(".session-page #context-view .context-item");
      assertEquals(await page.textContent("#session-title"), "plan the alpha migration");
      assert(decodeURIComponent(page.url()).includes(`#/session/${LIST.parent}`), page.url());
      assertEquals(watch.errors, [], "page errors");
    });
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});

Deno.test({
  name: "viewer: a retired summary compaction is marked inert; the older agent's context compares",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const work = await Deno.makeTempDir({ prefix: "mu-viewer-retired-" });
  try {
    const file = await writeRetiredCompaction(work);
    await withViewerBrowser({}, 180_000, async (viewer, browser) => {
      const { page, watch } = await openWithImported(viewer, browser, [file]);
      await page.locator("#session-table .session-link").first().click();
      await page.waitForSelector(".session-page #context-view .context-item");

      // Format 4: the record is inert, everything before it is still in context.
      const context = await contextText(page);
      assert(context.includes("first: why does the login test flake?"), "earlier entries stay");
      const record = page.locator(`.context-item[data-source="${RETIRED.compaction}"]`);
      assertEquals(await record.locator(".chip.tone-retired").allTextContents(), [
        "retired summary compaction",
      ]);
      assert((await record.innerText()).includes("Inert"), await record.innerText());
      const note = page.locator("#retired-note");
      assert((await note.innerText()).includes(RETIRED.compaction), await note.innerText());

      // The older agent's reading: the summary, then the kept entries and the later ones.
      assertEquals(await page.locator(".older-agent-pane").count(), 0, "built only when opened");
      await page.locator("#older-agent > summary").click();
      const older = page.locator(".older-agent-pane");
      await older.locator(".context-item").nth(4).waitFor();
      const olderText = await older.innerText();
      assert(olderText.includes(RETIRED.summary), olderText);
      assert(olderText.includes("second: fix the retry loop"), "kept from firstKeptEntryId");
      assert(olderText.includes("third answer: green."), "entries after the record");
      assert(!olderText.includes("first: why does the login test flake?"), "replaced by summary");
      assertEquals(
        await older.locator(".context-item").first().locator(".chip").allTextContents(),
        ["summary as the older agent sent it"],
      );
      // Read-only: the real context is unchanged beside it.
      assert((await contextText(page)).includes("first answer: a retry loop races."));
      assertEquals(watch.errors, [], "page errors");
    });
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});
