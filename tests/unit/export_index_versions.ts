/**
 * Older export index sidecars, written from a built index, for the tests that check they are
 * still read (and refused when inconsistent) like the current version.
 */
import type { ExportIndex } from "../../src/export_index.ts";

/** A sidecar's JSON, changed field by field. */
// deno-lint-ignore no-explicit-any
export type Wire = Record<string, any>;

/** The version 2 sidecar of an index: JSON arrays of numbers and digests, no spans. */
export function versionTwo(index: ExportIndex): Wire {
  let end = index.header[0] + index.header[1];
  return {
    format: index.format,
    version: 2,
    length: index.length,
    digest: index.digest,
    blockSize: index.blockSize,
    blocks: index.blocks,
    header: index.header,
    ids: index.ids.join("\n"),
    parents: Array.from(index.parents, (parent, i) => parent < 0 ? 0 : i - parent),
    flags: Array.from(index.flags),
    gaps: Array.from(index.offsets, (offset, i) => {
      const gap = offset - end - 1;
      end = offset + index.lengths[i];
      return gap;
    }),
    lengths: Array.from(index.lengths),
    missing: index.missing,
  };
}
