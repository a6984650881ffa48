/**
 * Build the npm package into `dist/npm/` (run by `npm pack` through the `prepack` script):
 * TypeScript's `tsc` compiles every deno.json export target, and what they import, to ESM
 * JavaScript plus `.d.ts` declarations. Relative `.ts` imports become `.js`
 * (`rewriteRelativeImportExtensions` in the JavaScript; rewritten here in the declarations,
 * which tsc leaves as written and which Deno would then look up as missing `.ts` files).
 * The `mu` command line is compiled too (the package's `bin`), and the viewer is bundled
 * into `dist/npm/viewer/` for `mu serve`, and the guides (docs/*.md) copied into
 * `dist/npm/docs/` (`npm/published.ts`). Tests and benchmarks are not packed.
 *
 * Before compiling, package.json's `exports` must equal the map derived from deno.json
 * (`npm/exports.ts`); `--write-exports` rewrites package.json's `exports` to it instead of
 * failing.
 *
 * With `--pack` (the `prepack` script) the published package.json and README.md are put in
 * place for `npm pack`; the `postpack` script (`npm/published.ts`) puts the checkout's back.
 *
 * Usage: `deno task build:npm [--write-exports] [--pack]`
 *
 * @module
 */
import { entrySources, NPM_OUT_DIR, packageExports } from "./exports.ts";
import { buildViewer } from "../web/build.ts";
import { packGuides, restoreOriginals, swapInPublished } from "./published.ts";

/** Compiled besides the exports: the `mu` command line (the package's `bin`). */
const EXTRA_SOURCES = ["cli/mu.ts"];

const ROOT = new URL("../", import.meta.url).pathname;
const OUT = `${ROOT}${NPM_OUT_DIR}`;

/** tsc's settings for the package; the sources carry Deno's `.ts` import extensions. */
const TSC_OPTIONS = [
  "--outDir",
  OUT,
  "--rootDir",
  ROOT,
  "--module",
  "nodenext",
  "--moduleResolution",
  "nodenext",
  "--target",
  "es2022", // Node 20 and every current browser run it unchanged
  "--lib",
  "es2023,dom,dom.iterable",
  "--types",
  "node",
  "--strict",
  "--declaration",
  "--rewriteRelativeImportExtensions",
  "--skipLibCheck",
  "--noEmitOnError",
  "--pretty",
  "false",
];

async function readJson(path: string): Promise<Record<string, unknown>> {
  return JSON.parse(await Deno.readTextFile(`${ROOT}${path}`));
}

/** Fail (or, with `write`, fix package.json) when its exports are not the derived map. */
async function checkExports(write: boolean): Promise<Record<string, string>> {
  const denoExports = (await readJson("deno.json")).exports as Record<string, string>;
  const pkg = await readJson("package.json");
  const expected = packageExports(denoExports);
  if (JSON.stringify(pkg.exports) !== JSON.stringify(expected)) {
    if (!write) {
      throw new Error(
        "package.json exports differ from the map derived from deno.json exports; run " +
          "`deno task build:npm --write-exports` to update them. Expected:\n" +
          JSON.stringify(expected, null, 2),
      );
    }
    pkg.exports = expected;
    await Deno.writeTextFile(`${ROOT}package.json`, JSON.stringify(pkg, null, 2) + "\n");
    console.log("package.json exports updated from deno.json");
  }
  return denoExports;
}

/**
 * Relative `.ts` specifiers in declarations (`from "./x.ts"`, `import("../y.ts")`) → `.js`.
 *
 * @example
 * ```ts
 * import { rewriteDeclarationImports } from "./build.ts";
 * rewriteDeclarationImports('export * from "./core.ts";'); // 'export * from "./core.js";'
 * ```
 */
export function rewriteDeclarationImports(text: string): string {
  return text.replace(/(["'])(\.{1,2}\/[^"'\n]*?)\.ts\1/g, "$1$2.js$1");
}

async function rewriteDeclarations(dir: string): Promise<void> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) await rewriteDeclarations(path);
    else if (entry.name.endsWith(".d.ts")) {
      const text = await Deno.readTextFile(path);
      const rewritten = rewriteDeclarationImports(text);
      if (rewritten !== text) await Deno.writeTextFile(path, rewritten);
    }
  }
}

async function compile(sources: string[]): Promise<void> {
  await Deno.remove(OUT, { recursive: true }).catch(() => {});
  const tsc = `${ROOT}node_modules/typescript/bin/tsc`;
  const { code } = await new Deno.Command("node", {
    args: [tsc, ...TSC_OPTIONS, ...sources, `${ROOT}npm/ambient.d.ts`],
    cwd: ROOT,
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (code !== 0) throw new Error(`tsc failed (exit ${code}); nothing was packed`);
  await rewriteDeclarations(OUT);
}

if (import.meta.main) {
  const started = performance.now();
  // A pack that died before its postpack left the published manifest in place.
  if (await restoreOriginals(ROOT)) console.log("restored package.json and README.md");
  const denoExports = await checkExports(Deno.args.includes("--write-exports"));
  const sources = entrySources(denoExports);
  await compile([...sources, ...EXTRA_SOURCES].map((source) => `${ROOT}${source}`));
  // The viewer `mu serve` serves, built once here so installs need no bundler.
  // Without source maps: see BuildOptions.sourcemap (the package test states its size).
  await buildViewer({ outDir: `${OUT}/viewer`, minify: true, sourcemap: false });
  for (const source of sources) {
    const stem = `${OUT}/${source.slice(0, -3)}`;
    await Deno.stat(`${stem}.js`);
    await Deno.stat(`${stem}.d.ts`);
  }
  const guides = await packGuides(ROOT);
  if (Deno.args.includes("--pack")) await swapInPublished(ROOT, guides);
  const ms = Math.round(performance.now() - started);
  console.log(`built ${NPM_OUT_DIR}/ (${sources.length} entries) in ${ms} ms`);
}
