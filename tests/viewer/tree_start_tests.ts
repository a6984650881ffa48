/**
 * The Tree tab before the session's full load, in the browser store (OPFS SQLite): with
 * every worker call that needs the whole session held back (the page's own messages to the
 * worker are held, not timed), the tree's rows appear, the current leaf marked, readable at
 * 390 and 1400 px, and the worker has parsed a small part of the session's entries; the
 * arrow keys move the focus without switching the branch; once the held calls go on, the
 * full overview keeps the tree shown and Enter makes the focused row the leaf.
 * Registered from `tests/deno/viewer.test.ts`.
 *
 * @module
 */
import { serializeSessionJsonl } from "../../src/jsonl.ts";
import { SessionIndex } from "../../src/tree.ts";
import { flattenTree } from "../../web/worker/tree_rows.ts";
import { generatedSession } from "../unit/context_sessions.ts";
import { openWithImported, withViewerBrowser } from "./helpers.ts";
import { assert, assertEquals, assertReadableTree } from "./page.ts";

/** Entries of the session: enough that a full load parses far more than a screen of rows. */
const ENTRIES = 6000;

/**
 * Worker calls the page may make while the full load is held: the ones answered from the
 * open's first look or the tree's shape. Every other call waits until `__releaseCalls()`
 * (in the browser store, the conversation's pages too: they come from the full load).
 */
const ANSWERED_EARLY = [
  "init",
  "list",
  "openSession",
  "context",
  "contextBlock",
  "treeStart",
  "treeRows",
  "treeRowIndex",
];

/** Hold the page's other calls to the worker (see {@link ANSWERED_EARLY}) until released. */
function holdCalls(early: string[]) {
  const g = globalThis as unknown as { __heldCalls: string[]; __releaseCalls(): void };
  const held: (() => void)[] = [];
  let holding = true;
  g.__heldCalls = [];
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (this: Worker, ...args: unknown[]) {
    const message = args[0] as { rpc?: string; method?: string } | undefined;
    if (holding && message?.rpc === "call" && !early.includes(message.method ?? "")) {
      g.__heldCalls.push(message.method!);
      held.push(() => (post as (...a: unknown[]) => void).apply(this, args));
      return;
    }
    return (post as (...a: unknown[]) => void).apply(this, args);
  } as typeof post;
  g.__releaseCalls = () => {
    holding = false;
    for (const send of held.splice(0)) send();
  };
}

Deno.test({
  name: "viewer: the Tree tab shows its rows before the session's full load",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const work = await Deno.makeTempDir({ prefix: "mu-viewer-tree-start-" });
  try {
    const session = generatedSession(ENTRIES, 23);
    const file = `${work}/large.jsonl`;
    await Deno.writeTextFile(file, serializeSessionJsonl(session.header, session.entries));
    const index = SessionIndex.build(session.entries);
    const rows = flattenTree(index.getTree());
    const leaf = session.entries.at(-1)!.id;
    const leafRow = rows.findIndex((row) => row.node.entry.id === leaf);
    const above = rows[leafRow - 1].node.entry.id;
    assert(rows.some((row) => row.node.children.length > 1), "the session has branch points");

    await withViewerBrowser({ newReader: true }, 240_000, async (viewer, browser) => {
      const { page, watch } = await openWithImported(viewer, browser, [file]);
      const worker = page.workers().find((w) => w.url().endsWith("/worker.js"));
      assert(worker, "the viewer's worker runs");
      // Count the worker's JSON parses: a full load parses every entry.
      await worker.evaluate(() => {
        const g = globalThis as unknown as { __parses: number };
        const parse = JSON.parse;
        g.__parses = 0;
        JSON.parse = function (this: unknown, ...args: Parameters<typeof parse>) {
          g.__parses++;
          return parse.apply(this, args);
        } as typeof parse;
      });
      const parsesBefore = await worker.evaluate(() =>
        (globalThis as unknown as { __parses: number }).__parses
      );
      await page.evaluate(holdCalls, ANSWERED_EARLY);
      await page.setViewportSize({ width: 1400, height: 900 });
      await page.locator("#session-table .session-link").first().click();

      // The rows, the leaf's among them, while the full load is held.
      await page.waitForSelector(`.tree-row.leaf[data-id="${leaf}"]`, { timeout: 60_000 });
      // The conversation's code is loaded on first use: its first call (which waits for the
      // full load here) may come after the tree's rows; it is held, never answered, meanwhile.
      await page.waitForFunction(() =>
        (globalThis as unknown as { __heldCalls: string[] }).__heldCalls.includes("conversation")
      );
      const facts = await page.locator(".facts-block").textContent() ?? "";
      assert(!facts.includes(ENTRIES.toLocaleString("en-US")), `no full overview yet: ${facts}`);
      const parsed = await worker.evaluate(() =>
        (globalThis as unknown as { __parses: number }).__parses
      ) - parsesBefore;
      // The open's first look parses the default branch's context range; the tree, a page of
      // rows and the branch points' children. A full load parses every entry.
      assert(parsed < ENTRIES / 2, `the worker parsed ${parsed} of ${ENTRIES} entries`);
      for (const width of [390, 1400]) {
        await assertReadableTree(page, width, "tree-before-load");
      }
      const kinds = await page.locator(".tree-row[data-id] .badge").allTextContents();
      assert(kinds.includes("user") && kinds.includes("assistant"), `kinds: ${kinds}`);

      // The arrow moves the focus only: the leaf stays.
      await page.focus(".tree");
      await page.keyboard.press("ArrowUp");
      await page.waitForSelector(`.tree-row.cursor[data-id="${above}"]`);
      assertEquals(await page.textContent("#current-leaf"), leaf);

      // The rest of the session loads: the tree stays, Enter switches to the focused row.
      await page.locator(".tree").evaluate((tree) => (tree as HTMLElement).dataset.drawn = "early");
      await page.evaluate(() =>
        (globalThis as unknown as { __releaseCalls(): void }).__releaseCalls()
      );
      const total = ENTRIES.toLocaleString("en-US");
      await page.waitForFunction(
        (total) => document.querySelector(".facts-block")?.textContent?.includes(total),
        total,
      );
      assertEquals(await page.locator('.tree[data-drawn="early"]').count(), 1, "the tree stays");
      await page.keyboard.press("Enter");
      await page.waitForFunction(
        (id) => document.getElementById("current-leaf")?.textContent === id,
        above,
      );
      await page.waitForSelector(`.tree-row.leaf[data-id="${above}"]`);
      assertEquals(watch.errors, [], "page errors");
    });
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});
