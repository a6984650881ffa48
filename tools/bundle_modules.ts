/**
 * What a runtime bundle carries, by module: the minified bytes each input module puts in
 * the bundle the bench measures (`bundle_size.ts`), largest first, with the bundle's size
 * after `gzip -9`. For finding what a bundle does not need; run it before and after a cut
 * and compare.
 *
 * Usage: `deno run -A tools/bundle_modules.ts [name]` where `name` is part of a bundle's
 * name in {@link RUNTIME_BUNDLES} (default: the viewer worker), e.g. `edge`, `core`.
 *
 * @module
 */
import { bundleEntry, type BundleMeasure, RUNTIME_BUNDLES, stopBundler } from "./bundle_size.ts";

/** The lines of the by-module listing of one measured bundle. */
export function moduleTable(measure: BundleMeasure): string[] {
  const rows = Object.entries(measure.inputBytes).sort(([, a], [, b]) => b - a);
  return [
    `${measure.subject.name}: ${measure.bytes} B minified, ${measure.gzipBytes} B gzip -9, ` +
    `${rows.length} modules`,
    ...rows.map(([path, bytes]) => `${String(bytes).padStart(8)}  ${path}`),
  ];
}

if (import.meta.main) {
  const wanted = Deno.args[0] ?? "viewer worker";
  const subject = RUNTIME_BUNDLES.find((bundle) => bundle.name.includes(wanted));
  if (!subject) {
    console.error(`no bundle named like "${wanted}": ${RUNTIME_BUNDLES.map((b) => b.name)}`);
    Deno.exit(2);
  }
  try {
    console.log(moduleTable(await bundleEntry(subject)).join("\n"));
  } finally {
    await stopBundler();
  }
}
