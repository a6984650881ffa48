/**
 * The Tree tab of a large session through `mu serve` (a real process) before the session's
 * full load: with every entry page of the full load held in the browser (asked, not
 * answered, until the test lets them go), the tree's rows appear around the current leaf,
 * readable at 390/768/1400 px; scrolling far down the tree shows rows from the server,
 * label chips included; once the entry pages go through, the full overview keeps the same
 * tree. Requests are held and counted, not timed. Registered from `tests/deno/viewer.test.ts`.
 *
 * @module
 */
import type { Route } from "playwright-core";
import { SessionIndex } from "../../src/tree.ts";
import { TREE_ROW_HEIGHT } from "../../web/views/tree.ts";
import { flattenTree } from "../../web/worker/tree_rows.ts";
import { serveGeneratedSession } from "./served_session.ts";
import { bounded, launchBrowser, waitReady, watchPage } from "./helpers.ts";
import { assert, assertEquals, assertReadableTree } from "./page.ts";

const WATCHDOG_MS = 180_000;
/** More entries than one page of the API (2,000): the full load takes several. */
const ENTRIES = 5000;

Deno.test({
  name: "viewer over mu serve: the Tree tab shows its rows before the session's full load",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const { root, session, server } = await serveGeneratedSession(
    "mu-viewer-serve-tree-",
    ENTRIES,
    11,
  );
  const id = session.header.id;
  const rows = flattenTree(SessionIndex.build(session.entries, { source: id }).getTree());
  const leaf = session.entries.at(-1)!.id;
  const leafRow = rows.findIndex((row) => row.node.entry.id === leaf);
  // A labelled row far from the leaf's: not among the rows the tree opens with.
  const labelled = rows.findIndex((row, i) => row.node.label && Math.abs(i - leafRow) > 400);
  assert(labelled >= 0, "the session has a labelled entry far from its leaf");
  const label = rows[labelled].node;

  const browser = await launchBrowser({ newReader: true });
  const watchdog = setTimeout(() => void browser.close(), WATCHDOG_MS);
  try {
    const page = await browser.context.newPage();
    const watch = watchPage(page, server.origin);
    // The full load's entry pages (`GET /api/sessions/:id?offset=`), held until released.
    const sessionPath = `/api/sessions/${encodeURIComponent(id)}`;
    const held: Route[] = [];
    let holding = true;
    await browser.context.route(
      (url) => url.pathname === sessionPath && url.searchParams.has("offset"),
      (route) => holding ? void held.push(route) : void route.continue(),
    );

    await page.goto(`${server.origin}/`);
    await waitReady(page);
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.locator("#session-table .session-link").first().click();

    // The rows around the leaf, its row marked, while no entry page has been answered.
    await page.waitForSelector(`.tree-row.leaf[data-id="${leaf}"]`, { timeout: 60_000 });
    const facts = await page.locator(".facts-block").textContent() ?? "";
    assert(!facts.includes(ENTRIES.toLocaleString("en-US")), `no full overview yet: ${facts}`);
    for (const width of [390, 768, 1400]) {
      await assertReadableTree(page, width, "serve-tree-before-load");
    }

    // Far down the tree: rows the tree did not open with, with their label chips.
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.locator(".tree").evaluate(
      (tree, top) => (tree as HTMLElement).scrollTop = top,
      labelled * TREE_ROW_HEIGHT,
    );
    const chip = page.locator(`.tree-row[data-id="${label.entry.id}"] .label-chip`);
    await chip.waitFor({ timeout: 60_000 });
    assertEquals(await chip.textContent(), label.label);
    assert(holding && held.length > 0, `the full load asked for entry pages: ${held.length}`);
    assertEquals(
      await page.locator(".facts-block").textContent() ?? "",
      facts,
      "still before the full load",
    );

    // The entry pages go through: the full overview, the same tree.
    await page.locator(".tree").evaluate((tree) => (tree as HTMLElement).dataset.drawn = "early");
    holding = false;
    for (const route of held.splice(0)) await route.continue();
    const total = ENTRIES.toLocaleString("en-US");
    await page.waitForFunction(
      (total) => document.querySelector(".facts-block")?.textContent?.includes(total),
      total,
      { timeout: 60_000 },
    );
    assertEquals(await page.locator('.tree[data-drawn="early"]').count(), 1, "the tree stays");
    assertEquals(await chip.textContent(), label.label);
    assertEquals(watch.errors, []);
  } finally {
    clearTimeout(watchdog);
    await browser.close();
    await bounded(server.stop(), 5000);
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
});
