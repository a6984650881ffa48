/**
 * Where the viewer's import time goes, phase by phase, in a browser worker (driven by
 * `import_breakdown.ts`): each phase runs over the whole file on its own, so a phase's cost
 * is its time less the phase before it (read → split lines → JSON.parse → the full parse
 * with validation → the store's row preparation → the SQLite insert, per VFS and page size),
 * then what opening the session reads first (`loadContext`, its projection, the listing).
 * @module
 */
import { JsonlLineSplitter, parseSessionJsonl, readableChunks } from "../../src/jsonl.ts";
import { type LoadedContext, projectLoadedContext } from "../../src/context_load.ts";
import { encodeSession } from "../../src/records.ts";
import { toEntryRows } from "../../stores/sqlite/_rows.ts";
import { SqliteSessionStore } from "../../stores/sqlite/store.ts";
import { loadSqliteWasm, oo1Database } from "../../stores/sqlite/wasm.ts";

const post = (message: unknown) => (self as unknown as Worker).postMessage(message);

async function timed(fn: () => Promise<unknown> | unknown): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

async function eachChunk(blob: Blob, fn: (chunk: Uint8Array) => void): Promise<void> {
  for await (const chunk of readableChunks(blob.stream())) fn(chunk);
}

/** A store over a fresh database on `vfs`, with `pageSize` set before the schema exists. */
async function freshStore(vfs: "opfs" | "opfs-sahpool", pageSize: number, name: string) {
  const sqlite3 = await loadSqliteWasm();
  const filename = `/breakdown-${name}.sqlite3`;
  let db;
  if (vfs === "opfs") {
    const root = await navigator.storage.getDirectory();
    for (const suffix of ["", "-journal"]) {
      await root.removeEntry(filename.slice(1) + suffix).catch(() => {});
    }
    db = new sqlite3.oo1.OpfsDb(filename, "c");
  } else {
    const pool = await sqlite3.installOpfsSAHPoolVfs({ directory: ".breakdown-pool" });
    await pool.reserveMinimumCapacity(8);
    pool.unlink(filename);
    db = new pool.OpfsSAHPoolDb(filename);
  }
  db.exec(`PRAGMA page_size = ${pageSize}`);
  return new SqliteSessionStore(oo1Database(db), {
    journalMode: null,
    deferSearchIndexAbove: 1000,
  });
}

self.onmessage = async (event: MessageEvent) => {
  const { url, variants } = event.data as {
    url: string;
    variants: Array<{ vfs: "opfs" | "opfs-sahpool"; pageSize: number; bytes?: boolean }>;
  };
  try {
    const blob = await (await fetch(url)).blob();
    const timings: Record<string, number> = {};
    timings.read = await timed(() => eachChunk(blob, () => {}));
    // What the splitter did before imp12: a fatal decode of every line (Chromium: twice the
    // non-fatal decode the splitter does now).
    timings["split, fatal decode (before)"] = await timed(() => {
      const fatal = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
      return eachChunk(blob, (chunk) => {
        for (let start = 0, end; (end = chunk.indexOf(10, start)) !== -1; start = end + 1) {
          fatal.decode(chunk.subarray(start, end));
        }
      });
    });
    timings.split = await timed(async () => {
      const splitter = new JsonlLineSplitter(() => {});
      await eachChunk(blob, (chunk) => splitter.push(chunk));
      splitter.end();
    });
    timings.jsonParse = await timed(async () => {
      const splitter = new JsonlLineSplitter((record) => JSON.parse(record.text));
      await eachChunk(blob, (chunk) => splitter.push(chunk));
      splitter.end();
    });
    let parsed!: Awaited<ReturnType<typeof parseSessionJsonl>>;
    timings.parseValidate = await timed(async () =>
      parsed = await parseSessionJsonl(blob.stream())
    );
    timings.rowPrep = await timed(() => {
      encodeSession(parsed.header, []);
      toEntryRows(parsed.entries);
    });
    let parsedBytes = false;
    for (const [round, { vfs, pageSize, bytes = false }] of variants.entries()) {
      // The round in the name: a variant measured twice keeps both figures.
      const name = `${vfs} ${pageSize}${bytes ? " bytes" : ""} #${round + 1}`;
      if (bytes !== parsedBytes) {
        // Entries keeping their lines' bytes, bound as they are (`retainRaw: "bytes"`).
        parsed = undefined as unknown as typeof parsed; // one parsed copy at a time
        timings[`parseValidate${bytes ? " bytes" : ""} #${round + 1}`] = await timed(async () =>
          parsed = await parseSessionJsonl(blob.stream(), bytes ? { retainRaw: "bytes" } : {})
        );
        parsedBytes = bytes;
      }
      const store = await freshStore(vfs, pageSize, name.replace(/\W+/g, "-"));
      try {
        timings[`create ${name}`] = await timed(() => store.create(parsed.header, parsed.entries));
        // What opening the session in the viewer reads first (warm connection, as there).
        let loaded!: LoadedContext;
        timings[`loadContext ${name}`] = await timed(async () =>
          loaded = await store.loadContext(parsed.header.id)
        );
        timings[`project ${name}`] = await timed(() => projectLoadedContext(loaded));
        timings[`list ${name}`] = await timed(() => store.list({ includeInternal: true }));
      } finally {
        await store.close();
      }
    }
    post({ kind: "done", timings, entries: parsed.entries.length, bytes: blob.size });
  } catch (error) {
    post({
      kind: "error",
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    });
  }
};
