/**
 * Bundling for Node 20, which cannot run TypeScript: the test, stress and benchmark runs
 * bundle their entry files with esbuild, npm packages left external. The bundles carry the
 * store code inline, but the JSONL checking pass starts its worker threads from a module file
 * beside the code (`stores/jsonl/_scan_pool.ts`): beside a bundle `x.mjs`, that is
 * `_scan_worker.mjs`. Without it the pass still works, on one thread.
 *
 * @module
 */

/**
 * esbuild's flags for a Node 20 bundle (add the entry points and the output).
 *
 * @example
 * ```ts
 * import { NODE_BUNDLE_FLAGS } from "./node_bundle.ts";
 * const args = ["tests/x.ts", ...NODE_BUNDLE_FLAGS, "--outfile=dist/x.mjs"];
 * ```
 */
export const NODE_BUNDLE_FLAGS: readonly string[] = [
  "--bundle",
  "--platform=node",
  "--format=esm",
  "--packages=external",
  "--target=node20",
];

/**
 * Bundle the scan worker into `outdir/_scan_worker.mjs`; resolves esbuild's exit code.
 *
 * @example
 * ```ts
 * import { bundleScanWorker } from "./node_bundle.ts";
 * await bundleScanWorker("/tmp/bundles"); // 0 when it built
 * ```
 */
export async function bundleScanWorker(outdir: string): Promise<number> {
  const root = new URL("../", import.meta.url).pathname;
  const { code } = await new Deno.Command(`${root}node_modules/.bin/esbuild`, {
    args: [
      `${root}stores/jsonl/_scan_worker.ts`,
      ...NODE_BUNDLE_FLAGS,
      "--log-level=warning",
      `--outfile=${outdir}/_scan_worker.mjs`,
    ],
    cwd: root,
    stderr: "inherit",
  }).output();
  return code;
}
