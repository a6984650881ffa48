/**
 * Browser tests: bundles the pages under `tests/browser/pages/` with the SQLite worker,
 * serves them with and without cross-origin isolation, and runs them in Debian's Chromium
 * via playwright-core. Each in-page test becomes a step here.
 *
 * - conformance, not isolated: sqlite-wasm on opfs-sahpool, IndexedDB, JSONL on an OPFS folder
 * - conformance, isolated: sqlite-wasm on the opfs VFS
 * - persistence: every store keeps its data across a page reload and a browser restart
 * - two tabs: the opfs-sahpool pool passes from one tab to the next when its store closes
 *
 * Run: deno test --allow-read --allow-write --allow-env --allow-run --allow-net tests/deno/browser.test.ts
 */
import type { Page } from "playwright-core";
import {
  bundleBrowserEntries,
  type ChromiumSession,
  launchChromium,
  reportSteps,
  runPageTests,
  type ServedDirectory,
  serveDirectory,
} from "../browser/harness.ts";

/** Stores that work on any page, and those that need cross-origin isolation. */
const PLAIN_STORES = "sqlite-sahpool,indexeddb,jsonl-fsa";
const ISOLATED_STORES = "sqlite-opfs";

const browserTest = (name: string, fn: (t: Deno.TestContext) => Promise<void>) =>
  // playwright keeps a pipe to the browser process and timers of its own between steps.
  Deno.test({ name, sanitizeOps: false, sanitizeResources: false, fn });

let storesBundle: Promise<string> | undefined;
function bundleStorePages(): Promise<string> {
  return storesBundle ??= bundleBrowserEntries({
    name: "stores",
    pages: [
      "tests/browser/pages/stores_page.ts",
      "tests/browser/pages/persist_page.ts",
      "tests/browser/pages/tabs_page.ts",
    ],
    workers: ["stores/browser/opfs_worker.ts"],
  });
}

/** Serve the store pages both ways, run `fn`, always shut everything down. */
async function withServers(
  fn: (plain: ServedDirectory, isolated: ServedDirectory) => Promise<void>,
): Promise<void> {
  const root = await bundleStorePages();
  const plain = serveDirectory({ root, isolated: false });
  const isolated = serveDirectory({ root, isolated: true });
  try {
    await fn(plain, isolated);
  } finally {
    await plain.close();
    await isolated.close();
  }
}

async function withBrowser(
  fn: (browser: ChromiumSession) => Promise<void>,
  userDataDir?: string,
): Promise<void> {
  const browser = await launchChromium({ userDataDir });
  try {
    await fn(browser);
  } finally {
    await browser.close();
  }
}

browserTest("browser harness: runner, reporting and isolation switch", async (t) => {
  const dir = await bundleBrowserEntries({
    name: "smoke",
    pages: ["tests/browser/pages/smoke_page.ts"],
    sqliteAssets: false,
  });
  const isolated = serveDirectory({ root: dir });
  const plain = serveDirectory({ root: dir, isolated: false });
  try {
    await withBrowser(async (browser) => {
      const page = await browser.newPage();
      await reportSteps(
        t,
        await runPageTests(page, `${isolated.url}/smoke_page.html?isolated=1`),
        "isolated: ",
      );
      await reportSteps(t, await runPageTests(page, `${plain.url}/smoke_page.html`), "plain: ");
      const failing = await runPageTests(page, `${plain.url}/smoke_page.html?fail`);
      const failure = failing.results.find((result) => !result.ok);
      if (!failure?.error?.startsWith("TypeError: deliberate")) {
        throw new Error(`a failing page test was not reported: ${JSON.stringify(failing.results)}`);
      }
    });
  } finally {
    await isolated.close();
    await plain.close();
  }
});

browserTest("browser stores: conformance without cross-origin isolation", async (t) => {
  await withServers(async (plain) => {
    await withBrowser(async (browser) => {
      const page = await browser.newPage();
      await reportSteps(
        t,
        await runPageTests(page, `${plain.url}/stores_page.html?stores=${PLAIN_STORES}`),
      );
    });
  });
});

