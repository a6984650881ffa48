/**
 * Build the offline viewer into a static folder (default `dist/web/`) that any static
 * host can serve: esbuild bundles `web/main.ts` and `web/worker.ts` (ESM, browser) and
 * `web/style.css` (with its `@import`s from `web/styles/`); the page, sqlite-wasm's
 * `sqlite3.wasm` + `sqlite3-opfs-async-proxy.js` (next to the worker, where sqlite-wasm
 * looks for them) and the demo sessions are copied beside them. The demo sessions are also
 * bundled into the worker (a `define`), so the demo button needs no request.
 * Nothing is loaded from a CDN: the folder works offline.
 *
 * Usage: `deno run --allow-read --allow-write --allow-env --allow-run web/build.ts [--out dir] [--minify]`
 *
 * @module
 */
import * as esbuild from "esbuild";
import { buildExportAsset } from "./export/asset.ts";
import { ASSET_FILE } from "./export/html.ts";

/** Repository root (absolute, trailing slash). */
export const REPO_ROOT: string = new URL("../", import.meta.url).pathname;
/** Default output folder. */
export const DEFAULT_OUT_DIR = `${REPO_ROOT}dist/web`;
/** Folders whose changes make a build stale (see {@link buildIsStale}). */
export const SOURCE_DIRS: readonly string[] = ["web", "src", "stores"].map((d) =>
  `${REPO_ROOT}${d}`
);

const SQLITE_DIST = `${REPO_ROOT}node_modules/@sqlite.org/sqlite-wasm/dist/`;
const DEMO_DIR = `${REPO_ROOT}web/demo/`;
const STAMP = ".build-info.json";

/** Options for {@link buildViewer}. */
export interface BuildOptions {
  /** Output folder (wiped first). Default `dist/web`. */
  outDir?: string;
  /** Minify the bundles (default true). */
  minify?: boolean;
  /** Print what was built (default false). */
  verbose?: boolean;
  /**
   * Write linked source maps next to the bundles (default true). The npm package's build
   * turns them off: they carry every source again and were half the package, for a viewer
   * whose sources a developer debugs from the repository anyway.
   */
  sourcemap?: boolean;
}

/** What a build produced. */
export interface BuildResult {
  outDir: string;
  /** Output files with their sizes in bytes. */
  files: Record<string, number>;
  ms: number;
}

async function listDemo(): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(DEMO_DIR)) {
    if (entry.isFile && entry.name.endsWith(".jsonl")) names.push(entry.name);
  }
  return names.sort();
}

/**
 * Build the viewer.
 *
 * @example
 * ```ts
 * import { buildViewer } from "./build.ts";
 * const { outDir } = await buildViewer({ outDir: "/tmp/viewer" });
 * ```
 */
export async function buildViewer(options: BuildOptions = {}): Promise<BuildResult> {
  const started = performance.now();
  const outDir = (options.outDir ?? DEFAULT_OUT_DIR).replace(/\/+$/, "");
  await Deno.remove(outDir, { recursive: true }).catch(() => {});
  await Deno.mkdir(`${outDir}/demo`, { recursive: true });
  const demoNames = await listDemo();
  const demoTexts = await Promise.all(
    demoNames.map(async (name) => ({ name, text: await Deno.readTextFile(`${DEMO_DIR}${name}`) })),
  );
  try {
    await esbuild.build({
      entryPoints: [
        `${REPO_ROOT}web/main.ts`,
        `${REPO_ROOT}web/worker.ts`,
        `${REPO_ROOT}web/style.css`,
      ],
      bundle: true,
      format: "esm",
      platform: "browser",
      target: ["chrome110", "firefox115", "safari16"],
      outdir: outDir,
      entryNames: "[name]",
      // The conversation tab's code (markdown, grammars, diff) is a chunk loaded when opened.
      splitting: true,
      chunkNames: "chunks/[name]-[hash]",
      minify: options.minify ?? true,
      sourcemap: options.sourcemap === false ? false : "linked",
      legalComments: "linked",
      logLevel: "warning",
      absWorkingDir: REPO_ROOT,
      define: {
        "process.env.NODE_ENV": '"production"',
        // The demo sessions ride in the worker bundle: the demo button works offline.
        __MU_DEMO_SESSIONS__: JSON.stringify(JSON.stringify(demoTexts)),
      },
    });
    // The HTML export's renderer, inlined into every exported file (viewer and `mu export --html`).
    const asset = await buildExportAsset(REPO_ROOT);
    await Deno.writeTextFile(`${outDir}/${ASSET_FILE}`, JSON.stringify(asset));
  } finally {
    await esbuild.stop();
  }
  await Deno.copyFile(`${REPO_ROOT}web/index.html`, `${outDir}/index.html`);
  for (const file of ["sqlite3.wasm", "sqlite3-opfs-async-proxy.js"]) {
    await Deno.copyFile(`${SQLITE_DIST}${file}`, `${outDir}/${file}`);
  }
  const demo: Array<{ name: string; size: number }> = [];
  for (const name of demoNames) {
    await Deno.copyFile(`${DEMO_DIR}${name}`, `${outDir}/demo/${name}`);
    demo.push({ name, size: (await Deno.stat(`${DEMO_DIR}${name}`)).size });
  }
  await Deno.writeTextFile(`${outDir}/demo/index.json`, JSON.stringify({ files: demo }, null, 2));
  const files: Record<string, number> = {};
  for await (const entry of walk(outDir)) {
    files[entry.slice(outDir.length + 1)] = (await Deno.stat(entry)).size;
  }
  await Deno.writeTextFile(`${outDir}/${STAMP}`, JSON.stringify({ builtAt: Date.now() }));
  const ms = Math.round(performance.now() - started);
  if (options.verbose) {
    for (const [name, size] of Object.entries(files)) {
      console.log(`  ${name.padEnd(36)} ${size.toLocaleString("en-US").padStart(12)} B`);
    }
    console.log(`built ${outDir} in ${ms} ms`);
  }
  return { outDir, files, ms };
}

async function* walk(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* walk(path);
    else if (entry.isFile) yield path;
  }
}

async function newestMtime(dir: string): Promise<number> {
  let newest = 0;
  try {
    for await (const path of walk(dir)) {
      const mtime = (await Deno.stat(path)).mtime?.getTime() ?? 0;
      if (mtime > newest) newest = mtime;
    }
  } catch {
    // a missing source folder is not newer than anything
  }
  return newest;
}

/** Whether `outDir` is missing or older than any file under {@link SOURCE_DIRS}. */
export async function buildIsStale(outDir: string = DEFAULT_OUT_DIR): Promise<boolean> {
  let builtAt: number;
  try {
    builtAt = JSON.parse(await Deno.readTextFile(`${outDir}/${STAMP}`)).builtAt;
    await Deno.stat(`${outDir}/index.html`);
  } catch {
    return true;
  }
  for (const dir of SOURCE_DIRS) if (await newestMtime(dir) > builtAt) return true;
  return false;
}

if (import.meta.main) {
  const args = Deno.args;
  const outIndex = args.indexOf("--out");
  const outDir = outIndex >= 0 ? args[outIndex + 1] : undefined;
  await buildViewer({ outDir, minify: !args.includes("--no-minify"), verbose: true });
}
