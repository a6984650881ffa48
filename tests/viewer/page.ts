/**
 * Page-level helpers for the viewer tests: assertions, list/session navigation, loading
 * every page of the projected context, downloads, and the check that session content
 * stayed inert (no script ran, no element or attribute came from content).
 *
 * @module
 */
import type { Page } from "playwright-core";
import { ROOT, screenshot } from "./helpers.ts";

/** The bundled demo sessions the tests import. */
export const DEMO = {
  realistic: `${ROOT}web/demo/01-token-refresh-race.jsonl`,
  boundary: `${ROOT}web/demo/02-verbatim-boundary.jsonl`,
  interrupted: `${ROOT}web/demo/03-interrupted-tool-call.jsonl`,
  v1: `${ROOT}web/demo/04-pi-v1-zsh-startup.jsonl`,
  workflow: `${ROOT}web/demo/05-workflow-review-stage.jsonl`,
};

/** Throw when `condition` is falsy. */
export function assert(condition: unknown, message = "assertion failed"): asserts condition {
  if (!condition) throw new Error(message);
}

/** Throw when the JSON of `actual` and `expected` differ. */
export function assertEquals(actual: unknown, expected: unknown, message = ""): void {
  const a = JSON.stringify(actual), e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${message}\nexpected: ${e}\nactual:   ${a}`);
}

/** The titles in the session list (waits for the table). */
export async function sessionTitles(page: Page): Promise<string[]> {
  await page.waitForSelector("#session-table");
  return await page.locator("#session-table .session-link").allTextContents();
}

/** Go to the list and open the session whose title contains `title`. */
export async function openFromList(page: Page, url: string, title: string): Promise<void> {
  await page.goto(`${url}#/`);
  await page.locator("#session-table .session-link", { hasText: title }).first().click();
  // The session opens on the reader's remembered tab; these checks read the context.
  await page.waitForSelector(".session-page #context-view, .session-page #conversation-view");
  if (await page.locator("#context-view").count() === 0) {
    const narrow = await page.locator("#pane-tab-context").isVisible();
    if (narrow) await page.click("#pane-tab-context");
    else await page.getByRole("tab", { name: "Context", exact: true }).click();
  }
  await page.waitForSelector(".session-page #context-view .context-item");
}

/** Scroll the context pane until every page of it is loaded (bounded). */
export async function loadAllContext(page: Page): Promise<void> {
  let count = -1;
  for (let i = 0; i < 40; i++) {
    const now = await page.locator(".context-item").count();
    if (now === count) return;
    count = now;
    await page.locator(".context-pane").evaluate((pane) => pane.scrollTop = pane.scrollHeight);
    await page.waitForTimeout(150);
  }
}

/** The text of the whole projected context (all pages loaded). */
export async function contextText(page: Page): Promise<string> {
  await loadAllContext(page);
  return await page.locator(".context-pane").textContent() ?? "";
}

/** Click something that downloads a file and return the file's text. */
export async function readDownload(page: Page, click: () => Promise<void>): Promise<string> {
  const [download] = await Promise.all([page.waitForEvent("download"), click()]);
  const path = await download.path();
  return await Deno.readTextFile(path);
}

/**
 * Assert that nothing from session content became live in the page: no `__pwned` flag,
 * no event-handler attributes, only the viewer's own script, no frames/objects/styles, no
 * SVG but the usage chart, only safe raster data-URL images, no links out of the page.
 */
export async function assertInert(page: Page, where: string): Promise<void> {
  const report = await page.evaluate(() => {
    const all = [...document.querySelectorAll("*")];
    const handlers = all.filter((el) => [...el.attributes].some((a) => /^on/i.test(a.name)))
      .map((el) => el.outerHTML.slice(0, 80));
    const scripts = [...document.scripts].map((s) => s.src);
    const embeds = document.querySelectorAll(
      "iframe, object, embed, frame, style, link:not([rel=stylesheet]):not([rel=icon]), base, meta[http-equiv=refresh]",
    ).length;
    const foreignSvg = document.querySelectorAll("svg:not(.chart)").length;
    const badImages = [...document.images].map((img) => img.getAttribute("src") ?? "")
      .filter((src) => !/^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]*={0,2}$/.test(src));
    const links = [...document.querySelectorAll("a[href]")].map((a) => a.getAttribute("href") ?? "")
      .filter((href) => !href.startsWith("#"));
    return {
      pwned: (globalThis as unknown as { __pwned?: unknown }).__pwned ?? null,
      handlers,
      scripts,
      embeds,
      foreignSvg,
      badImages,
      links,
    };
  });
  assertEquals(report.pwned, null, `${where}: a script ran`);
  assertEquals(report.handlers, [], `${where}: event handler attributes`);
  assertEquals(report.scripts.length, 1, `${where}: scripts ${report.scripts.join(", ")}`);
  assertEquals(report.embeds, 0, `${where}: embedded elements`);
  assertEquals(report.foreignSvg, 0, `${where}: svg from content`);
  assertEquals(report.badImages, [], `${where}: unsafe images`);
  assertEquals(report.links, [], `${where}: links out of the page`);
}

/**
 * The tree rows in view whose text is squeezed (under 80 px) or cut off at the tree's right
 * edge, with how many rows there are: a readable tree has rows and none of these.
 */
export async function crampedTreeRows(
  page: Page,
): Promise<{ rows: number; cramped: { id?: string; text: number; right: number }[] }> {
  // One evaluation that queries and measures: `locator.evaluateAll` queries first and runs
  // the function in a second round trip, by when the tree may have drawn its rows again
  // (a page of rows arriving) and the ones queried are detached.
  const rows = await page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>(".tree-row[data-id]")].map((row) => {
      const text = row.querySelector(".tree-text")!.getBoundingClientRect();
      const tree = row.closest(".tree")!.getBoundingClientRect();
      return { id: row.dataset.id, text: text.width, right: text.right - tree.right };
    })
  );
  return { rows: rows.length, cramped: rows.filter((row) => row.text < 80 || row.right > 1) };
}

/**
 * At `width`, the Tree tab (chosen on a small screen) shows rows and none is squeezed or cut
 * off; saves a screenshot named `shot`.
 */
export async function assertReadableTree(page: Page, width: number, shot: string): Promise<void> {
  await page.setViewportSize({ width, height: width < 900 ? 844 : 900 });
  if (width < 900) await page.click("#pane-tab-tree");
  await page.waitForSelector(".tree-row[data-id]");
  const shown = await crampedTreeRows(page);
  assert(shown.rows > 5, `${width} px: the Tree tab shows rows (${shown.rows})`);
  assertEquals(shown.cramped, [], `${width} px: rows whose text is squeezed or cut off`);
  await screenshot(page, `${shot}-${width}`);
}
