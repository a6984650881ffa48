/**
 * Deno-side browser test harness: bundle browser entries with esbuild, serve them from
 * 127.0.0.1 (cross-origin isolated or not), drive Debian's Chromium through playwright-core,
 * and turn the results of a page's test run (`tests/browser/runner.ts`) into `Deno.test`
 * steps with readable failure messages. Every wait is bounded so CI never hangs.
 *
 * Needs `--allow-run --allow-net --allow-read --allow-write --allow-env`.
 *
 * @example
 * ```ts
 * import { bundleBrowserEntries, launchChromium, runPageTests, serveDirectory, reportSteps } from "./harness.ts";
 * Deno.test({ name: "browser", sanitizeOps: false, sanitizeResources: false }, async (t) => {
 *   const dir = await bundleBrowserEntries({ name: "demo", pages: ["tests/browser/pages/demo_page.ts"] });
 *   const server = serveDirectory({ root: dir });
 *   const browser = await launchChromium();
 *   try {
 *     const report = await runPageTests(await browser.newPage(), `${server.url}/demo_page.html`);
 *     await reportSteps(t, report);
 *   } finally {
 *     await browser.close();
 *     await server.close();
 *   }
 * });
 * ```
 *
 * @module
 */
import "./node_os_shim.ts"; // must run before playwright-core loads
import {
  type BrowserContext,
  type BrowserContextOptions,
  chromium,
  type Page,
} from "playwright-core";
import type { PageReport, PageTestResult } from "./runner.ts";

// One import for test files: the page protocol types and the bundling/serving helpers.
export type { PageReport, PageTestResult } from "./runner.ts";
export * from "./static.ts";

if (Deno.env.get("__IS_WSL_TEST__") === "deferred") Deno.env.delete("__IS_WSL_TEST__");

/**
 * Where Debian's Chromium lives; playwright never downloads its own here.
 *
 * @example
 * ```ts
 * import { CHROMIUM_PATH } from "./harness.ts";
 * console.log(CHROMIUM_PATH); // "/usr/bin/chromium" unless $CHROMIUM_PATH says otherwise
 * ```
 */
export const CHROMIUM_PATH: string = Deno.env.get("CHROMIUM_PATH") ?? "/usr/bin/chromium";

/**
 * Launch flags that work on these machines (see TOOLCHAIN.md).
 *
 * @example
 * ```ts
 * import { chromium } from "playwright-core";
 * import { CHROMIUM_ARGS, CHROMIUM_PATH } from "./harness.ts";
 * const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS] });
 * ```
 */
export const CHROMIUM_ARGS: readonly string[] = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * Options for {@link launchChromium}.
 *
 * @example
 * ```ts
 * import { launchChromium } from "./harness.ts";
 * const browser = await launchChromium({ contextOptions: { bypassCSP: true } });
 * ```
 */
export interface LaunchOptions {
  /**
   * A user-data-dir: use `launchPersistentContext`, so storage (OPFS, IndexedDB) survives
   * closing and relaunching the browser with the same folder.
   */
  userDataDir?: string;
  /** Launch limit (default 30 s). */
  timeoutMs?: number;
  /** Extra context options, e.g. `{ bypassCSP: true }` or a `viewport`. */
  contextOptions?: BrowserContextOptions;
}

/**
 * A launched browser: one context, pages from it, and a bounded close.
 *
 * @example
 * ```ts
 * import { launchChromium } from "./harness.ts";
 * const browser = await launchChromium();
 * const page = await browser.newPage();
 * await browser.close();
 * ```
 */
export interface ChromiumSession {
  context: BrowserContext;
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

/**
 * Fail early and say how to fix it, instead of a cryptic spawn error.
 *
 * @example
 * ```ts
 * import { assertChromiumInstalled } from "./harness.ts";
 * await assertChromiumInstalled(); // throws "... apt-get install -y chromium ..." when missing
 * ```
 */
export async function assertChromiumInstalled(): Promise<void> {
  try {
    await Deno.stat(CHROMIUM_PATH);
  } catch {
    throw new Error(
      `Chromium not found at ${CHROMIUM_PATH}. Install it with: apt-get install -y chromium ` +
        `(or set CHROMIUM_PATH). Do not run "npx playwright install".`,
    );
  }
}

/**
 * Launch Chromium (headless, TOOLCHAIN flags). With `userDataDir` the browser keeps its
 * profile there, for restart tests.
 *
 * @example
 * ```ts
 * import { launchChromium } from "./harness.ts";
 * const browser = await launchChromium({ userDataDir: await Deno.makeTempDir() });
 * const page = await browser.newPage();
 * await browser.close();
 * ```
 */
export async function launchChromium(options: LaunchOptions = {}): Promise<ChromiumSession> {
  await assertChromiumInstalled();
  const launch = {
    executablePath: CHROMIUM_PATH,
    args: [...CHROMIUM_ARGS],
    headless: true,
    timeout: options.timeoutMs ?? 30_000,
  };
  if (options.userDataDir) {
    const context = await chromium.launchPersistentContext(options.userDataDir, {
      ...launch,
      ...options.contextOptions,
    });
    return {
      context,
      newPage: () => context.newPage(),
      close: () => boundedClose(() => context.close()),
    };
  }
  const browser = await chromium.launch(launch);
  const context = await browser.newContext(options.contextOptions);
  return {
    context,
    newPage: () => context.newPage(),
    close: () => boundedClose(() => browser.close()),
  };
}

async function boundedClose(close: () => Promise<void>): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    close(),
    new Promise<void>((resolve) => timer = setTimeout(resolve, 10_000)),
  ]).finally(() => clearTimeout(timer));
}

