/**
 * The viewer served by `mu serve` (a real process over a temporary agent directory): with
 * no sessions anywhere it offers the demo sessions; then the list shows "this computer"'s
 * session, which lives only in the server's SQLite store (put there by `mu import`); it
 * opens without importing; an entry appended by another process shows up in the open page;
 * "Keep a copy in this browser" copies it into the browser's own store; the search box finds
 * its text and opens the hit. Imported by
 * `tests/deno/viewer.test.ts`; runs alone too.
 */
import { buildViewer } from "../../web/build.ts";
import { startServe } from "../cli/serve.ts";
import { muProcess } from "../cli/harness.ts";
import {
  appendFromAnotherProcess,
  bounded,
  launchBrowser,
  screenshot,
  waitReady,
  watchPage,
} from "./helpers.ts";
import { assert, assertEquals, contextText, sessionTitles } from "./page.ts";

const V4 = new URL("../../fixtures/codec/v4.jsonl", import.meta.url).pathname;
const ID = "0b7c3f5e-4d2a-4c61-9e57-1f7a2b3c4d5e";
const WATCHDOG_MS = 180_000;

Deno.test({
  name: "viewer over mu serve: lists and opens this computer's session, follows appends",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const root = await Deno.makeTempDir({ prefix: "mu-viewer-computer-" });
  const agentDir = `${root}/agent`;
  const world = { root, agentDir, cwd: root, mu: () => Promise.reject(new Error("unused")) };
  await buildViewer({ outDir: `${root}/viewer`, minify: false });
  const server = await startServe(agentDir, ["--root", `${root}/viewer`]);
  const browser = await launchBrowser();
  const watchdog = setTimeout(() => void browser.close(), WATCHDOG_MS);
  try {
    const page = await browser.context.newPage();
    const watch = watchPage(page, server.origin);
    await page.goto(`${server.origin}/`);
    await waitReady(page);

    // No sessions anywhere: this browser's empty list offers the demo sessions.
    assertEquals(await page.getAttribute("#source-browser", "aria-selected"), "true");
    await page.waitForSelector("#load-demo");

    // Once the computer's store has a session (`mu import` into the agent directory), the
    // computer source is chosen first and lists it.
    const imported = await muProcess(world, ["import", V4]);
    assertEquals(imported.code, 0, imported.stderr);
    await page.reload();
    await waitReady(page);
    assertEquals(await page.getAttribute("#source-computer", "aria-selected"), "true");
    assertEquals(await sessionTitles(page), ["Hello"]);
    await screenshot(page, "20-computer-list");
    // The search box searches this computer's sessions (the server's /api/search); a hit
    // opens the computer session at that entry.
    await page.fill("#session-search", "hello");
    await page.press("#session-search", "Enter");
    await page.waitForSelector(`.search-group[data-key="computer/${ID}"] .search-hit-link`);
    assertEquals(await page.locator(".search-hit mark").allTextContents(), ["Hello"]);
    assertEquals(await page.locator(".search-group").count(), 1, "the browser has none yet");
    await page.locator(".search-hit-link").first().click();
    await page.waitForSelector('.raw-item.highlight[data-id="a1b2c3d4"]');
    assertEquals(await page.textContent("#current-leaf"), "a1b2c3d4");
    await page.goto(`${server.origin}/#/`);
    await page.waitForSelector("#session-table .session-link");
    await page.locator("#session-table .session-link").first().click();
    await page.waitForSelector(".session-page #context-view .context-item");
    assert((await contextText(page)).includes("Hi!"), "the session's messages show");
    assert(!(await contextText(page)).includes("from another process"));

    await appendFromAnotherProcess(
      { module: "stores/sqlite/file.ts", name: "openSqliteStore", path: `${agentDir}/sessions.db` },
      ID,
      "from another process",
    );
    const appended = performance.now();
    // Poll the DOM (bounded count): the page re-renders on the server's `session` event.
    let seen = false;
    for (let i = 0; i < 60 && !seen; i++) {
      seen = (await page.locator(".context-pane").textContent() ?? "").includes(
        "from another process",
      );
      if (!seen) await page.waitForTimeout(250);
    }
    assert(seen, "the appended message appears in the open session");
    // Reported, not asserted (no wall-clock bounds in tests): the server polls every 250 ms.
    console.log(`append shown after ${Math.round(performance.now() - appended)} ms`);
    await screenshot(page, "21-computer-session-live");

    // Nothing was imported: the browser's own list is empty (it offers the demo)...
    await page.goto(`${server.origin}/#/`);
    await waitReady(page);
    await page.click("#source-browser");
    await page.waitForSelector("#load-demo");
    // ...until the user keeps a copy.
    await page.click("#source-computer");
    await page.waitForSelector('#source-computer[aria-selected="true"]');
    await page.locator("#session-table .keep-copy").first().click();
    // After the copy the list switches to this browser's store, which now holds it.
    await page.waitForSelector('#source-browser[aria-selected="true"]');
    assertEquals(await sessionTitles(page), ["Hello"]);
    assertEquals(await page.locator("#session-table .row-actions .danger").count(), 1);
    // One search covers both stores: the kept copy and the computer's original.
    await page.fill("#session-search", "hello");
    await page.press("#session-search", "Enter");
    await page.waitForSelector(`.search-group[data-key="${ID}"]`);
    const keys = await page.locator(".search-group").evaluateAll((groups) =>
      groups.map((group) => (group as HTMLElement).dataset.key).sort()
    );
    assertEquals(keys, [ID, `computer/${ID}`]);
    assertEquals(watch.errors, []);
    assertEquals(watch.outside, []);
  } finally {
    clearTimeout(watchdog);
    await browser.close();
    await bounded(server.stop(), 5000);
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
});
