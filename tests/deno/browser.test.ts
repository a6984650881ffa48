/**
 * Browser tests: bundles the pages under `tests/browser/pages/`, serves them with and
 * without cross-origin isolation, and runs them in Debian's Chromium via playwright-core.
 * Each in-page test becomes a step here.
 *
 * Run: deno test --allow-read --allow-write --allow-env --allow-run --allow-net tests/deno/browser.test.ts
 */
import {
  bundleBrowserEntries,
  launchChromium,
  reportSteps,
  runPageTests,
  serveDirectory,
} from "../browser/harness.ts";

const browserTest = (name: string, fn: (t: Deno.TestContext) => Promise<void>) =>
  // playwright keeps a pipe to the browser process and timers of its own between steps.
  Deno.test({ name, sanitizeOps: false, sanitizeResources: false, fn });

browserTest("browser harness: runner, reporting and isolation switch", async (t) => {
  const dir = await bundleBrowserEntries({
    name: "smoke",
    pages: ["tests/browser/pages/smoke_page.ts"],
    sqliteAssets: false,
  });
  const isolated = serveDirectory({ root: dir });
  const plain = serveDirectory({ root: dir, isolated: false });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await reportSteps(
      t,
      await runPageTests(page, `${isolated.url}/smoke_page.html?isolated=1`, { timeoutMs: 30_000 }),
      "isolated: ",
    );
    await reportSteps(
      t,
      await runPageTests(page, `${plain.url}/smoke_page.html`, { timeoutMs: 30_000 }),
      "not isolated: ",
    );
    const failing = await runPageTests(page, `${plain.url}/smoke_page.html?fail`);
    const failure = failing.results.find((result) => !result.ok);
    if (!failure?.error?.startsWith("TypeError: deliberate")) {
      throw new Error(`a failing page test was not reported: ${JSON.stringify(failing.results)}`);
    }
  } finally {
    await browser.close();
    await isolated.close();
    await plain.close();
  }
});