/**
 * What a page run produced.
 *
 * @example
 * ```ts
 * import type { PageRunReport } from "./harness.ts";
 * declare const report: PageRunReport;
 * const failed = report.results.filter((r) => !r.ok);
 * ```
 */
export interface PageRunReport {
  url: string;
  results: PageTestResult[];
  /** Last console lines, page errors and failed requests (for failure messages). */
  log: string[];
  ms: number;
}

/**
 * Options for {@link runPageTests}.
 *
 * @example
 * ```ts
 * import { runPageTests } from "./harness.ts";
 * declare const page: import("playwright-core").Page;
 * await runPageTests(page, "http://127.0.0.1:8000/stores_page.html", { timeoutMs: 60_000, verbose: true });
 * ```
 */
export interface PageRunOptions {
  /** Limit for the whole page run (default 120 s). */
  timeoutMs?: number;
  /** Echo the page console to stderr as it happens (default: env `BROWSER_TEST_VERBOSE`). */
  verbose?: boolean;
}

const reporterPages = new WeakSet<Page>();
const pageListeners = new WeakMap<Page, (report: PageReport) => void>();

/**
 * Open `url` in `page` and collect the results of its `runRegisteredTests()` run. Rejects
 * (with the page log) on a page error before the run finished, on a `reportFatal`, or on
 * timeout. Reuse the same page for reload tests: navigating again starts a new run.
 *
 * @example
 * ```ts
 * import { runPageTests } from "./harness.ts";
 * declare const page: import("playwright-core").Page;
 * const report = await runPageTests(page, "http://127.0.0.1:8000/stores_page.html?phase=write");
 * ```
 */
export async function runPageTests(
  page: Page,
  url: string,
  options: PageRunOptions = {},
): Promise<PageRunReport> {
  const timeoutMs = options.timeoutMs ?? 120_000;
  const verbose = options.verbose ?? Boolean(Deno.env.get("BROWSER_TEST_VERBOSE"));
  const log: string[] = [];
  const note = (line: string) => {
    log.push(line);
    if (log.length > 60) log.shift();
    if (verbose) console.error(`[page] ${line}`);
  };
  const started = performance.now();
  const results: PageTestResult[] = [];
  let settle!: (error?: Error) => void;
  const finished = new Promise<void>((resolve, reject) => {
    settle = (error) => error ? reject(error) : resolve();
  });
  // The page may fail while goto() is still loading it, before anything awaits `finished`.
  finished.catch(() => {});
  pageListeners.set(page, (report) => {
    if (report.type === "result") {
      results.push(report.result);
      note(`${report.result.ok ? "ok  " : "FAIL"} ${report.result.name} (${report.result.ms} ms)`);
    } else if (report.type === "done") settle();
    else if (report.type === "fatal") settle(new Error(`page setup failed: ${report.error}`));
  });
  if (!reporterPages.has(page)) {
    reporterPages.add(page);
    await page.exposeFunction("__muReport", (report: PageReport) => {
      pageListeners.get(page)?.(report);
    });
  }
  const onConsole = (message: { type(): string; text(): string }) =>
    note(`console.${message.type()}: ${message.text()}`);
  const onPageError = (error: Error) => {
    note(`pageerror: ${error.name}: ${error.message}`);
    settle(new Error(`uncaught error in the page: ${error.name}: ${error.message}`));
  };
  const onResponse = (response: { status(): number; url(): string }) => {
    if (response.status() >= 400) note(`HTTP ${response.status()} ${response.url()}`);
  };
  const onCrash = () => settle(new Error("the page crashed"));
  page.on("console", onConsole);
  page.on("pageerror", onPageError);
  page.on("response", onResponse);
  page.on("crash", onCrash);
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await page.goto(url, { waitUntil: "load", timeout: Math.min(timeoutMs, 30_000) });
    await Promise.race([
      finished,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`page test run timed out after ${timeoutMs} ms`)),
          timeoutMs - (performance.now() - started),
        );
      }),
    ]);
  } catch (error) {
    const done = results.map((r) => `  ${r.ok ? "ok" : "FAIL"} ${r.name}`).join("\n");
    throw new Error(
      `${(error as Error).message}\nurl: ${url}\nfinished tests:\n${done || "  (none)"}\n` +
        `page log (last lines):\n  ${log.join("\n  ")}`,
      { cause: error },
    );
  } finally {
    clearTimeout(timer);
    pageListeners.delete(page);
    page.off("console", onConsole);
    page.off("pageerror", onPageError);
    page.off("response", onResponse);
    page.off("crash", onCrash);
  }
  return { url, results, log, ms: Math.round(performance.now() - started) };
}

/**
 * Turn a page run into `Deno.test` steps, one per browser test, failing with the page's
 * error text. An empty run fails too: a page that registered nothing is a broken page.
 *
 * @example
 * ```ts
 * import { reportSteps, type PageRunReport } from "./harness.ts";
 * declare const t: Deno.TestContext, report: PageRunReport;
 * await reportSteps(t, report, "after reload: ");
 * ```
 */
export async function reportSteps(
  t: Deno.TestContext,
  report: PageRunReport,
  prefix = "",
): Promise<void> {
  if (report.results.length === 0) {
    throw new Error(`${report.url} ran no tests\npage log:\n  ${report.log.join("\n  ")}`);
  }
  for (const result of report.results) {
    await t.step(`${prefix}${result.name}`, () => {
      if (!result.ok) throw new Error(`${result.error}\n(in the browser, ${report.url})`);
    });
  }
}
