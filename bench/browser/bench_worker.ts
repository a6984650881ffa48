/**
 * Browser benchmark worker: the viewer's import path (stream the response body through
 * `parseSessionJsonl` with throttled progress, then one `create` into the OPFS SQLite
 * store), with each phase timed.
 * @module
 */
import { parseSessionJsonl } from "../../src/jsonl.ts";
import { openSqliteWasmStore } from "../../stores/sqlite/wasm.ts";

const post = (message: unknown) => (self as unknown as Worker).postMessage(message);

self.onmessage = async (event: MessageEvent) => {
  const { url, size } = event.data as { url: string; size: number };
  try {
    const t0 = performance.now();
    // As the viewer opens it (web/worker/storage.ts): a large import is indexed for search
    // by the first search, which reports hits as it goes; timed below to its first hits
    // and to its end.
    const store = await openSqliteWasmStore({
      vfs: "opfs-sahpool",
      filename: "/bench.sqlite3",
      deferSearchIndexAbove: 1000,
    });
    const t1 = performance.now();
    const response = await fetch(url);
    if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
    let lastSent = 0;
    const parsed = await parseSessionJsonl(response.body, {
      source: url,
      onProgress: (bytes) => {
        const now = performance.now();
        if (now - lastSent < 50) return; // what the viewer does: at most 20 events a second
        lastSent = now;
        post({ kind: "progress", bytes, total: size });
      },
    });
    const t2 = performance.now();
    if (await store.has(parsed.header.id)) await store.delete(parsed.header.id);
    const t3 = performance.now();
    await store.create(parsed.header, parsed.entries);
    const t4 = performance.now();
    const listed = await store.list({ includeInternal: true });
    const t5 = performance.now();
    let firstHitsMs: number | undefined;
    // A word of the generated prose, found all through the session (a word it lacks would
    // time the whole index build, with no hits to show first).
    await store.search?.("sqlite", {
      onProgress: ({ hits }) => {
        if (firstHitsMs === undefined && hits.length) firstHitsMs = performance.now() - t5;
      },
    });
    const firstSearchMs = performance.now() - t5;
    await store.close();
    post({
      kind: "done",
      entries: parsed.entries.length,
      bytes: size,
      timings: {
        openStoreMs: t1 - t0,
        fetchParseMs: t2 - t1,
        deletePreviousMs: t3 - t2,
        createMs: t4 - t3,
        listMs: t5 - t4,
        totalMs: t5 - t0,
        listed: listed.length,
        firstSearchMs,
        // A search that answers at once reports nothing before its hits.
        firstHitsMs: firstHitsMs ?? firstSearchMs,
      },
    });
  } catch (error) {
    post({
      kind: "error",
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    });
  }
};
