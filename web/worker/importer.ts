/**
 * Importing in the worker: every file is streamed (`file.stream()` →
 * `parseSessionJsonl(stream, { onProgress })`), validated as a whole, and only then
 * written to the store (without losing stored entries: see `import_merge.ts`), so a torn or invalid file is reported with its line and reason and
 * nothing of it is stored. Folders are walked for `.jsonl` files, including pi's
 * `~/.pi/agent/sessions/--<cwd>--/` layout.
 *
 * @module
 */
import { parseSessionJsonl } from "../../src/jsonl.ts";
import type { SessionStore } from "../../src/store.ts";
import { toErrorView } from "../rpc.ts";
import type { ImportProgressView, ImportResultView } from "../types.ts";
import { type AskConflict, storeImported } from "./import_merge.ts";

/** A byte source to import. */
export interface ImportSource {
  path: string;
  size: number;
  /** Open the bytes (called once, when the file's turn comes). */
  open(): Promise<ReadableStream<Uint8Array>>;
}

/** How often progress events are sent at most (ms). */
const PROGRESS_INTERVAL_MS = 50;
/** Folder depth walked below a picked folder. */
const MAX_DEPTH = 6;
/** Most files taken from one folder pick. */
const MAX_FILES = 20_000;

/** Whether a path names a session file. */
export function isSessionFileName(path: string): boolean {
  return /\.jsonl$/i.test(path);
}

/**
 * Import sources one by one, reporting progress; never throws for one bad file. A file
 * whose id is already stored goes through {@link storeImported}: nothing stored is lost,
 * and `ask` decides (with the user) about conflicting content.
 */
export async function importSources(
  store: SessionStore,
  sources: ImportSource[],
  progress: (event: ImportProgressView) => void,
  ask: AskConflict,
): Promise<ImportResultView[]> {
  const results: ImportResultView[] = [];
  const bytesTotal = sources.reduce((sum, source) => sum + source.size, 0);
  let bytesBefore = 0;
  let lastSent = 0;
  const send = (event: ImportProgressView, force = false) => {
    const now = performance.now();
    if (!force && now - lastSent < PROGRESS_INTERVAL_MS) return;
    lastSent = now;
    progress(event);
  };
  for (let fileIndex = 0; fileIndex < sources.length; fileIndex++) {
    const source = sources[fileIndex];
    const base = { fileIndex, fileCount: sources.length, path: source.path, bytesTotal };
    send({ ...base, bytesDone: bytesBefore, phase: "reading" }, true);
    try {
      const stream = await source.open();
      const parsed = await parseSessionJsonl(stream, {
        source: source.path,
        // The lines' bytes, not their text: the OPFS SQLite store binds them as they are.
        retainRaw: "bytes",
        onProgress: (bytes) => send({ ...base, bytesDone: bytesBefore + bytes, phase: "reading" }),
      });
      send({ ...base, bytesDone: bytesBefore + source.size, phase: "saving" }, true);
      const stored = await storeImported(store, parsed, source.path, ask);
      results.push({
        path: source.path,
        size: source.size,
        ...stored,
        sourceVersion: parsed.sourceVersion,
        entryCount: parsed.entries.length,
      });
    } catch (error) {
      results.push({
        path: source.path,
        size: source.size,
        status: "failed",
        error: toErrorView(error),
      });
    }
    bytesBefore += source.size;
  }
  send({
    fileIndex: sources.length - 1,
    fileCount: sources.length,
    path: "",
    bytesDone: bytesTotal,
    bytesTotal,
    phase: "done",
  }, true);
  return results;
}

/** Sources for files handed over by the page. */
export function fileSources(files: Array<{ file: File; path: string }>): ImportSource[] {
  return files.map(({ file, path }) => ({
    path: path || file.name,
    size: file.size,
    open: async () => file.stream(),
  }));
}

/**
 * Walk a picked folder for `.jsonl` files (breadth first, hidden entries skipped), so a
 * pick of `~/.pi/agent/sessions` finds every `--<cwd>--/<timestamp>_<id>.jsonl`.
 */
export async function directorySources(root: FileSystemDirectoryHandle): Promise<ImportSource[]> {
  const sources: ImportSource[] = [];
  const queue: Array<{ handle: FileSystemDirectoryHandle; path: string; depth: number }> = [
    { handle: root, path: root.name, depth: 0 },
  ];
  while (queue.length > 0 && sources.length < MAX_FILES) {
    const { handle, path, depth } = queue.shift()!;
    const children: Array<[string, FileSystemHandle]> = [];
    const iterable = handle as unknown as {
      entries(): AsyncIterable<[string, FileSystemHandle]>;
    };
    for await (const child of iterable.entries()) children.push(child);
    children.sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0);
    for (const [name, child] of children) {
      if (name.startsWith(".")) continue;
      const childPath = `${path}/${name}`;
      if (child.kind === "directory") {
        if (depth < MAX_DEPTH) {
          queue.push({
            handle: child as FileSystemDirectoryHandle,
            path: childPath,
            depth: depth + 1,
          });
        }
      } else if (isSessionFileName(name)) {
        const file = await (child as FileSystemFileHandle).getFile();
        sources.push({ path: childPath, size: file.size, open: async () => file.stream() });
      }
    }
  }
  return sources;
}

/** Set by the build (esbuild `define`): JSON of the demo sessions, `[{ name, text }]`. */
declare const __MU_DEMO_SESSIONS__: string | undefined;

/**
 * Sources for the demo sessions. The build bundles them into the worker, so the demo
 * button works with the network off once the page has loaded; an unbundled worker
 * fetches `demo/index.json` and the files (same origin).
 */
export async function demoSources(baseUrl: string): Promise<ImportSource[]> {
  if (typeof __MU_DEMO_SESSIONS__ === "string") {
    const bundled = JSON.parse(__MU_DEMO_SESSIONS__) as Array<{ name: string; text: string }>;
    return bundled.map(({ name, text }) => {
      const bytes = new TextEncoder().encode(text);
      return {
        path: `demo/${name}`,
        size: bytes.length,
        open: async () => new Blob([bytes]).stream(),
      };
    });
  }
  const indexUrl = new URL("demo/index.json", baseUrl);
  const response = await fetch(indexUrl);
  if (!response.ok) throw new Error(`demo index: HTTP ${response.status}`);
  const index = await response.json() as { files: Array<{ name: string; size: number }> };
  return index.files.map(({ name, size }) => ({
    path: `demo/${name}`,
    size,
    open: async () => {
      const url = new URL(`demo/${encodeURIComponent(name)}`, baseUrl);
      if (url.origin !== indexUrl.origin) throw new Error("demo files must be same-origin");
      const file = await fetch(url);
      if (!file.ok || !file.body) throw new Error(`demo ${name}: HTTP ${file.status}`);
      return file.body;
    },
  }));
}
