/**
 * The npm package's `exports` map, derived from deno.json's `exports` so the two entry-point
 * lists cannot drift: every Deno subpath `./x` → `./x.ts` becomes the compiled
 * `./dist/npm/x.js` with its `.d.ts` under a `types` condition. The main entry `.` is
 * conditional: Deno and Node get `mod.ts` (file-system storage registered), while browsers,
 * workers, edge runtimes and anything unknown get `core.ts` (no Deno, `node:` or DOM API
 * reachable), because a bundler targeting the browser cannot load `node:fs`.
 *
 * @module
 */

/**
 * Where the compiled package lives, relative to the repository root.
 *
 * @example
 * ```ts
 * import { NPM_OUT_DIR } from "./exports.ts";
 * console.log(`${NPM_OUT_DIR}/core.js`); // "dist/npm/core.js"
 * ```
 */
export const NPM_OUT_DIR = "dist/npm";

/**
 * One compiled entry: TypeScript declarations first (TypeScript takes the first match).
 *
 * @example
 * ```ts
 * import type { CompiledTarget } from "./exports.ts";
 * const core: CompiledTarget = { types: "./dist/npm/core.d.ts", default: "./dist/npm/core.js" };
 * ```
 */
export interface CompiledTarget {
  types: string;
  default: string;
}

/**
 * A subpath's target: one compiled entry, or conditions mapping to compiled entries.
 *
 * @example
 * ```ts
 * import type { PackageTarget } from "./exports.ts";
 * const core = { types: "./dist/npm/core.d.ts", default: "./dist/npm/core.js" };
 * const dot: PackageTarget = { browser: core, default: core };
 * ```
 */
export type PackageTarget = CompiledTarget | Record<string, CompiledTarget>;

/**
 * Conditions that select the runtime-agnostic core for `.`: browser bundlers (`browser`),
 * Cloudflare Workers (`workerd`, `worker`), Vercel/Next.js edge (`edge-light`). They come
 * before `node` because some of these environments also set `node` for compatibility
 * shims yet have no local file system.
 */
const CORE_CONDITIONS: readonly string[] = ["browser", "worker", "workerd", "edge-light"];

/** Conditions that select the Deno/Node main entry for `.` (Deno sets both). */
const MAIN_CONDITIONS: readonly string[] = ["deno", "node"];

/**
 * The compiled target of one TypeScript source path of deno.json (`./stores/jsonl/fs.ts`).
 *
 * @example
 * ```ts
 * import { compiledTarget } from "./exports.ts";
 * compiledTarget("./core.ts"); // { types: "./dist/npm/core.d.ts", default: "./dist/npm/core.js" }
 * ```
 */
export function compiledTarget(source: string): CompiledTarget {
  if (!source.startsWith("./") || !source.endsWith(".ts")) {
    throw new Error(`deno.json export target must be a relative .ts path, got ${source}`);
  }
  const stem = `./${NPM_OUT_DIR}/${source.slice(2, -3)}`;
  return { types: `${stem}.d.ts`, default: `${stem}.js` };
}

/**
 * The package.json `exports` for deno.json's `exports` (which must have `.` and `./core`).
 *
 * @example
 * ```ts
 * import { packageExports } from "./exports.ts";
 * const map = packageExports({ ".": "./mod.ts", "./core": "./core.ts" });
 * console.log(Object.keys(map)); // [".", "./core"]
 * ```
 */
export function packageExports(denoExports: Record<string, string>): Record<string, PackageTarget> {
  const main = denoExports["."], core = denoExports["./core"];
  if (!main || !core) throw new Error('deno.json exports must define "." and "./core"');
  const mainTarget = compiledTarget(main), coreTarget = compiledTarget(core);
  const dot: Record<string, CompiledTarget> = {};
  for (const condition of CORE_CONDITIONS) dot[condition] = coreTarget;
  for (const condition of MAIN_CONDITIONS) dot[condition] = mainTarget;
  dot.default = coreTarget;
  const result: Record<string, PackageTarget> = { ".": dot };
  for (const [subpath, source] of Object.entries(denoExports)) {
    if (subpath !== ".") result[subpath] = compiledTarget(source);
  }
  return result;
}

/**
 * The TypeScript sources to compile: every deno.json export target.
 *
 * @example
 * ```ts
 * import { entrySources } from "./exports.ts";
 * entrySources({ ".": "./mod.ts", "./core": "./core.ts" }); // ["mod.ts", "core.ts"]
 * ```
 */
export function entrySources(denoExports: Record<string, string>): string[] {
  return [...new Set(Object.values(denoExports))].map((source) => source.slice(2));
}
