/**
 * Viewer import rules end to end in Chromium (registered from `tests/deno/viewer.test.ts`):
 * re-importing never loses stored entries. A branch export is a new session (own id,
 * `parentSessionId`), identical content is "already present", and a different file with a
 * stored id asks, defaulting to keeping both. Also: missing parents are named on the
 * session page.
 *
 * @module
 */
import type { Page } from "playwright-core";
import { ROOT, screenshot, waitReady, watchPage, withViewerBrowser } from "./helpers.ts";
import { assert, assertEquals, DEMO, openFromList, readDownload, sessionTitles } from "./page.ts";

const REALISTIC = DEMO.realistic;

/** Import files and return the toast text the import produced. */
async function importAndToast(page: Page, files: string[]): Promise<string> {
  for (const close of await page.locator(".toast-close").all()) await close.click();
  await page.setInputFiles("#file-input", files);
  const toast = page.locator(".toast span").last();
  await toast.waitFor();
  return await toast.innerText();
}

/** Rows in the open session's tree (= its entries). */
async function treeRows(page: Page): Promise<number> {
  await page.waitForSelector(".tree-row[data-id]");
  return await page.locator(".tree-row[data-id]").count();
}

Deno.test({
  name: "viewer: re-import never loses entries; a branch export keeps its source's header",
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  const work = await Deno.makeTempDir({ prefix: "mu-viewer-import-" });
  try {
    await withViewerBrowser({}, 180_000, async (viewer, browser) => {
      const page = await browser.context.newPage();
      const watch = watchPage(page, viewer.url.replace(/\/$/, ""));
      await page.goto(viewer.url);
      await waitReady(page);
      const original = await Deno.readTextFile(REALISTIC);
      const originalHeader = JSON.parse(original.split("\n")[0]);
      const originalCount = original.trim().split("\n").length - 1;

      await t.step("import a branched session, export one branch", async () => {
        assertEquals(await importAndToast(page, [REALISTIC]), "Imported 1 session.");
        await openFromList(page, viewer.url, "Fix token refresh race");
        assertEquals(await treeRows(page), originalCount);
        await page.locator('.tree-row[data-id="a1000013"]').click();
        await page.waitForSelector('#context-view[data-leaf="a1000013"] .context-item');
        const branch = await readDownload(page, () => page.click("#export-branch"));
        const lines = branch.trim().split("\n");
        // As `mu export --leaf` writes it: the session's own header (id, provider, model,
        // thinking level), then the path entries with their lines unchanged.
        assertEquals(lines[0], original.split("\n")[0], "the source's header, unchanged");
        const byId = new Map(original.trim().split("\n").map((l) => [JSON.parse(l).id, l]));
        for (const line of lines.slice(1)) {
          assertEquals(line, byId.get(JSON.parse(line).id), "path entries are copied unchanged");
        }
        assertEquals(JSON.parse(lines.at(-1)!).id, "a1000013");
        assert(lines.length - 1 < originalCount, "a branch has fewer entries");
        await Deno.writeTextFile(`${work}/branch.jsonl`, branch);
      });

      await t.step(
        "re-import the branch export: asked; keeping both adds it, the stored one intact",
        async () => {
          await page.goto(`${viewer.url}#/`);
          for (const close of await page.locator(".toast-close").all()) await close.click();
          await page.setInputFiles("#file-input", [`${work}/branch.jsonl`]);
          const dialog = page.locator("dialog#import-conflict");
          await dialog.waitFor();
          await page.locator("#conflict-keep-both").click();
          await page.locator(".toast span", { hasText: "Imported 1 session; 1 kept beside" })
            .waitFor();
          assertEquals((await sessionTitles(page)).length, 2);
          await page.goto(`${viewer.url}#/session/${encodeURIComponent(originalHeader.id)}`);
          assertEquals(await treeRows(page), originalCount, "no entry of the stored session lost");
        },
      );

      await t.step("re-import the same file: already present, nothing asked", async () => {
        await page.goto(`${viewer.url}#/`);
        assertEquals(await importAndToast(page, [REALISTIC]), "1 already present.");
        assertEquals(await page.locator("#import-conflict").count(), 0);
        assertEquals((await sessionTitles(page)).length, 2);
      });

      await t.step("a different file with a stored id asks; Escape keeps both", async () => {
        // What the old "Export this branch" wrote: the original header, a subset of entries.
        const lines = original.trim().split("\n");
        await Deno.writeTextFile(`${work}/same-id.jsonl`, lines.slice(0, 8).join("\n") + "\n");
        await page.goto(`${viewer.url}#/`);
        for (const close of await page.locator(".toast-close").all()) await close.click();
        await page.setInputFiles("#file-input", [`${work}/same-id.jsonl`]);
        const dialog = page.locator("dialog#import-conflict");
        await dialog.waitFor();
        const text = await dialog.innerText();
        assert(text.includes(originalHeader.id) && text.includes("same-id.jsonl"), text);
        assertEquals(
          await page.evaluate(() => document.activeElement?.id),
          "conflict-keep-both",
          "keeping both is the focused default",
        );
        await screenshot(page, "import-conflict");
        await page.keyboard.press("Escape");
        const toast = page.locator(".toast span").last();
        await toast.waitFor();
        const said = await toast.innerText();
        assert(said.startsWith("Imported 1 session; 1 kept beside"), said);
        assertEquals((await sessionTitles(page)).length, 3);
        await page.goto(`${viewer.url}#/session/${encodeURIComponent(originalHeader.id)}`);
        assertEquals(await treeRows(page), originalCount, "the stored session is untouched");
      });

      await t.step("skip leaves everything as it was", async () => {
        await page.goto(`${viewer.url}#/`);
        for (const close of await page.locator(".toast-close").all()) await close.click();
        await page.setInputFiles("#file-input", [`${work}/same-id.jsonl`]);
        await page.locator("#conflict-skip").click();
        const toast = page.locator(".toast span").last();
        await toast.waitFor();
        assertEquals(await toast.innerText(), "1 skipped.");
        assertEquals((await sessionTitles(page)).length, 3);
      });

      await t.step("entries with missing parents: the session page names them", async () => {
        await page.goto(`${viewer.url}#/`);
        await importAndToast(page, [`${ROOT}fixtures/projection/leaf-selection.jsonl`]);
        await openFromList(page, viewer.url, "root question");
        const note = await page.locator("#missing-parents").innerText();
        assert(note.includes("missing0"), note);
        await page.goto(`${viewer.url}#/session/${encodeURIComponent(originalHeader.id)}`);
        await page.waitForSelector(".tree-row[data-id]");
        assertEquals(await page.locator("#missing-parents").count(), 0);
      });

      assertEquals(watch.errors, [], "page errors");
      assertEquals(watch.outside, [], "requests to other origins");
    });
  } finally {
    await Deno.remove(work, { recursive: true }).catch(() => {});
  }
});
