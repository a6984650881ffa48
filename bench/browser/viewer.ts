/**
 * The same browser measurement through the real viewer (`web/`): build it, serve it
 * cross-origin isolated (as `web/serve.ts` does, so sqlite-wasm uses the `opfs` VFS), hand
 * the 100k file to its `#file-input`, and wait for its `#progress` bar to appear and hide
 * again. An init script installs the `longtask` observer and the 10 ms timer before the
 * viewer's own code runs. Everything here depends on the viewer's DOM, so when the viewer
 * changes shape the rows say so ("not available") instead of failing the run.
 * @module
 */
import type { SessionData } from "../generate.ts";
import { REPO, type Row } from "../jobs.ts";
import type { Harness, Page } from "./types.ts";
import { measureScroll } from "./viewer_scroll.ts";

// The viewer's CSP forbids eval, so every page function is passed as a function (run
// through the DevTools protocol), never as a string; functions are serialised, so they
// may not use anything from this module's scope (types are fine: they are erased).
type Monitor = {
  longtasks: { start: number; duration: number }[];
  maxGap: number;
  started: number;
};

/** The init script: longtask and long-animation-frame observers, a 10 ms timer. */
export const MONITOR = `
  globalThis.__bench = { longtasks: [], maxGap: 0, started: 0 };
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) globalThis.__bench.longtasks.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: "longtask", buffered: true });
  } catch {}
  // What a long frame spent its time on (script, forced layout, rendering), where supported.
  globalThis.__bench.frames = [];
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        globalThis.__bench.frames.push({
          start: e.startTime,
          duration: e.duration,
          render: e.styleAndLayoutStart ? e.startTime + e.duration - e.styleAndLayoutStart : 0,
          scripts: e.scripts.map((s) => ({
            invoker: String(s.invoker).slice(0, 60),
            duration: s.duration,
            forcedLayout: s.forcedStyleAndLayoutDuration,
          })),
        });
      }
    }).observe({ type: "long-animation-frame", buffered: true });
  } catch {}
  let last = performance.now();
  setInterval(() => {
    const now = performance.now();
    if (globalThis.__bench.started) globalThis.__bench.maxGap = Math.max(globalThis.__bench.maxGap, now - last);
    last = now;
  }, 10);
`;

