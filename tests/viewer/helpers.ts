/**
 * Helpers for the viewer's end-to-end tests: build + serve the viewer into a temp folder,
 * launch Chromium (optionally with a persistent profile, or with CSP bypassed so the
 * hostile-content test proves the DOM itself is safe), bounded waits, and a generator of
 * large sessions for the responsiveness measurement.
 *
 * @module
 */
import "../browser/node_os_shim.ts"; // before playwright-core: no --allow-sys needed
import "./node_fs_shim.ts"; // setInputFiles with paths without --allow-sys
import { assertChromiumInstalled, CHROMIUM_ARGS, CHROMIUM_PATH } from "../browser/harness.ts";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { buildViewer } from "../../web/build.ts";
import { startViewerServer, type ViewerServer } from "../../web/serve.ts";

/** Repository root (absolute, trailing slash). */
export const ROOT: string = new URL("../../", import.meta.url).pathname;
/** Where screenshots go (gitignored). */
export const OUTPUT_DIR = `${ROOT}test-output/viewer`;

/** A built and served viewer. */
export interface ServedViewer {
  url: string;
  dir: string;
  server: ViewerServer;
  close(): Promise<void>;
}

/** Build the viewer into a fresh temp folder and serve it (COOP/COEP) on a free port. */
export async function serveFreshViewer(): Promise<ServedViewer> {
  const dir = await Deno.makeTempDir({ prefix: "mu-viewer-" });
  await buildViewer({ outDir: dir, minify: false });
  const server = await startViewerServer({ root: dir, port: 0 });
  return {
    url: server.url,
    dir,
    server,
    async close() {
      await server.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}

/** Options for {@link launchBrowser}. */
export interface BrowserOptions {
  /** Keep the profile here (storage survives closing the browser). */
  userDataDir?: string;
  /** Ignore the page's CSP: any injected script would run (the hostile test wants that). */
  bypassCSP?: boolean;
}

/** A launched browser context that always closes within a bound. */
export interface LaunchedBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Launch Debian's Chromium headless with the TOOLCHAIN flags. */
export async function launchBrowser(options: BrowserOptions = {}): Promise<LaunchedBrowser> {
  await assertChromiumInstalled();
  const launch = {
    executablePath: CHROMIUM_PATH,
    args: [...CHROMIUM_ARGS],
    headless: true,
    timeout: 30_000,
  };
  const contextOptions = {
    bypassCSP: options.bypassCSP ?? false,
    viewport: { width: 1440, height: 900 },
    acceptDownloads: true,
  };
  if (options.userDataDir) {
    const context = await chromium.launchPersistentContext(options.userDataDir, {
      ...launch,
      ...contextOptions,
    });
    return { context, close: () => bounded(context.close(), 10_000) };
  }
  const browser = await chromium.launch(launch);
  const context = await browser.newContext(contextOptions);
  return { context, close: () => bounded(browser.close(), 10_000) };
}

/** Resolve when `promise` settles or after `ms`, whichever comes first (never rejects). */
export async function bounded(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    promise.catch(() => {}),
    new Promise((resolve) => timer = setTimeout(resolve, ms)),
  ]).finally(() => clearTimeout(timer));
}

