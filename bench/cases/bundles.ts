/**
 * Bundle sizes: what a browser or edge user ships for each runtime entry, bundled by
 * esbuild (ESM, minified) and measured after `gzip -9` (`tools/bundle_size.ts`, the same
 * bundles the package test keeps free of zod), with their targets.
 * @module
 */
import type { Row } from "../jobs.ts";
import type { Evaluation } from "../targets.ts";

/** Target (KB, minified + gzip -9) per bundle, by the subject name of its row. */
const TARGET_KB: Record<string, number> = {
  "@mu/sessions/core": 22,
  "@mu/sessions/stores/indexeddb": 10,
  "viewer worker (web/worker.ts)": 42,
  "@mu/sessions/edge": 12,
};

/** One row per runtime bundle: gzip -9 KB, with raw KB and the zod modules as facts. */
export async function runBundleBench(): Promise<Row[]> {
  // Loaded here, not at the top: the targets below are evaluated (bench/render.ts) without
  // esbuild and its permissions.
  const { bundleEntry, RUNTIME_BUNDLES, stopBundler, zodInputs } = await import(
    "../../tools/bundle_size.ts"
  );
  const rows: Row[] = [];
  try {
    for (const subject of RUNTIME_BUNDLES) {
      const measure = await bundleEntry(subject);
      rows.push({
        section: "bundles",
        runtime: "deno",
        subject: subject.name,
        name: "minified + gzip -9 KB",
        medianMs: measure.gzipBytes / 1024,
        facts: {
          rawKB: Math.round(measure.bytes / 1024),
          gzipBytes: measure.gzipBytes,
          zodModules: zodInputs(measure).length,
        },
      });
    }
  } finally {
    await stopBundler();
  }
  return rows;
}

/** One evaluation per bundle row that has a target. */
export function bundleTargets(rows: Row[]): Evaluation[] {
  return rows.filter((row) => row.section === "bundles" && row.medianMs !== undefined)
    .flatMap((row) => {
      const limit = TARGET_KB[row.subject];
      if (limit === undefined) return [];
      const value = row.medianMs!;
      const zod = Number(row.facts?.zodModules ?? 0);
      return [{
        id: `bundle-${row.subject}`,
        label: `Bundle of ${row.subject}, minified + gzip -9 (KB)`,
        runtime: "esbuild",
        subject: row.subject,
        target: `<= ${limit} KB, zod absent`,
        measured: `${value.toFixed(1)}${zod ? ` (${zod} zod modules)` : ""}`,
        value,
        met: value <= limit && zod === 0,
      }];
    });
}
