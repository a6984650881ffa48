/**
 * Open + project a session, per store, next to the floor: reading the file's bytes and
 * `JSON.parse`-ing every line, measured in the same process so ratios survive a noisy
 * machine. Each function returns a few facts (entry and message counts) so the harness
 * can check that every path projected the same thing.
 * @module
 */
import { parseSessionJsonl, type SessionEntry, SessionIndex } from "../../core.ts";
import { jsonlDriver, type Maybe, projector, sqliteDriver } from "../drivers.ts";
import { readChunks } from "../rt.ts";
import type { BenchCase, BenchFn } from "./types.ts";
import { contextFns } from "./context.ts";

/** Parameters of the open case (from the generator's metadata). */
export interface OpenParams {
  file: string;
  dir: string;
  sessionId: string;
  lastEntryId: string;
  /** Prepared SQLite database holding the session (absent: SQLite not benchmarked). */
  sqliteDb?: string;
}

/** Splits chunks on 0x0A and hands each decoded line to `onLine` (what every reader must do). */
async function forEachLine(file: string, onLine: (line: string) => void): Promise<number> {
  const decoder = new TextDecoder();
  let pending: Uint8Array[] = [];
  let lines = 0;
  for await (const chunk of readChunks(file)) {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      let bytes = chunk.subarray(start, nl);
      if (pending.length) {
        pending.push(bytes);
        bytes = concat(pending);
        pending = [];
      }
      if (bytes.length) onLine(decoder.decode(bytes));
      lines++;
      start = nl + 1;
    }
    if (start < chunk.length) pending.push(chunk.subarray(start));
  }
  if (pending.length) onLine(decoder.decode(concat(pending)));
  return lines;
}

function concat(parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** The floor: stream the bytes, split, decode and parse every line, keep nothing. */
export function floorFn(file: string): BenchFn {
  return async () => {
    let objects = 0;
    await forEachLine(file, (line) => {
      if (JSON.parse(line)) objects++;
    });
    return { records: objects };
  };
}

/** The floor plus keeping every parsed object: what any loader that returns entries pays. */
export function floorRetainFn(file: string): BenchFn {
  return async () => {
    const kept: unknown[] = [];
    await forEachLine(file, (line) => kept.push(JSON.parse(line)));
    return { records: kept.length };
  };
}

const elapsed = (since: number) => performance.now() - since;

/** The open + project case; with `warmupWith`, warm-up rounds run on that smaller session. */
export async function openCase(
  params: OpenParams & { warmupWith?: OpenParams },
): Promise<BenchCase> {
  const main = await openFns(params);
  return params.warmupWith ? { ...main, warmup: (await openFns(params.warmupWith)).fns } : main;
}

async function openFns(params: OpenParams): Promise<BenchCase> {
  const project = await projector();
  const sqlite = params.sqliteDb ? await sqliteDriver() : "no SQLite database was prepared";
  const jsonl = await jsonlDriver();
  const facts = (entries: readonly SessionEntry[], leaf: string, index?: SessionIndex) => {
    const t = performance.now();
    if (typeof project === "string") {
      // Without the projection, at least walk the branch so the comparison stays honest.
      const path = (index ?? SessionIndex.build(entries)).getPath(leaf);
      return { entries: entries.length, path: path.length, projectMs: elapsed(t) };
    }
    const projection = project(entries, leaf, index);
    return { entries: entries.length, messages: projection.messages.length, projectMs: elapsed(t) };
  };
  const fns: Record<string, Maybe<BenchFn>> = {
    floor: floorFn(params.file),
    "floor+retain": floorRetainFn(params.file),
    "jsonl core": async () => {
      let t = performance.now();
      const parsed = await parseSessionJsonl(readChunks(params.file), { source: params.file });
      const parseMs = elapsed(t);
      t = performance.now();
      const index = SessionIndex.build(parsed.entries);
      const indexMs = elapsed(t);
      const leaf = parsed.entries[parsed.entries.length - 1].id; // leaf = last entry
      return { parseMs, indexMs, ...facts(parsed.entries, leaf, index) };
    },
  };
  fns["jsonl store"] = typeof jsonl === "string" ? jsonl : async () => {
    const store = await jsonl.open(params.dir);
    try {
      const t = performance.now();
      const loaded = await store.load(params.sessionId);
      const loadMs = elapsed(t);
      const index = SessionIndex.build(loaded.entries);
      return { loadMs, ...facts(loaded.entries, params.lastEntryId, index) };
    } finally {
      await store.close();
    }
  };
  if (typeof sqlite === "string") {
    fns["sqlite load"] = sqlite;
  } else {
    const db = params.sqliteDb!;
    fns["sqlite load"] = async () => {
      const store = await sqlite.open(db);
      try {
        const t = performance.now();
        const loaded = await store.load(params.sessionId);
        const loadMs = elapsed(t);
        const index = SessionIndex.build(loaded.entries);
        return { loadMs, ...facts(loaded.entries, params.lastEntryId, index) };
      } finally {
        await store.close();
      }
    };
  }
  Object.assign(fns, await contextFns(sqlite, jsonl, params));
  return { fns };
}
