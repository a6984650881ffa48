/**
 * Bundles for Node 20 (test and benchmark runs bundle their entry files with esbuild) carry
 * the store code inline, but the JSONL checking pass starts its worker threads from a module
 * file beside the code (`stores/jsonl/_scan_pool.ts`): beside a bundle `x.mjs`, that is
 * `_scan_worker.mjs`. Without it the pass still works, on one thread.
 *
 * @module
 */

/**
 * Bundle the scan worker into `outdir/_scan_worker.mjs`; resolves esbuild's exit code.
 *
 * @example
 * ```ts
 * import { bundleScanWorker } from "./scan_worker_bundle.ts";
 * await bundleScanWorker("/tmp/bundles"); // 0 when it built
 * ```
 */
export async function bundleScanWorker(outdir: string): Promise<number> {
  const root = new URL("../", import.meta.url).pathname;
  const { code } = await new Deno.Command(`${root}node_modules/.bin/esbuild`, {
    args: [
      `${root}stores/jsonl/_scan_worker.ts`,
      "--bundle",
      "--platform=node",
      "--format=esm",
      "--packages=external",
      "--target=node20",
      "--log-level=warning",
      `--outfile=${outdir}/_scan_worker.mjs`,
    ],
    cwd: root,
    stderr: "inherit",
  }).output();
  return code;
}