/** Rows for the viewer import (never throws). */
export async function runViewerBench(data: SessionData, harness: Harness): Promise<Row[]> {
  const subject = `${data.entries} entries, ${(data.bytes / 1e6).toFixed(0)} MB`;
  const base = { section: "browser", runtime: "chromium" as const, subject };
  const names = [
    "viewer import (web/, OPFS SQLite)",
    "viewer: longest main-thread task",
    "viewer: open the imported session, first context page",
    "viewer: open the imported session, first tree rows",
  ];
  const unavailable = (why: string): Row[] =>
    names.map((name) => ({ ...base, name, unavailable: why }));
  let outDir: string;
  try {
    const build = await import(new URL("web/build.ts", `file://${REPO}`).href);
    outDir = (await build.buildViewer({ outDir: `${REPO}dist/browser/bench-viewer` })).outDir;
  } catch (error) {
    return unavailable(
      `not available yet (viewer build: ${(error as Error).message.split("\n")[0]})`,
    );
  }
  const server = harness.serveDirectory({ root: outDir, isolated: true });
  const profile = await Deno.makeTempDir({ prefix: "mu-bench-viewer-" });
  try {
    const browser = await harness.launchChromium({ userDataDir: profile });
    try {
      const page = await browser.newPage();
      await page.addInitScript(MONITOR);
      // The rows time the Context tab; a new reader's sessions open on the Conversation tab.
      await page.addInitScript(`localStorage.setItem("mu.viewer.tab", "context");`);
      await page.goto(`${server.url}/index.html`);
      // Storage is chosen by the worker; the badge stops saying "…" once it is open.
      await page.waitForFunction(
        () => document.getElementById("storage")?.textContent?.trim() !== "…",
        undefined,
        { timeout: 60_000, polling: 100 },
      );
      const storage = await page.evaluate(() =>
        document.getElementById("storage")?.textContent ?? ""
      );
      await page.evaluate(() => {
        (globalThis as unknown as { __bench: Monitor }).__bench.started = performance.now();
      });
      const t0 = performance.now();
      await importFile(page, data.file, 300_000);
      const wallMs = performance.now() - t0;
      const result = await page.evaluate(() => ({
        ...(globalThis as unknown as { __bench: Monitor }).__bench,
        toasts: document.getElementById("toasts")?.innerText ?? "",
      }));
      const during = result.longtasks.filter((t) => t.start + t.duration >= result.started);
      const longest = during.reduce((max, t) => Math.max(max, t.duration), 0);
      const toast = result.toasts.trim().split("\n")[0] ?? "";
      const opened = await openFirstSession(page);
      const mbPerS = data.bytes / 1e6 / (wallMs / 1000);
      const scrolled = typeof opened === "number" ? await measureScroll(page, base) : [];
      return [
        {
          ...base,
          name: names[0],
          medianMs: wallMs,
          samples: [wallMs],
          facts: {
            storage,
            mbPerS,
            note: `storage ${storage.trim()}; ${
              (data.bytes / 1e6 / (wallMs / 1000)).toFixed(1)
            } MB/s from file pick to progress hidden${
              toast ? `; toast: ${toast.slice(0, 80)}` : ""
            }`,
          },
        },
        {
          ...base,
          name: names[1],
          medianMs: longest,
          samples: [longest],
          facts: {
            maxTimerGapMs: result.maxGap,
            note: `longtask entries during import: ${
              during.map((t) =>
                `${t.duration.toFixed(0)} ms at +${
                  ((t.start - result.started) / 1000).toFixed(1)
                } s`
              ).join(", ") ||
              "none"
            }; largest 10 ms-timer gap ${result.maxGap.toFixed(0)} ms`,
          },
        },
        typeof opened === "number"
          ? {
            ...base,
            name: names[2],
            medianMs: opened,
            samples: [opened],
            facts: {
              note: "click on the imported session in the list until its first context item " +
                "is shown (measured from the test driver: includes a few ms of round trips)",
            },
          }
          : { ...base, name: names[2], unavailable: opened },
        treeTimes.firstRows !== undefined && treeTimes.fullLoad !== undefined
          ? {
            ...base,
            name: names[3],
            medianMs: treeTimes.firstRows,
            samples: [treeTimes.firstRows],
            facts: {
              fullLoadMs: treeTimes.fullLoad,
              note: `from the click to the first tree row; the full load ended at ${
                (treeTimes.fullLoad / 1000).toFixed(1)
              } s (the facts' counts shown), which the tree waited for before`,
            },
          }
          : { ...base, name: names[3], unavailable: "the tree's rows were not seen" },
        ...scrolled,
      ];
    } finally {
      await browser.close();
    }
  } catch (error) {
    return unavailable(
      `viewer run failed (its DOM may have changed): ${(error as Error).message.split("\n")[0]}`,
    );
  } finally {
    await server.close();
    await Deno.remove(profile, { recursive: true }).catch(() => {});
  }
}

/** When the tree's first rows showed, and when the full load ended, from the open (ms). */
const treeTimes: { firstRows?: number; fullLoad?: number } = {};

/**
 * Open the (only) imported session from the list and time it until the first context item
 * shows (then, in {@link treeTimes}, its tree's first rows and the full load's end); a
 * string says why it could not (the viewer's DOM changed).
 */
async function openFirstSession(page: Page): Promise<number | string> {
  try {
    await page.waitForSelector("#session-table .session-link", { timeout: 30_000 });
    const t0 = performance.now();
    await page.click("#session-table .session-link");
    await page.waitForSelector(".session-page #context-view .context-item", { timeout: 120_000 });
    const context = performance.now() - t0;
    // The tree's first rows, and the full load's end (the facts' entry count replaces "…").
    await page.waitForSelector(".session-page .tree-row[data-id]", { timeout: 300_000 });
    treeTimes.firstRows = performance.now() - t0;
    await page.waitForFunction(
      () => !/entries\W*…/.test(document.querySelector(".facts-block")?.textContent ?? ""),
      undefined,
      { timeout: 300_000, polling: 20 },
    );
    treeTimes.fullLoad = performance.now() - t0;
    return context;
  } catch (error) {
    return `not measured (the viewer's DOM may have changed): ${
      (error as Error).message.split("\n")[0]
    }`;
  }
}

/**
 * Pick `file` in the viewer and wait until its import is over: the progress bar shows, then
 * hides (within `timeoutMs`).
 */
export async function importFile(page: Page, file: string, timeoutMs: number): Promise<void> {
  await page.setInputFiles("#file-input", file);
  await page.waitForFunction(() => !document.getElementById("progress")?.hidden, undefined, {
    timeout: 60_000,
    polling: 20,
  });
  await page.waitForFunction(() => !!document.getElementById("progress")?.hidden, undefined, {
    timeout: timeoutMs,
    polling: 100,
  });
}
