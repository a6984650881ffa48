/**
 * The bundles users ship, measured the way the bench table states them: each entry bundled
 * by esbuild (ESM, minified, tree-shaken) for the platform it runs on, its size after
 * `gzip -9`, and the input modules that reached the output. Shared by the bundle bench rows
 * (`bench/cases/bundles.ts`) and the package test that no zod module reaches a runtime
 * bundle (`tests/package/bundles.test.ts`), so the two look at the same bundle.
 *
 * @example
 * ```ts
 * import { bundleEntry, RUNTIME_BUNDLES } from "./bundle_size.ts";
 * const core = await bundleEntry(RUNTIME_BUNDLES[0]);
 * console.log(core.gzipBytes, core.inputs.filter((path) => path.includes("/zod/")));
 * ```
 *
 * @module
 */
import * as esbuild from "esbuild";
import { gzipSync } from "node:zlib";

/** One bundle a user ships: which file, for which platform. */
export interface BundleSubject {
  /** The name a bench row and a test failure use, e.g. `@mu/sessions/core`. */
  name: string;
  /** The entry file, relative to the repository root. */
  file: string;
  /** Browser bundles resolve `browser` conditions; edge ones the edge runtimes' conditions. */
  platform: "browser" | "edge";
  /** Packages left out of the measure (third-party code this library cannot shrink). */
  external?: readonly string[];
}

/** What bundling one subject produced. */
export interface BundleMeasure {
  subject: BundleSubject;
  /** The minified bundle's text (for tests that look for names kept in it). */
  code: string;
  /** Minified bundle size, bytes. */
  bytes: number;
  /** The minified bundle after `gzip -9`, bytes. */
  gzipBytes: number;
  /** Input modules with at least one byte in the output, repository-relative when local. */
  inputs: string[];
  /** Minified bytes each of {@link inputs} put in the output (before gzip). */
  inputBytes: Record<string, number>;
}

/** The runtime bundles the bench measures and the package test keeps free of zod. */
export const RUNTIME_BUNDLES: readonly BundleSubject[] = [
  { name: "@mu/sessions/core", file: "core.ts", platform: "browser" },
  {
    name: "@mu/sessions/stores/indexeddb",
    file: "stores/browser/indexeddb.ts",
    platform: "browser",
  },
  // sqlite-wasm's JavaScript glue is left out of this row: it is the
  // same file whatever this library does, and the row is about the library's code.
  {
    name: "viewer worker (web/worker.ts)",
    file: "web/worker.ts",
    platform: "browser",
    external: ["@sqlite.org/sqlite-wasm"],
  },
  { name: "@mu/sessions/edge", file: "web/edge.ts", platform: "edge" },
];

const ROOT = new URL("../", import.meta.url);

/** Bundle `subject` with esbuild (minified, ESM) and measure it. */
export async function bundleEntry(subject: BundleSubject): Promise<BundleMeasure> {
  const result = await esbuild.build({
    entryPoints: [new URL(subject.file, ROOT).pathname],
    absWorkingDir: new URL(".", ROOT).pathname,
    bundle: true,
    format: "esm",
    platform: subject.platform === "browser" ? "browser" : "neutral",
    mainFields: ["module", "main"],
    conditions: subject.platform === "edge" ? ["workerd", "worker", "edge-light"] : [],
    // The viewer build's own defines, so the worker bundle is the one the viewer ships
    // (its demo sessions are data, not library code, and stay out of the measure).
    define: { "process.env.NODE_ENV": '"production"', __MU_DEMO_SESSIONS__: '"[]"' },
    minify: true,
    external: [...(subject.external ?? [])],
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  const output = result.outputFiles[0].contents;
  const inputs = Object.values(result.metafile.outputs)[0].inputs;
  const inputBytes: Record<string, number> = {};
  for (const [path, { bytesInOutput }] of Object.entries(inputs)) {
    if (bytesInOutput > 0) inputBytes[path] = bytesInOutput;
  }
  return {
    subject,
    code: result.outputFiles[0].text,
    bytes: output.byteLength,
    gzipBytes: gzipSync(output, { level: 9 }).byteLength,
    inputs: Object.keys(inputBytes),
    inputBytes,
  };
}

/** The inputs of a bundle that belong to zod (any version, any package layout). */
export function zodInputs(measure: BundleMeasure): string[] {
  return measure.inputs.filter((path) => /(^|\/)node_modules\/(\.deno\/)?zod[@/]/.test(path));
}

/** Stop esbuild's service (call once when done bundling, so the process can exit). */
export async function stopBundler(): Promise<void> {
  await esbuild.stop();
}
