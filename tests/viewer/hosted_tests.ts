/**
 * Opening a session exported next to the viewer (`?url=`): with its index, the page shows
 * the default leaf's context after fetching only a small part of the file, by Range
 * requests, and fetches the rest only when the reader asks for the tree; from a server that
 * ignores Range it shows the same context from the whole body. The export and the viewer
 * share an origin (the page's CSP allows no other). Registered from
 * `tests/deno/viewer.test.ts`.
 *
 * @module
 */
import { buildExportIndex, serializeExportIndex } from "../../src/export_index.ts";
import { serializeSessionJsonl } from "../../src/jsonl.ts";
import { serveFile } from "../../web/static.ts";
import { startRangeStorage } from "../edge/range_storage.ts";
import { generatedSession } from "../unit/context_sessions.ts";
import { waitReady, watchPage, withViewerBrowser } from "./helpers.ts";
import { assert, assertEquals } from "./page.ts";

Deno.test({
  name: "viewer: a hosted indexed export opens from its URL, fetching only part of it",
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  const session = generatedSession(6000, 5);
  const bytes = new TextEncoder().encode(serializeSessionJsonl(session.header, session.entries));
  const storage = startRangeStorage();
  storage.put("gen.jsonl", bytes);
  storage.put("gen.jsonl.idx", serializeExportIndex(await buildExportIndex(bytes)));
  try {
    await withViewerBrowser({ newReader: true }, 240_000, async (viewer, browser) => {
      // The viewer's files and the bucket's objects on one origin.
      const site = Deno.serve(
        { hostname: "127.0.0.1", port: 0, onListen() {} },
        (request) => {
          const path = new URL(request.url).pathname;
          return path.startsWith("/o/") || path.startsWith("/plain/")
            ? storage.fetch(request)
            : serveFile(viewer.dir, request);
        },
      );
      const origin = `http://127.0.0.1:${site.addr.port}`;
      try {
        const page = await browser.context.newPage();
        const watch = watchPage(page, origin);

        await t.step(
          "with its index: the context from a few ranges, the tree on demand",
          async () => {
            storage.reset();
            await page.goto(`${origin}/?url=/o/gen.jsonl`);
            await waitReady(page);
            await page.waitForSelector("#context-view .context-item");
            assertEquals(await page.locator("#crumb").textContent(), session.header.id);
            assertEquals(await page.locator("#load-hosted").count(), 1);
            const served = storage.served("gen.jsonl");
            assert(served.ranges.length > 0, "read by Range requests");
            assert(
              served.bytes < bytes.length / 4,
              `${served.bytes} of ${bytes.length} bytes fetched for the context`,
            );
            await page.click("#load-hosted");
            await page.waitForSelector(".tree-row[data-id]");
            assert(
              storage.served("gen.jsonl").bytes >= bytes.length,
              "the tree read the whole file",
            );
          },
        );

        await t.step(
          "a server that ignores Range: the same context from the whole body",
          async () => {
            storage.reset();
            await page.goto(`${origin}/?url=/plain/gen.jsonl`);
            await waitReady(page);
            await page.waitForSelector("#context-view .context-item");
            assertEquals(await page.locator("#crumb").textContent(), session.header.id);
            // Each parallel range request may have been answered whole before the first was read.
            assert(storage.served("gen.jsonl").bytes >= bytes.length);
            assertEquals(await page.locator("#load-hosted").count(), 1);
          },
        );
        assertEquals(watch.errors, [], "page errors");
        assertEquals(watch.outside, [], "requests to other origins");
      } finally {
        await site.shutdown();
      }
    });
  } finally {
    await storage.stop();
  }
});
