/**
 * Viewer tests beside the main end-to-end flow (registered from `tests/deno/viewer.test.ts`):
 * a new user loads the demo sessions, also with the network off after load (its screenshot
 * is `docs/viewer.png`), the IndexedDB
 * fallback keeps sessions across a reload, and hostile session content never runs or
 * injects markup even with the page's CSP bypassed.
 *
 * @module
 */
import {
  publishScreenshot,
  ROOT,
  screenshot,
  waitReady,
  watchPage,
  withViewerBrowser,
} from "./helpers.ts";
import { assert, assertEquals, assertInert, DEMO, openFromList, sessionTitles } from "./page.ts";

const REALISTIC = DEMO.realistic;
const V1 = DEMO.v1;

Deno.test({
  name: "viewer: a new user loads the demo sessions and sees a real session at once",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  await withViewerBrowser({}, 120_000, async (viewer, browser) => {
    const page = await browser.context.newPage();
    const watch = watchPage(page, viewer.url.replace(/\/$/, ""));
    await page.goto(viewer.url);
    await waitReady(page);
    // Loaded: now the network is gone (the README promises offline use after load).
    await browser.context.setOffline(true);
    const requested: string[] = [];
    await browser.context.route("**/*", (route) => {
      requested.push(route.request().url());
      return route.abort("internetdisconnected");
    });
    await page.click("#load-demo");
    await page.waitForSelector(".session-page #context-view .context-item");
    assertEquals(requested, [], "the demo needs no request");
    const said = await page.locator(".toast span").first().innerText();
    assertEquals(said, "Imported 5 sessions (1 internal, hidden).");
    await browser.context.unroute("**/*");
    await browser.context.setOffline(false);
    assertEquals(await page.locator("#session-title").textContent(), "Fix token refresh race");
    for (const toast of await page.locator(".toast-close").all()) await toast.click();
    // Show an edited entry next to its raw line (this screenshot is docs/viewer.png).
    const edited = page.locator(".context-item.has-edit", { hasText: "read" }).first();
    await edited.evaluate((node) => node.scrollIntoView({ block: "start" }));
    await edited.locator(".item-head button.link-button").click();
    await page.waitForSelector(".raw-item.highlight");
    await publishScreenshot(await screenshot(page, "demo-session"), "viewer.png");
    await page.goto(`${viewer.url}#/`);
    assertEquals((await sessionTitles(page)).length, 4, "4 demo sessions + 1 internal hidden");
    assert((await page.locator("label.toggle").textContent())?.includes("(1)"), "internal hidden");
    await screenshot(page, "demo-list");
    assertEquals(watch.errors, [], "page errors");
    assertEquals(watch.outside, [], "requests to other origins");
  });
});

Deno.test({
  name: "viewer: IndexedDB fallback (?storage=indexeddb) keeps sessions across a reload",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  await withViewerBrowser({}, 120_000, async (viewer, browser) => {
    const page = await browser.context.newPage();
    watchPage(page, viewer.url.replace(/\/$/, ""));
    await page.goto(`${viewer.url}?storage=indexeddb`);
    await waitReady(page);
    assertEquals(await page.getAttribute("body", "data-storage"), "indexeddb");
    await page.setInputFiles("#file-input", [REALISTIC, V1]);
    assertEquals((await sessionTitles(page)).length, 2);
    await page.reload();
    await waitReady(page);
    assertEquals((await sessionTitles(page)).length, 2);
    await openFromList(page, `${viewer.url}?storage=indexeddb`, "Fix token refresh race");
    assertEquals(await page.locator(".tree-row.leaf").getAttribute("data-id"), "a1000020");
  });
});

Deno.test({
  name: "viewer: hostile session content never runs or injects markup (CSP bypassed)",
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  await withViewerBrowser({ bypassCSP: true }, 180_000, async (viewer, browser) => {
    const origin = viewer.url.replace(/\/$/, "");
    const page = await browser.context.newPage();
    const watch = watchPage(page, origin);
    await page.goto(viewer.url);
    await waitReady(page);
    const check = (where: string) => assertInert(page, where);

    await t.step("import the hostile fixtures", async () => {
      await page.setInputFiles("#file-input", [
        `${ROOT}fixtures/hostile/html-everywhere.jsonl`,
        `${ROOT}fixtures/hostile/svg-image-v3.jsonl`,
      ]);
      await page.waitForSelector("#session-table");
      assertEquals((await sessionTitles(page)).length, 2);
      const text = await page.locator("#session-table").innerText();
      assert(text.includes("<script>window.__pwned='name'</script>"), "the name is shown as text");
      await check("list");
      await screenshot(page, "hostile-list");
    });

    const hostileRows: Record<string, string> = {
      "html-everywhere": 'tr[data-id^="hostile-<img"]',
      "svg-image-v3": 'tr[data-id="hostile-v3-svg"]',
    };
    for (const [title, row] of Object.entries(hostileRows)) {
      await t.step(`session "${title}": context, raw, tree, usage stay inert`, async () => {
        await page.goto(`${viewer.url}#/`);
        await page.locator(row).locator(".session-link")
          .click();
        await page.waitForSelector("#context-view .context-item");
        for (const details of await page.locator("details").all()) {
          await details.evaluate((d) => (d as HTMLDetailsElement).open = true);
        }
        for (
          const more of await page.locator("button.link-button", { hasText: "Show all" }).all()
        ) await more.click();
        await check(`${title} context`);
        const rows = await page.locator(".tree-row[data-id]").all();
        for (const row of rows.slice(0, 20)) {
          await row.hover();
          await row.click();
          await page.waitForSelector("#context-view");
        }
        await check(`${title} after switching leaves`);
        const shown = await page.locator("main").innerText();
        assert(shown.includes("<script>window.__pwned="), "markup is shown as text");
        await page.getByRole("tab", { name: "Usage & cost" }).click();
        await page.waitForSelector(".usage");
        await check(`${title} usage`);
        await screenshot(page, `hostile-${title}`);
      });
    }

    await t.step("svg and mislabeled images are not displayed", async () => {
      // At h0000003 the user message with the images is in context (no boundary yet).
      const id = "hostile-<img src=x onerror=window.__pwned=13>";
      await page.goto(`${viewer.url}#/`);
      await page.goto(`${viewer.url}#/session/${encodeURIComponent(id)}?leaf=h0000003`);
      await page.waitForSelector("#context-view .context-item");
      assertEquals(await page.locator("#current-leaf").textContent(), "h0000003");
      const notes = await page.locator(".context-pane .block.note").allTextContents();
      assert(notes.some((n) => n.includes("image/svg+xml")), notes.join(" | "));
      assert(notes.filter((n) => n.includes("not displayed")).length >= 4, notes.join(" | "));
      assertEquals(await page.locator(".context-pane img").count(), 0);
      assertEquals(watch.errors, [], "page errors");
      assertEquals(watch.outside, [], "requests to other origins");
    });
  });
});
