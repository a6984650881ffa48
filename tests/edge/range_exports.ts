/**
 * The session files the range tests publish with their export index: every fixture and demo
 * session the index builder accepts (a file the parser refuses gets no index).
 *
 * @module
 */
import { buildExportIndex, type ExportIndex, ExportIndexError } from "../../src/export_index.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/** Every `.jsonl` under fixtures/ and web/demo/, by repository path, sorted. */
export async function exportFiles(): Promise<Map<string, Uint8Array>> {
  const files = new Map<string, Uint8Array>();
  const walk = async (dir: string) => {
    for await (const item of Deno.readDir(`${ROOT}${dir}`)) {
      const path = `${dir}/${item.name}`;
      if (item.isDirectory) await walk(path);
      else if (item.name.endsWith(".jsonl")) files.set(path, await Deno.readFile(`${ROOT}${path}`));
    }
  };
  await walk("fixtures");
  await walk("web/demo");
  return new Map([...files].sort(([a], [b]) => a < b ? -1 : 1));
}

/** An export as published: its bytes and their index. */
export interface IndexedExport {
  name: string;
  bytes: Uint8Array;
  index: ExportIndex;
}

/** The files that can be indexed, with their index. */
export async function indexedExports(files: Map<string, Uint8Array>): Promise<IndexedExport[]> {
  const out: IndexedExport[] = [];
  for (const [name, bytes] of files) {
    try {
      out.push({ name, bytes, index: await buildExportIndex(bytes) });
    } catch (error) {
      if (!(error instanceof ExportIndexError)) throw error;
    }
  }
  return out;
}
