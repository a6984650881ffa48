/**
 * Where the viewer's import time goes, phase by phase, in a browser worker (driven by
 * `import_breakdown.ts`): each phase runs over the whole file on its own, so a phase's cost
 * is its time less the phase before it (read → split lines → JSON.parse → the full parse
 * with validation → the store's row preparation → the SQLite insert, per VFS and page size),
 * then what opening the session reads first (`loadContext`, its projection, the listing).
 * The insert's time inside the database is also given per statement (`in SQL`), and a
 * variant may add pragmas, parse from `Blob.slice` reads, or use an in-memory database.
 * @module
 */
import { JsonlLineSplitter, parseSessionJsonl, readableChunks } from "../../src/jsonl.ts";
import { type LoadedContext, projectLoadedContext } from "../../src/context_load.ts";
import { encodeSession } from "../../src/_records.ts";
import { toEntryRows } from "../../stores/sqlite/_rows.ts";
import { SqliteSessionStore } from "../../stores/sqlite/store.ts";
import { loadSqliteWasm, oo1Database } from "../../stores/sqlite/wasm.ts";
import type { SqliteDatabase } from "../../stores/sqlite/_schema.ts";

const post = (message: unknown) => (self as unknown as Worker).postMessage(message);

async function timed(fn: () => Promise<unknown> | unknown): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

async function eachChunk(blob: Blob, fn: (chunk: Uint8Array) => void): Promise<void> {
  for await (const chunk of readableChunks(blob.stream())) fn(chunk);
}

/** Milliseconds spent inside the database per SQL text (its first words), since the last take. */
const inside = new Map<string, number>();

/** `db` with the time of every call added to {@link inside}. */
function timedDatabase(db: SqliteDatabase): SqliteDatabase {
  const add = <T>(key: string, fn: () => T): T => {
    const t0 = performance.now();
    try {
      return fn();
    } finally {
      inside.set(key, (inside.get(key) ?? 0) + performance.now() - t0);
    }
  };
  const keyOf = (sql: string) => sql.replace(/\s+/g, " ").slice(0, 48);
  return {
    ...db,
    exec: (sql) => add(keyOf(sql), () => db.exec(sql)),
    prepare(sql) {
      const statement = db.prepare(sql);
      const key = keyOf(sql);
      return {
        run: (...params) => add(key, () => statement.run(...params)),
        get: (...params) => add(key, () => statement.get(...params)),
        all: (...params) => add(key, () => statement.all(...params)),
      };
    },
    close: () => db.close(),
  };
}

/** A store over a fresh database on `vfs`, with `pageSize` set before the schema exists. */
async function freshStore(
  vfs: "opfs" | "opfs-sahpool" | "memory",
  pageSize: number,
  name: string,
  pragmas: string[] = [],
) {
  const sqlite3 = await loadSqliteWasm();
  const filename = `/breakdown-${name}.sqlite3`;
  let db;
  if (vfs === "memory") {
    db = new sqlite3.oo1.DB(":memory:"); // no VFS: what SQLite and the binding cost alone
  } else if (vfs === "opfs") {
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
  for (const pragma of pragmas) db.exec(`PRAGMA ${pragma}`);
  return new SqliteSessionStore(timedDatabase(oo1Database(db)), {
    journalMode: null,
    deferSearchIndexAbove: 1000,
  });
}

type Variant = {
  vfs: "opfs" | "opfs-sahpool" | "memory";
  pageSize: number;
  bytes?: boolean;
  /** Pragmas run on the fresh database before the store opens it (`"cache_size = -65536"`). */
  pragmas?: string[];
  /** Parse from slices of this many bytes (`Blob.slice`) instead of `Blob.stream()`. */
  slices?: number;
};

/** The blob as a stream of `size`-byte slices. */
function sliceStream(blob: Blob, size: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    async pull(controller) {
      if (at >= blob.size) return controller.close();
      controller.enqueue(new Uint8Array(await blob.slice(at, at += size).arrayBuffer()));
    },
  });
}
type Parsed = Awaited<ReturnType<typeof parseSessionJsonl>>;

