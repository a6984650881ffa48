/**
 * CPU time of the viewer's import, per Chromium thread (Linux `/proc/<pid>/task/<tid>/stat`,
 * user + system), so two builds compare on a loaded machine where wall-clock rates swing
 * more than a change moves them: the viewer (`web/`) is built and served cross-origin
 * isolated as in `viewer.ts`, the 100k session is handed to its `#file-input`, and the
 * CPU each thread of Chromium's processes used from the pick until the progress bar hides
 * is printed (the worker's import thread and sqlite-wasm's OPFS proxy thread are the two
 * `DedicatedWorker` threads), beside the wall time.
 *
 * `deno run -A bench/browser/import_cpu.ts [--entries=100000] [--rounds=2] [--sahpool]`
 * @module
 */
import { ensureSession } from "../generate.ts";
import { REPO } from "../jobs.ts";
import type { Harness } from "./types.ts";
import { importFile } from "./viewer.ts";

const arg = (name: string) => Deno.args.find((a) => a.startsWith(`--${name}=`))?.split("=")[1];
const entries = Number(arg("entries") ?? 100000);
const rounds = Number(arg("rounds") ?? 1);
const TICKS_PER_S = 100; // USER_HZ on Linux

/**
 * CPU ticks (user + system) of every thread of the browser started with `profile` (the
 * process whose command line names it, and its descendants: other helpers' browsers run
 * beside it), by `pid/tid`, with the thread's name.
 */
async function threadTicks(profile: string): Promise<Map<string, { name: string; ticks: number }>> {
  const parents = new Map<string, string>();
  const roots = new Set<string>();
  for await (const proc of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(proc.name)) continue;
    try {
      const stat = await Deno.readTextFile(`/proc/${proc.name}/stat`);
      parents.set(proc.name, stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const cmd = await Deno.readTextFile(`/proc/${proc.name}/cmdline`);
      if (cmd.includes(profile)) roots.add(proc.name);
    } catch {
      // a process that ended meanwhile
    }
  }
  const ours = (pid: string): boolean => {
    for (let at: string | undefined = pid, depth = 0; at && depth < 8; depth++) {
      if (roots.has(at)) return true;
      at = parents.get(at);
    }
    return false;
  };
  const out = new Map<string, { name: string; ticks: number }>();
  for (const pid of parents.keys()) {
    if (!ours(pid)) continue;
    try {
      for await (const task of Deno.readDir(`/proc/${pid}/task`)) {
        const stat = await Deno.readTextFile(`/proc/${pid}/task/${task.name}/stat`);
        const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime
        out.set(`${pid}/${task.name}`, { name, ticks });
      }
    } catch {
      // a thread that ended meanwhile
    }
  }
  return out;
}

const data = await ensureSession(entries);
const harness = await import(
  new URL("tests/browser/harness.ts", `file://${REPO}`).href
) as Harness;
const build = await import(new URL("web/build.ts", `file://${REPO}`).href);
const { outDir } = await build.buildViewer({ outDir: `${REPO}dist/browser/import-cpu-viewer` });
// `--sahpool`: served without cross-origin isolation, so the viewer takes `opfs-sahpool`.
const server = harness.serveDirectory({ root: outDir, isolated: !Deno.args.includes("--sahpool") });
try {
  for (let round = 1; round <= rounds; round++) {
    const profile = await Deno.makeTempDir({ prefix: "mu-bench-import-cpu-" });
    const browser = await harness.launchChromium({ userDataDir: profile });
    try {
      const page = await browser.newPage();
      await page.goto(`${server.url}/index.html`);
      await page.waitForFunction(
        () => document.getElementById("storage")?.textContent?.trim() !== "…",
        undefined,
        { timeout: 60_000, polling: 100 },
      );
      const before = await threadTicks(profile);
      const load = Deno.loadavg()[0];
      const t0 = performance.now();
      // Sampled while it runs: a thread that ends before the import does (the parsing
      // worker) would be missing from a reading taken afterwards.
      const after = new Map<string, { name: string; ticks: number }>();
      const sample = async () => {
        for (const [key, value] of await threadTicks(profile)) after.set(key, value);
      };
      let importing = true;
      const sampling = (async () => {
        while (importing) await Promise.all([sample(), new Promise((r) => setTimeout(r, 250))]);
      })();
      try {
        await importFile(page, data.file, 600_000);
      } finally {
        importing = false;
      }
      const wall = (performance.now() - t0) / 1000;
      await sampling;
      await sample();
      const used: Array<[string, number]> = [];
      for (const [key, { name, ticks }] of after) {
        const cpu = (ticks - (before.get(key)?.ticks ?? 0)) / TICKS_PER_S;
        if (cpu >= 0.1) used.push([`${name} ${key}`, cpu]);
      }
      used.sort((a, b) => b[1] - a[1]);
      const total = used.reduce((sum, [, cpu]) => sum + cpu, 0);
      console.log(
        `round ${round}: wall ${wall.toFixed(1)} s (${
          (data.bytes / 1e6 / wall).toFixed(1)
        } MB/s), ` +
          `CPU ${total.toFixed(1)} s; load ${load.toFixed(1)} -> ${Deno.loadavg()[0].toFixed(1)}`,
      );
      for (const [thread, cpu] of used) console.log(`  ${cpu.toFixed(2).padStart(6)} s ${thread}`);
    } finally {
      await browser.close();
      await Deno.remove(profile, { recursive: true }).catch(() => {});
    }
  }
} finally {
  await server.close();
}
