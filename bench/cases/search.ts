/**
 * Search benchmarks (issue 14): 100 queries drawn from the data (`search_queries.ts`) over a
 * prepared SQLite database (its FTS5 index) and, for comparison, a few of them through the
 * scan over the same data's JSONL files; the index's share of the database file; and
 * single-entry appends with the index kept vs the same store code with its index writes
 * turned into no-ops.
 * @module
 */
import { copyFile, mkdir, rm } from "node:fs/promises";
import { scanSearch, type SessionEntry, type SessionHeader } from "../../core.ts";
import { continuationEntries } from "../gen/continuation.ts";
import { type BenchStore, jsonlDriver, loadModule, sqliteDriver } from "../drivers.ts";
import { type BenchQuery, drawQueries, quantile, QUERY_KINDS } from "./search_queries.ts";
import type { BenchCase, BenchFn, Facts } from "./types.ts";

/** Parameters of the search case. */
export interface SearchParams {
  /** The data: a folder of sessions or the directory of one session file. */
  source: string;
  /** Prepared SQLite database holding the same data. */
  sqliteDb?: string;
  /** `fts`: all 100 queries through the store's index; `scan`: one per kind over JSONL. */
  mode: "fts" | "scan";
}

const SAMPLE_SESSIONS = 40;
const SAMPLE_ENTRIES = 4000;

/** Entries of up to 40 sessions spread over the data, at most 4,000 of each. */
async function sample(store: BenchStore): Promise<SessionEntry[]> {
  const ids = (await store.list({ includeInternal: true })).map((info) => info.id).sort();
  const step = Math.max(1, Math.floor(ids.length / SAMPLE_SESSIONS));
  const out: SessionEntry[] = [];
  for (let i = 0; i < ids.length; i += step) {
    out.push(...(await store.load(ids[i])).entries.slice(0, SAMPLE_ENTRIES));
  }
  return out;
}

/** Run `queries` one after the other; their latencies' quantiles, overall and per kind. */
async function timeQueries(
  queries: readonly BenchQuery[],
  search: (query: string) => Promise<unknown[]>,
): Promise<Facts> {
  const times: number[] = [];
  const byKind = new Map<string, number[]>();
  let hits = 0;
  for (const query of queries) {
    const start = performance.now();
    hits += (await search(query.text)).length;
    const ms = performance.now() - start;
    times.push(ms);
    byKind.set(query.kind, [...byKind.get(query.kind) ?? [], ms]);
  }
  const facts: Facts = {
    queries: queries.length,
    hits,
    p50: quantile(times, 0.5),
    p95: quantile(times, 0.95),
    max: Math.max(...times),
  };
  for (const [kind, list] of byKind) facts[`p50 ${kind}`] = quantile(list, 0.5);
  return facts;
}

/** Bytes of the database's pages, and of the search tables' (dbstat; node:sqlite). */
async function indexShare(db: string): Promise<Facts> {
  try {
    const { DatabaseSync } = await import("node:sqlite");
    const raw = new DatabaseSync(db, { readOnly: true });
    try {
      const rows = raw.prepare("SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name")
        .all() as { name: string; bytes: number }[];
      const total = rows.reduce((sum, row) => sum + Number(row.bytes), 0);
      const index = rows.filter((row) => row.name.startsWith("search_"))
        .reduce((sum, row) => sum + Number(row.bytes), 0);
      return { dbBytes: total, indexBytes: index, indexShare: index / total };
    } finally {
      raw.close();
    }
  } catch (error) {
    return { indexShareError: (error as Error).message };
  }
}

/** The search case: `fts` (100 queries, SQLite) or `scan` (one query per kind, JSONL). */
export async function searchCase(params: SearchParams): Promise<BenchCase> {
  const jsonl = await jsonlDriver();
  if (typeof jsonl === "string") return { fns: { [params.mode]: jsonl } };
  const files = await jsonl.open(params.source);
  const queries = drawQueries(await sample(files));
  if (params.mode === "scan") {
    const firsts = Object.keys(QUERY_KINDS).map((kind) => queries.find((q) => q.kind === kind)!)
      .filter(Boolean);
    return {
      fns: { "jsonl scan": () => timeQueries(firsts, (q) => scanSearch(files, q)) },
      teardown: () => files.close(),
    };
  }
  await files.close();
  const sqlite = params.sqliteDb ? await sqliteDriver() : "no SQLite database was prepared";
  if (typeof sqlite === "string") return { fns: { "sqlite fts": sqlite } };
  const info = await indexShare(params.sqliteDb!);
  const store = await sqlite.open(params.sqliteDb!);
  if (typeof store.search !== "function") {
    await store.close();
    return { fns: { "sqlite fts": "not available yet (no search)" } };
  }
  // Warm up on one query of each kind (statements prepared, pages cached) instead of a
  // whole warm-up round: 100 common-word queries over 10,000 sessions take minutes.
  for (const kind of Object.keys(QUERY_KINDS)) {
    await store.search(queries.find((q) => q.kind === kind)?.text ?? "warm");
  }
  const fts: BenchFn = () => timeQueries(queries, (q) => store.search!(q));
  return { info, fns: { "sqlite fts": fts }, teardown: () => store.close() };
}