browserTest("browser stores: conformance when cross-origin isolated (opfs VFS)", async (t) => {
  await withServers(async (_plain, isolated) => {
    await withBrowser(async (browser) => {
      const page = await browser.newPage();
      await reportSteps(
        t,
        await runPageTests(page, `${isolated.url}/stores_page.html?stores=${ISOLATED_STORES}`),
      );
    });
  });
});

browserTest("browser stores: data survives a page reload and a browser restart", async (t) => {
  const tag = crypto.randomUUID().slice(0, 8);
  const userDataDir = await Deno.makeTempDir({ prefix: "mu-sessions-chromium-" });
  const pages = (plain: ServedDirectory, isolated: ServedDirectory, phase: string) => [
    `${plain.url}/persist_page.html?stores=${PLAIN_STORES}&phase=${phase}&tag=${tag}`,
    `${isolated.url}/persist_page.html?stores=${ISOLATED_STORES}&phase=${phase}&tag=${tag}`,
  ];
  try {
    await withServers(async (plain, isolated) => {
      await withBrowser(async (browser) => {
        const page = await browser.newPage();
        for (const url of pages(plain, isolated, "write")) {
          await reportSteps(t, await runPageTests(page, url), "before reload: ");
        }
        for (const url of pages(plain, isolated, "verify")) {
          await reportSteps(t, await runPageTests(page, url), "after reload: ");
        }
      }, userDataDir);
      // Same profile folder and the same origins (ports): a restarted browser.
      await withBrowser(async (browser) => {
        const page = await browser.newPage();
        for (const url of pages(plain, isolated, "verify")) {
          await reportSteps(t, await runPageTests(page, url), "after browser restart: ");
        }
        for (const url of pages(plain, isolated, "cleanup")) {
          await reportSteps(t, await runPageTests(page, url), "cleanup: ");
        }
      }, userDataDir);
    });
  } finally {
    await Deno.remove(userDataDir, { recursive: true }).catch(() => {});
  }
});

browserTest("browser stores: opfs-sahpool passes from one tab to the next on close", async (t) => {
  await withServers(async (plain) => {
    await withBrowser(async (browser) => {
      const filename = `/mu-tests/tabs-${crypto.randomUUID().slice(0, 8)}.sqlite3`;
      const tab = async () => {
        const page = await browser.newPage();
        await page.goto(`${plain.url}/tabs_page.html`, { timeout: 30_000 });
        await page.waitForFunction(() => "__muTab" in globalThis, null, { timeout: 30_000 });
        return page;
      };
      type TabApi = Record<string, (...args: unknown[]) => Promise<string>>;
      const call = (page: Page, method: string, ...args: unknown[]): Promise<string> =>
        page.evaluate(
          ([m, a]) => (globalThis as unknown as { __muTab: TabApi }).__muTab[m](...a),
          [method, args] as [string, unknown[]],
        );
      const expect = async (what: string, actual: Promise<string>, expected: RegExp) => {
        await t.step(what, async () => {
          const value = await actual;
          if (!expected.test(value)) throw new Error(`got "${value}", expected ${expected}`);
        });
      };
      const first = await tab();
      const second = await tab();
      await expect(
        "the first tab opens the store",
        call(first, "open", filename, 10_000),
        /^open$/,
      );
      await call(first, "write", "from-first");
      await expect(
        "the second tab gives up cleanly while the first holds the pool",
        call(second, "open", filename, 1_000),
        /^SessionStorageError: /,
      );
      await call(first, "close");
      await expect(
        "after the first tab closes its store, the second opens it",
        call(second, "open", filename, 10_000),
        /^open$/,
      );
      await expect("and sees what the first wrote", call(second, "ids"), /^from-first$/);
      await call(second, "close");
    });
  });
});
