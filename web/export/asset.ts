/**
 * Build the HTML export's asset (`export-asset.json`): the renderer `page.ts` bundled as
 * one minified classic script and `export.css` (the viewer's base and conversation styles),
 * each with the CSP hash of its exact text, so `html.ts` can inline them without a crypto
 * API (the viewer may run where `crypto.subtle` is missing) and the CLI needs no bundler.
 *
 * @module
 */
import * as esbuild from "esbuild";
import type { ExportAsset } from "./html.ts";

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  let binary = "";
  for (const byte of new Uint8Array(digest)) binary += String.fromCharCode(byte);
  return `sha256-${btoa(binary)}`;
}

/** Never let inlined code end its element early (`</script` in a string literal). */
function inlineSafe(code: string, tag: "script" | "style"): string {
  return code.replace(new RegExp(`</(${tag})`, "gi"), "<\\/$1");
}

/**
 * Bundle the export renderer (esbuild must not be stopped yet; the caller stops it).
 *
 * @example
 * ```ts
 * import { buildExportAsset } from "./asset.ts";
 * const asset = await buildExportAsset("/repo/");
 * ```
 */
export async function buildExportAsset(root: string): Promise<ExportAsset> {
  const result = await esbuild.build({
    entryPoints: [`${root}web/export/page.ts`, `${root}web/export/export.css`],
    bundle: true,
    format: "iife",
    platform: "browser",
    target: ["chrome110", "firefox115", "safari16"],
    outdir: "/out",
    entryNames: "[name]",
    minify: true,
    write: false,
    legalComments: "none",
    logLevel: "warning",
    absWorkingDir: root,
    charset: "utf8",
  });
  const text = (ext: string) =>
    result.outputFiles.find((file) => file.path.endsWith(ext))?.text ?? "";
  const script = inlineSafe(text(".js"), "script");
  const style = inlineSafe(text(".css"), "style");
  return { script, style, scriptHash: await sha256(script), styleHash: await sha256(style) };
}