/** Parameters of the append-with-index case. */
export interface SearchAppendParams {
  /** A prepared database (with its index) the appends go into (copies of it). */
  baseDb: string;
  tmpDir: string;
  appends: number;
  /** Rounds (warm-up included): each round appends to its own new session. */
  rounds: number;
  /** `default`: SQLite's synchronous=FULL (an fsync per commit); `relaxed`: NORMAL. */
  durability: "default" | "relaxed";
}

/**
 * `appends` single-entry appends to a new session in a copy of `baseDb`, with the index
 * (the store as shipped) and without it (the same code, its `INSERT INTO search_` statements
 * doing nothing), at SQLite's default durability (an fsync per commit, what users get)
 * or at synchronous=NORMAL, where no fsync hides the index's CPU cost.
 *
 * Appends leave their entries to be indexed later (`stores/sqlite/search/_backlog.ts`):
 * "index on" is the appends alone (the store's idle-time indexing switched off, so none of
 * it lands in another side's time); "index on + indexed" is the same appends followed by
 * a search, which indexes what they left: the whole cost of the index, paid wherever.
 */
export async function searchAppendCase(params: SearchAppendParams): Promise<BenchCase> {
  const sides = ["index on", "index on + indexed", "index off"];
  const mod = await loadModule("stores/sqlite/store.ts");
  if (typeof mod === "string") return { fns: Object.fromEntries(sides.map((s) => [s, mod])) };
  type Open = (db: unknown, options: object) => Promise<BenchStore>;
  const open = (mod.SqliteSessionStore as { open: Open }).open;
  const { DatabaseSync } = await import("node:sqlite");
  await rm(params.tmpDir, { recursive: true, force: true });
  await mkdir(params.tmpDir, { recursive: true });
  const stores: Record<string, BenchStore> = {};
  for (const [i, side] of sides.entries()) {
    const file = `${params.tmpDir}/${i}.db`;
    await copyFile(params.baseDb, file);
    const db = new DatabaseSync(file);
    const synchronous = params.durability === "relaxed" ? "NORMAL" : null;
    const options = { synchronous, searchIndexIdleMs: Infinity };
    stores[side] = await open(side === "index off" ? withoutIndex(db) : db, options);
  }
  const chain = continuationEntries(params.appends * params.rounds, null) as SessionEntry[];
  const fn = (side: string): BenchFn => {
    let round = 0;
    return async () => {
      const entries = chain.slice(round * params.appends, (round + 1) * params.appends);
      const header: SessionHeader = {
        type: "session",
        version: 4,
        id: `bench-search-append-${round++}`,
        createdAt: new Date(Date.UTC(2026, 10, 1)).toISOString(),
        cwd: "/home/dev/projects/mu-sessions",
      };
      const store = stores[side];
      await store.create(header);
      for (
        const entry of [{ ...entries[0], parentId: null } as SessionEntry, ...entries.slice(1)]
      ) {
        await store.append(header.id, [entry]);
      }
      if (side === "index on + indexed") await store.search!("qqqqzzzz");
      return { appends: entries.length };
    };
  };
  return {
    fns: Object.fromEntries(sides.map((side) => [side, fn(side)])),
    teardown: async () => {
      for (const store of Object.values(stores)) await store.close();
      await rm(params.tmpDir, { recursive: true, force: true });
    },
  };
}

interface RawDb {
  exec(sql: string): void;
  close(): void;
  prepare(sql: string): unknown;
}

/** A handle whose search-index writes do nothing (the "index off" side). */
function withoutIndex(db: RawDb): RawDb {
  const noop = { run: () => ({ changes: 0 }), all: () => [], get: () => undefined };
  return {
    exec: (sql) => db.exec(sql),
    close: () => db.close(),
    prepare: (sql) => sql.startsWith("INSERT INTO search_") ? noop : db.prepare(sql),
  };
}
