/**
 * Browser benchmark: import the large session into OPFS SQLite (sqlite-wasm,
 * `opfs-sahpool`) in a worker, in Chromium via playwright-core, and record the longest
 * main-thread task while it runs. Reuses the browser test harness (esbuild bundling,
 * static server, Chromium launch); when the harness or the wasm store is missing the rows
 * say "not available yet".
 *
 * A persistent profile in a temp folder is used so OPFS writes reach the disk, as they
 * would for a user (an off-the-record context may keep storage in memory).
 * @module
 */
import type { SessionData } from "../generate.ts";
import { REPO, type Row } from "../jobs.ts";
import type { Harness } from "./types.ts";
import { runViewerBench } from "./viewer.ts";

interface PageResult {
  error?: string;
  timings?: Record<string, number>;
  entries?: number;
  wallMs?: number;
  longtasks?: { start: number; duration: number }[];
  longestTaskMs?: number;
  maxTimerGapMs?: number;
}

/** One import: it takes about a minute on this machine, and the budget is ten. */
const RUNS = 1;

/** The browser test harness, or why it is not available. */
async function loadHarness(): Promise<Harness | string> {
  for (const path of ["tests/browser/harness.ts", "stores/sqlite/wasm.ts"]) {
    if (!(await Deno.stat(`${REPO}${path}`).catch(() => null))) {
      return `not available yet (${path} missing)`;
    }
  }
  try {
    return await import(new URL("tests/browser/harness.ts", `file://${REPO}`).href) as Harness;
  } catch (error) {
    return `not available yet (harness failed to load: ${(error as Error).message})`;
  }
}

/**
 * Only the viewer case (import through `web/`, open, scroll), without the worker-only
 * import before it: what `--smoke --only=browser` runs, on a smaller session.
 */
export async function runViewerOnly(data: SessionData): Promise<Row[]> {
  const harness = await loadHarness();
  if (typeof harness === "string") {
    return [{
      section: "browser",
      runtime: "chromium",
      subject: `${data.entries} entries`,
      name: "viewer import (web/, OPFS SQLite)",
      unavailable: harness,
    }];
  }
  return await runViewerBench(data, harness);
}

/** Rows for the browser section (never throws). */
export async function runBrowserBench(data: SessionData): Promise<Row[]> {
  const subject = `${data.entries} entries, ${(data.bytes / 1e6).toFixed(0)} MB`;
  const base = { section: "browser", runtime: "chromium" as const, subject };
  const names = ["import into OPFS SQLite (worker)", "longest main-thread task"];
  const unavailable = (why: string): Row[] =>
    names.map((name) => ({ ...base, name, unavailable: why }));
  const harness = await loadHarness();
  if (typeof harness === "string") return unavailable(harness);
  let dir: string;
  try {
    dir = await harness.bundleBrowserEntries({
      name: "bench",
      pages: ["bench/browser/bench_page.ts"],
      workers: ["bench/browser/bench_worker.ts"],
    });
  } catch (error) {
    return unavailable(
      `not available yet (bundle failed: ${(error as Error).message.split("\n")[0]})`,
    );
  }
  await Deno.symlink(data.file, `${dir}/session.jsonl`);
  const server = harness.serveDirectory({ root: dir, isolated: false });
  const profile = await Deno.makeTempDir({ prefix: "mu-bench-chromium-" });
  const results: PageResult[] = [];
  let failure: string | undefined;
  try {
    const browser = await harness.launchChromium({ userDataDir: profile });
    try {
      for (let run = 0; run < RUNS && !failure; run++) {
        const page = await browser.newPage();
        await page.goto(`${server.url}/bench_page.html?file=session.jsonl&size=${data.bytes}`);
        await page.waitForFunction("globalThis.__benchResult !== undefined", undefined, {
          timeout: 600_000, // import + the first search, which builds the deferred index
          polling: 500,
        });
        const result = await page.evaluate<PageResult>("globalThis.__benchResult");
        if (result.error) failure = result.error;
        else results.push(result);
      }
    } finally {
      await browser.close();
    }
  } catch (error) {
    failure = (error as Error).message.split("\n")[0];
  } finally {
    await server.close();
    await Deno.remove(profile, { recursive: true }).catch(() => {});
  }
  const viewer = await runViewerBench(data, harness);
  if (!results.length) {
    return [...names.map((name) => ({ ...base, name, error: failure ?? "no result" })), ...viewer];
  }
  // The first import runs into an empty database, a later one replaces it (delete + create).
  const totals = results.map((r) => r.timings!.totalMs);
  const first = results[0];
  const worstTask = Math.max(...results.map((r) => r.longestTaskMs ?? 0));
  const worstGap = Math.max(...results.map((r) => r.maxTimerGapMs ?? 0));
  return [
    ...viewer,
    {
      ...base,
      name: names[0],
      medianMs: first.timings!.totalMs,
      samples: totals,
      facts: {
        ...first.timings,
        mbPerS: data.bytes / 1e6 / (first.timings!.totalMs / 1000),
        note: `${(data.bytes / 1e6 / (first.timings!.totalMs / 1000)).toFixed(1)} MB/s; parse ${
          (first.timings!.fetchParseMs / 1000).toFixed(1)
        } s + insert ${(first.timings!.createMs / 1000).toFixed(1)} s (first run, empty database)${
          first.timings!.firstSearchMs === undefined
            ? ""
            : `; first search after it (builds the deferred search index): first hits ${
              ((first.timings!.firstHitsMs ?? first.timings!.firstSearchMs) / 1000).toFixed(1)
            } s, all ${(first.timings!.firstSearchMs / 1000).toFixed(1)} s`
        }`,
      },
    },
    {
      ...base,
      name: names[1],
      medianMs: worstTask,
      samples: results.map((r) => r.longestTaskMs ?? 0),
      facts: {
        longtasks: results.reduce((n, r) => n + (r.longtasks?.length ?? 0), 0),
        maxTimerGapMs: worstGap,
        note: `worst of ${results.length} imports; longtask entries (≥ 50 ms) during import: ${
          results.map((r) =>
            r.longtasks?.map((t) =>
              `${t.duration.toFixed(0)} ms at +${(t.start / 1000).toFixed(1)} s`
            ).join(", ") || "none"
          ).join(" / ")
        }; largest 10 ms-timer gap ${worstGap.toFixed(0)} ms`,
      },
    },
  ];
}
