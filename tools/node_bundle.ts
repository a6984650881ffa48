/**
 * Bundling for Node 20, which cannot run TypeScript: the test, stress and benchmark runs
 * bundle their entry files with esbuild, npm packages left external.
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