/** Reject with `label` when `promise` takes longer than `ms`. */
export async function within<T>(promise: Promise<T>, ms: number, label: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${label}`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Give a page bounded default timeouts and collect its errors and outside requests. */
export function watchPage(page: Page, origin: string): { errors: string[]; outside: string[] } {
  const errors: string[] = [];
  const outside: string[] = [];
  page.setDefaultTimeout(15_000);
  page.setDefaultNavigationTimeout(20_000);
  page.on("pageerror", (error) => errors.push(`${error.name}: ${error.message}`));
  page.on("request", (request) => {
    const url = request.url();
    if (!url.startsWith(origin) && !url.startsWith("data:") && !url.startsWith("blob:")) {
      outside.push(url);
    }
  });
  return { errors, outside };
}

/** Save a screenshot under `test-output/viewer/`. */
export async function screenshot(page: Page, name: string): Promise<string> {
  await Deno.mkdir(OUTPUT_DIR, { recursive: true });
  const path = `${OUTPUT_DIR}/${name}.png`;
  await page.screenshot({ path });
  return path;
}

/**
 * With `MU_WRITE_SCREENSHOTS=1`, copy a screenshot to `docs/<docsPath>` (the committed images
 * the README shows), so they are retaken with the viewer instead of going stale; otherwise
 * nothing (CI leaves the tree clean).
 */
export async function publishScreenshot(path: string, docsPath: string): Promise<void> {
  if (Deno.env.get("MU_WRITE_SCREENSHOTS") !== "1") return;
  const target = `${ROOT}docs/${docsPath}`;
  await Deno.mkdir(target.slice(0, target.lastIndexOf("/")), { recursive: true });
  await Deno.copyFile(path, target);
}

/** Wait until the page's app finished starting (storage opened, first route drawn). */
export async function waitReady(page: Page): Promise<void> {
  await page.waitForSelector("body[data-ready]", { timeout: 20_000 });
}

/**
 * Write a large v4 session (a long chain of user/assistant/tool entries with big tool
 * outputs) of about `targetBytes`, streaming to disk. Returns its entry count.
 */
export async function writeLargeSession(path: string, targetBytes: number): Promise<number> {
  const file = await Deno.open(path, { write: true, create: true, truncate: true });
  const writer = file.writable.getWriter();
  const encoder = new TextEncoder();
  let bytes = 0;
  const write = async (value: unknown) => {
    const line = encoder.encode(JSON.stringify(value) + "\n");
    bytes += line.length;
    await writer.write(line);
  };
  await write({
    type: "session",
    version: 4,
    id: "large-session-0001",
    createdAt: "2026-07-01T00:00:00.000Z",
    cwd: "/home/dev/large",
  });
  const filler = "lorem ipsum dolor sit amet, consectetur adipiscing elit. ".repeat(40);
  let parent: string | null = null;
  let n = 0;
  const ts = (i: number) => new Date(Date.UTC(2026, 6, 1) + i * 1000).toISOString();
  while (bytes < targetBytes) {
    const id = (++n).toString(16).padStart(8, "0");
    const kind = n % 3;
    const message = kind === 1
      ? { role: "user", content: `step ${n}: continue`, timestamp: Date.UTC(2026, 6, 1) + n * 1000 }
      : kind === 2
      ? {
        role: "assistant",
        content: [{
          type: "toolCall",
          id: `c${n}`,
          name: "bash",
          arguments: { command: `ls ${n}` },
        }],
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        usage: {
          input: 100,
          output: 20,
          cacheRead: 5000,
          cacheWrite: 0,
          totalTokens: 5120,
          cost: { total: 0.002 },
        },
        stopReason: "toolUse",
        timestamp: Date.UTC(2026, 6, 1) + n * 1000,
      }
      : {
        role: "toolResult",
        toolCallId: `c${n - 1}`,
        toolName: "bash",
        content: [{ type: "text", text: `${filler}${n}` }],
        isError: false,
        timestamp: Date.UTC(2026, 6, 1) + n * 1000,
      };
    await write({ type: "message", id, parentId: parent, timestamp: ts(n), message });
    parent = id;
  }
  await writer.close();
  return n;
}

/**
 * Serve a fresh viewer and launch Chromium for one test, with a watchdog that closes the
 * browser after `watchdogMs` so a stuck page fails the test instead of hanging CI; both
 * are always closed afterwards.
 */
export async function withViewerBrowser(
  options: BrowserOptions,
  watchdogMs: number,
  fn: (viewer: ServedViewer, browser: LaunchedBrowser) => Promise<void>,
): Promise<void> {
  const viewer = await serveFreshViewer();
  const browser = await launchBrowser(options);
  const watchdog = setTimeout(() => void browser.close(), watchdogMs);
  try {
    await fn(viewer, browser);
  } finally {
    clearTimeout(watchdog);
    await browser.close();
    await bounded(viewer.close(), 5000);
  }
}

/**
 * Open a new page of the served viewer, watched for errors and outside requests, and import
 * `files` through its file input; resolves once the session list shows them.
 */
export async function openWithImported(
  viewer: ServedViewer,
  browser: LaunchedBrowser,
  files: string[],
): Promise<{ page: Page; watch: ReturnType<typeof watchPage> }> {
  const page = await browser.context.newPage();
  const watch = watchPage(page, viewer.url.replace(/\/$/, ""));
  await page.goto(viewer.url);
  await waitReady(page);
  await page.setInputFiles("#file-input", files);
  await page.waitForSelector("#session-table .session-link");
  return { page, watch };
}

/**
 * Append one user message to a session from a separate process, as an agent would:
 * `opener` names the store-opening function (a module of this repository, relative to the
 * repository root) and the path it opens.
 */
export async function appendFromAnotherProcess(
  opener: { module: string; name: string; path: string },
  sessionId: string,
  text: string,
): Promise<void> {
  const core = new URL("../../core.ts", import.meta.url).href;
  const module = new URL(`../../${opener.module}`, import.meta.url).href;
  const writer = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `import { SessionManager } from "${core}";
      import { ${opener.name} } from "${module}";
      const store = await ${opener.name}(${JSON.stringify(opener.path)});
      const manager = await SessionManager.open(store, ${JSON.stringify(sessionId)});
      await manager.appendMessage({ role: "user", content: ${JSON.stringify(text)}, timestamp: 1 });
      await store.close();`,
    ],
    stdout: "inherit",
    stderr: "inherit",
  });
  const { code } = await writer.output();
  if (code !== 0) throw new Error(`the writer process exited with ${code}`);
}