/** The parse and split phases (each over the whole file). */
async function parsePhases(blob: Blob, timings: Record<string, number>): Promise<Parsed> {
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
  let parsed!: Parsed;
  timings.parseValidate = await timed(async () => parsed = await parseSessionJsonl(blob.stream()));
  timings.rowPrep = await timed(() => {
    encodeSession(parsed.header, []);
    toEntryRows(parsed.entries);
  });
  return parsed;
}

/** Each variant: parse if the kind of retained raw changes, create, then the first reads. */
async function createPhases(
  blob: Blob,
  variants: Variant[],
  timings: Record<string, number>,
  parsed: Parsed | undefined,
): Promise<Parsed | undefined> {
  let parsedAs: string | undefined = parsed ? "text" : undefined;
  for (const [round, variant] of variants.entries()) {
    const { vfs, pageSize, bytes = false, pragmas = [], slices } = variant;
    // The round in the name: a variant measured twice keeps both figures.
    const name = `${vfs} ${pageSize}${bytes ? " bytes" : ""}${
      pragmas.length ? ` ${pragmas.join(" ")}` : ""
    } #${round + 1}`;
    const parseAs = `${bytes ? " bytes" : ""}${slices ? ` slices ${slices}` : ""}`;
    if (parseAs !== parsedAs) {
      // Entries keeping their lines' bytes, bound as they are (`retainRaw: "bytes"`).
      parsed = undefined; // one parsed copy at a time
      const stream = slices ? sliceStream(blob, slices) : blob.stream();
      timings[`parseValidate${parseAs} #${round + 1}`] = await timed(async () =>
        parsed = await parseSessionJsonl(stream, bytes ? { retainRaw: "bytes" } : {})
      );
      parsedAs = parseAs;
    }
    const { header, entries } = parsed!;
    const store = await freshStore(vfs, pageSize, `v${round}`, pragmas);
    try {
      inside.clear();
      timings[`create ${name}`] = await timed(() => store.create(header, entries));
      for (const [sql, ms] of inside) if (ms >= 20) timings[`  in SQL #${round + 1}: ${sql}`] = ms;
      // What opening the session in the viewer reads first (warm connection, as there).
      let loaded!: LoadedContext;
      timings[`loadContext ${name}`] = await timed(async () =>
        loaded = await store.loadContext(header.id)
      );
      timings[`project ${name}`] = await timed(() => projectLoadedContext(loaded));
      timings[`list ${name}`] = await timed(() => store.list({ includeInternal: true }));
      timings[`close ${name}`] = await timed(() => store.close());
    } finally {
      await store.close();
    }
  }
  return parsed;
}

self.onmessage = async (event: MessageEvent) => {
  // createOnly: only the variants' parse and create (the split phases take minutes at 100k).
  const { url, variants, createOnly } = event.data as {
    url: string;
    variants: Variant[];
    createOnly?: boolean;
  };
  try {
    const blob = await (await fetch(url)).blob();
    const timings: Record<string, number> = {};
    timings.read = await timed(() => eachChunk(blob, () => {}));
    // The same bytes read as slices of 4 MB (`Blob.slice().arrayBuffer()`), not streamed.
    timings["read (4 MB slices)"] = await timed(async () => {
      for (let at = 0; at < blob.size; at += 4 << 20) {
        new Uint8Array(await blob.slice(at, at + (4 << 20)).arrayBuffer());
      }
    });
    const first = createOnly ? undefined : await parsePhases(blob, timings);
    const parsed = await createPhases(blob, variants, timings, first);
    post({ kind: "done", timings, entries: parsed?.entries.length, bytes: blob.size });
  } catch (error) {
    post({
      kind: "error",
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    });
  }
};
