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

export type { PageReport, PageTestResult } from "./runner.ts";

if (Deno.env.get("__IS_WSL_TEST__") === "deferred") Deno.env.delete("__IS_WSL_TEST__");

/** The repository root (absolute, with a trailing slash). */
export const REPO_ROOT: string = new URL("../../", import.meta.url).pathname;

/** Where Debian's Chromium lives; playwright never downloads its own here. */
export const CHROMIUM_PATH: string = Deno.env.get("CHROMIUM_PATH") ?? "/usr/bin/chromium";

/** Launch flags that work on these machines (see TOOLCHAIN.md). */
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

const SQLITE_WASM_DIST = `${REPO_ROOT}node_modules/@sqlite.org/sqlite-wasm/dist/`;

/** Options for {@link bundleBrowserEntries}. */
export interface BundleOptions {
  /** Output folder name under `dist/browser/` (wiped first). */
  name: string;
  /** Page entries (repo-relative or absolute); each also gets `<basename>.html`. */
  pages?: string[];
  /** Worker and other entries: bundled next to the pages, no HTML. */
  workers?: string[];
  /** Extra files copied as-is into the output folder. */
  copy?: string[];
  /** Copy `sqlite3.wasm` + `sqlite3-opfs-async-proxy.js` next to the bundles (default true). */
  sqliteAssets?: boolean;
  /** Extra esbuild CLI flags (e.g. `--minify`, `--define:X=Y`). */
  esbuildArgs?: string[];
}

function basenameOf(path: string): string {
  const file = path.slice(path.lastIndexOf("/") + 1);
  return file.replace(/\.[cm]?[jt]sx?$/, "");
}

function absolute(path: string): string {
  return path.startsWith("/") ? path : `${REPO_ROOT}${path}`;
}

/**
 * Bundle browser entries (platform browser, ESM, flat output) into `dist/browser/<name>/`,
 * write an HTML page per page entry, and copy the sqlite-wasm files esbuild cannot see.
 * Returns the absolute output folder.
 *
 * @example
 * ```ts
 * import { bundleBrowserEntries } from "./harness.ts";
 * const dir = await bundleBrowserEntries({
 *   name: "stores", pages: ["tests/browser/pages/stores_page.ts"], workers: ["stores/sqlite_wasm_worker.ts"],
 * });
 * ```
 */
export async function bundleBrowserEntries(options: BundleOptions): Promise<string> {
  const outdir = `${REPO_ROOT}dist/browser/${options.name}`;
  await Deno.remove(outdir, { recursive: true }).catch(() => {});
  await Deno.mkdir(outdir, { recursive: true });
  const pages = (options.pages ?? []).map(absolute);
  const entries = [...pages, ...(options.workers ?? []).map(absolute)];
  const names = entries.map(basenameOf);
  const clash = names.find((name, i) => names.indexOf(name) !== i);
  if (clash) throw new Error(`two bundle entries are both named "${clash}"`);
  if (entries.length) {
    const { code, stderr } = await new Deno.Command(`${REPO_ROOT}node_modules/.bin/esbuild`, {
      args: [
        ...entries,
        "--bundle",
        "--platform=browser",
        "--format=esm",
        "--target=chrome120",
        "--sourcemap=inline",
        "--log-level=warning",
        `--outdir=${outdir}`,
        "--entry-names=[name]",
        ...(options.esbuildArgs ?? []),
      ],
      cwd: REPO_ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (code !== 0) {
      throw new Error(`esbuild failed (exit ${code}):\n${new TextDecoder().decode(stderr)}`);
    }
  }
  for (const page of pages) {
    const name = basenameOf(page);
    await Deno.writeTextFile(
      `${outdir}/${name}.html`,
      `<!doctype html>\n<meta charset="utf-8">\n<title>${name}</title>\n` +
        `<script type="module" src="./${name}.js"></script>\n`,
    );
  }
  if (options.sqliteAssets ?? true) {
    for (const file of ["sqlite3.wasm", "sqlite3-opfs-async-proxy.js"]) {
      await Deno.copyFile(`${SQLITE_WASM_DIST}${file}`, `${outdir}/${file}`);
    }
  }
  for (const file of options.copy ?? []) {
    const source = absolute(file);
    await Deno.copyFile(source, `${outdir}/${source.slice(source.lastIndexOf("/") + 1)}`);
  }
  return outdir;
}

const MIME_TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  mjs: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  json: "application/json",
  jsonl: "application/jsonl; charset=utf-8",
  map: "application/json",
  wasm: "application/wasm",
  txt: "text/plain; charset=utf-8",
  svg: "image/svg+xml",
  png: "image/png",
};

/** Options for {@link serveDirectory}. */
export interface ServeOptions {
  /** Absolute folder to serve. */
  root: string;
  /**
   * Send COOP `same-origin` + COEP `require-corp` (default true): pages become
   * `crossOriginIsolated`, which the sqlite-wasm `opfs` VFS needs. `false` tests the
   * `opfs-sahpool` path that works without them.
   */
  isolated?: boolean;
  /** Port (default 0: any free port). Different ports are different origins (storage). */
  port?: number;
}

/** A running static server. */
export interface ServedDirectory {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Serve a folder on 127.0.0.1 with correct MIME types (wasm included), no caching, and
 * optionally the cross-origin isolation headers.
 *
 * @example
 * ```ts
 * import { serveDirectory } from "./harness.ts";
 * const server = serveDirectory({ root: "/work/main/dist/browser/stores", isolated: false });
 * console.log(server.url);
 * await server.close();
 * ```
 */
export function serveDirectory(options: ServeOptions): ServedDirectory {
  const root = options.root.replace(/\/+$/, "");
  const isolated = options.isolated ?? true;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: options.port ?? 0, onListen: () => {} },
    async (request) => {
      const headers = new Headers({ "cache-control": "no-store" });
      if (isolated) {
        headers.set("cross-origin-opener-policy", "same-origin");
        headers.set("cross-origin-embedder-policy", "require-corp");
        headers.set("cross-origin-resource-policy", "same-origin");
      }
      let path = decodeURIComponent(new URL(request.url).pathname);
      if (path.endsWith("/")) path += "index.html";
      // Browsers ask for it on every page; a 404 would only add noise to the page log.
      if (path === "/favicon.ico") return new Response(null, { status: 204, headers });
      if (path.split("/").includes("..")) return new Response("bad path", { status: 400, headers });
      try {
        const body = await Deno.readFile(`${root}${path}`);
        const ext = path.slice(path.lastIndexOf(".") + 1).toLowerCase();
        headers.set("content-type", MIME_TYPES[ext] ?? "application/octet-stream");
        return new Response(body, { headers });
      } catch {
        return new Response(`not found: ${path}`, { status: 404, headers });
      }
    },
  );
  const port = server.addr.port;
  return { url: `http://127.0.0.1:${port}`, port, close: () => server.shutdown() };
}

/** Options for {@link launchChromium}. */
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

/** A launched browser: one context, pages from it, and a bounded close. */
export interface ChromiumSession {
  context: BrowserContext;
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

/** Fail early and say how to fix it, instead of a cryptic spawn error. */
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

/** What a page run produced. */
export interface PageRunReport {
  url: string;
  results: PageTestResult[];
  /** Last console lines, page errors and failed requests (for failure messages). */
  log: string[];
  ms: number;
}

/** Options for {@link runPageTests}. */
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
