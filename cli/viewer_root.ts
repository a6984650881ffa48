/**
 * Where the built viewer is: the npm package's `viewer/` (built when the package was), or,
 * running from the repository's sources, `dist/web` (built on demand when missing or
 * stale). `mu serve` serves it; `mu export --html` reads the export renderer from it.
 *
 * @module
 */
import { stat } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { CliContext } from "./context.ts";

/** The part of web/build.ts used here (typed locally so the package build never reaches it). */
interface ViewerBuilder {
  DEFAULT_OUT_DIR: string;
  buildIsStale(): Promise<boolean>;
  buildViewer(): Promise<unknown>;
}

/**
 * The built viewer's folder, building it first from the sources when needed.
 *
 * @example
 * ```ts
 * import { viewerRoot } from "./viewer_root.ts";
 * import type { CliContext } from "./context.ts";
 * declare const cli: CliContext;
 * const dir = await viewerRoot(cli, false); // ".../dist/web" or the package's "viewer"
 * ```
 */
export async function viewerRoot(cli: CliContext, rebuild: boolean): Promise<string> {
  const inPackage = fileURLToPath(new URL("../viewer", import.meta.url));
  if (await stat(`${inPackage}/index.html`).then(() => true, () => false)) return inPackage;
  // Running from the repository's sources: build the viewer when missing or stale.
  // A computed specifier: the npm package ships the built viewer and not the builder.
  const builder = "../web/build.ts";
  const build = await import(builder) as ViewerBuilder;
  if (rebuild || await build.buildIsStale()) {
    cli.err("building the viewer…\n");
    await build.buildViewer();
  }
  return build.DEFAULT_OUT_DIR;
}
