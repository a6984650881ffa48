/**
 * Where the viewer's import of a large session goes, in Chromium: read, split lines,
 * JSON.parse, the full parse (validation), the store's row preparation, and the SQLite
 * insert on the `opfs` VFS (what the viewer uses on its cross-origin isolated page) and on
 * `opfs-sahpool`, at sqlite-wasm's default page size (8 KiB) and at 64 KiB. Each phase runs over the whole file on its own.
 *
 * `deno run -A bench/browser/import_breakdown.ts [--entries=100000] [--bytes]` (prints a table;
 * writes nothing). `--variants='[{"vfs":"opfs","pageSize":65536,"bytes":true,"pragmas":["cache_size =
 * -65536"]}]'` measures those stores instead; `--create-only` skips the split and parse phases;
 * `--profile` prints each thread's functions with the most CPU time (from a trace).
 * @module
 */
import { ensureSession } from "../generate.ts";
import { REPO } from "../jobs.ts";
import type { Harness } from "./types.ts";
import { profileThreads } from "./_trace_profile.ts";

const entries = Number(
  Deno.args.find((a) => a.startsWith("--entries="))?.slice(10) ?? 10000,
);
const data = await ensureSession(entries);
const harness = await import(
  new URL("tests/browser/harness.ts", `file://${REPO}`).href
) as Harness;
const dir = await harness.bundleBrowserEntries({
  name: "import_breakdown",
  pages: ["bench/browser/import_breakdown_page.ts"],
  workers: ["bench/browser/import_breakdown_worker.ts"],
});
await Deno.symlink(data.file, `${dir}/session.jsonl`).catch(() => {});
const server = harness.serveDirectory({ root: dir, isolated: true });
const profile = await Deno.makeTempDir({ prefix: "mu-bench-breakdown-" });
// `--bytes`: the viewer's store (opfs, 64 KiB pages) with entries keeping their text, then
// their bytes (imp12), twice, interleaved; otherwise the VFS and page-size comparison.
const given = Deno.args.find((a) => a.startsWith("--variants="))?.slice(11);
const variants = given
  ? JSON.parse(given)
  : Deno.args.includes("--bytes")
  ? [false, true, false, true].map((bytes) => ({ vfs: "opfs", pageSize: 65536, bytes }))
  : [
    { vfs: "opfs", pageSize: 8192 }, // sqlite-wasm's default
    { vfs: "opfs", pageSize: 65536 },
    { vfs: "opfs-sahpool", pageSize: 8192 },
    { vfs: "opfs-sahpool", pageSize: 65536 },
  ];
try {
  const browser = await harness.launchChromium({ userDataDir: profile });
  try {
    const page = await browser.newPage();
    // The page's own errors (a 404, a worker that fails) say more than a timeout would.
    const events = page as unknown as { on(e: string, f: (m: unknown) => void): void };
    events.on("pageerror", (e) => console.error("page error:", e));
    await page.goto(
      `${server.url}/import_breakdown_page.html?file=session.jsonl&variants=${
        encodeURIComponent(JSON.stringify(variants))
      }${Deno.args.includes("--create-only") ? "&createOnly" : ""}`,
    );
    const done = () =>
      page.waitForFunction("globalThis.__benchResult !== undefined", undefined, {
        timeout: 900_000,
        polling: 500,
      });
    // `--profile`: where every thread's CPU time went (the worker's, mostly).
    if (Deno.args.includes("--profile")) {
      const context = (browser as unknown as {
        context: { newCDPSession(p: unknown): Promise<Parameters<typeof profileThreads>[0]> };
      }).context;
      await profileThreads(await context.newCDPSession(page), done);
    } else await done();
    const result = await page.evaluate<{ error?: string; timings: Record<string, number> }>(
      "globalThis.__benchResult",
    );
    if (result.error) throw new Error(result.error);
    const mb = data.bytes / 1e6;
    console.log(`${entries} entries, ${mb.toFixed(0)} MB; load ${Deno.loadavg().join(" ")}`);
    let before = 0;
    for (const [phase, ms] of Object.entries(result.timings)) {
      // read, split, jsonParse and parseValidate each include the one before; the rest not.
      const cumulative = ["read", "split", "jsonParse"].includes(phase);
      const step = cumulative ? ms - before : ms;
      const rate = cumulative || /^(create|parse|split|rowPrep|close)/.test(phase)
        ? `, ${(mb / (ms / 1000)).toFixed(1)} MB/s`
        : "";
      if (cumulative) before = ms;
      console.log(
        `${phase.padEnd(26)} ${ms.toFixed(0).padStart(7)} ms  (this step ${
          step.toFixed(0).padStart(6)
        } ms${rate})`,
      );
    }
  } finally {
    await browser.close();
  }
} finally {
  await server.close();
  await Deno.remove(profile, { recursive: true }).catch(() => {});
}
