/**
 * Store benchmarks: preparing SQLite databases, listing folders of sessions, appends
 * (onto a new session and onto an opened large one) and importing a folder into SQLite.
 * Everything goes through the `SessionStore` seam, as an application would.
 * @module
 */
import { copyFile, mkdir, readdir, readFile, rm } from "node:fs/promises";
import process from "node:process";
import {
  type AgentMessage,
  parseSessionJsonl,
  type SessionEntry,
  SessionManager,
} from "../../core.ts";
import { continuationEntries } from "../gen/continuation.ts";
import {
  type BenchStore,
  jsonlDriver,
  type Maybe,
  sqliteDriver,
  type StoreDriver,
} from "../drivers.ts";
import { readChunks } from "../rt.ts";
import type { BenchCase, BenchFn, Facts } from "./types.ts";

/** The .jsonl files of a folder, sorted (the order an importer would take). */
async function sessionFiles(dir: string): Promise<string[]> {
  const names = (await readdir(dir)).filter((name) => name.endsWith(".jsonl")).sort();
  return names.map((name) => `${dir}/${name}`);
}

/** Import one file through the store seam: parse (streamed), then one atomic create. */
async function importFile(store: BenchStore, file: string, streamed: boolean): Promise<number> {
  const parsed = await parseSessionJsonl(streamed ? readChunks(file) : await readFile(file), {
    source: file,
  });
  await store.create(parsed.header, parsed.entries);
  return parsed.entries.length;
}

/**
 * Build a SQLite database from a session file or a folder (not measured: the harness
 * caches the result per data set and store version).
 */
export async function prepareSqlite(params: { source: string; db: string }): Promise<Facts> {
  const sqlite = await sqliteDriver();
  if (typeof sqlite === "string") return { unavailable: sqlite };
  await rm(params.db, { force: true });
  // Not measured and rebuilt on failure, so no fsync per session (NORMAL): minutes -> seconds.
  const store = await sqlite.open(params.db, { durability: "relaxed" });
  const t = performance.now();
  let sessions = 0;
  let entries = 0;
  try {
    const files = params.source.endsWith(".jsonl")
      ? [params.source]
      : await sessionFiles(params.source);
    for (const file of files) {
      entries += await importFile(store, file, files.length === 1);
      sessions++;
    }
  } finally {
    await store.close(); // closing checkpoints the WAL, so the file can be copied alone
  }
  return { sessions, entries, importMs: performance.now() - t };
}

/** Listing a folder of sessions: SQLite rows vs JSONL headers/tails, cold and warm. */
export async function listingCase(
  params: { folder: string; sqliteDb?: string },
): Promise<BenchCase> {
  const sqlite = params.sqliteDb ? await sqliteDriver() : "no SQLite database was prepared";
  const jsonl = await jsonlDriver();
  const fns: Record<string, Maybe<BenchFn>> = {};
  const opened: BenchStore[] = [];
  const count = async (store: BenchStore) => ({ listed: (await store.list()).length });
  if (typeof sqlite === "string") {
    fns["sqlite"] = fns["sqlite open+list"] = sqlite;
  } else {
    const store = await sqlite.open(params.sqliteDb!);
    opened.push(store);
    fns["sqlite"] = () => count(store);
    fns["sqlite open+list"] = async () => {
      const fresh = await sqlite.open(params.sqliteDb!);
      try {
        return await count(fresh);
      } finally {
        await fresh.close();
      }
    };
  }
  if (typeof jsonl === "string") {
    fns["jsonl cold"] = fns["jsonl cold, no cache"] = fns["jsonl warm"] = jsonl;
  } else {
    // Cold: a fresh store instance, as in a new process: it has the folder's persisted
    // listing cache (written by the first round), not this process's. "No cache": neither.
    // The OS page cache stays warm: dropping it needs root and would disturb everyone else.
    const cold = (listingCache: boolean) => async () => {
      const fresh = await jsonl.open(params.folder, { listingCache });
      try {
        return await count(fresh);
      } finally {
        await fresh.close();
      }
    };
    fns["jsonl cold"] = cold(true);
    fns["jsonl cold, no cache"] = cold(false);
    const warm = await jsonl.open(params.folder);
    opened.push(warm);
    await warm.list(); // fills the (path, size, mtime) cache
    fns["jsonl warm"] = () => count(warm);
  }
  return {
    fns,
    teardown: async () => {
      for (const store of opened) await store.close();
    },
  };
}

/** Parameters of the append case. */
export interface AppendParams {
  store: "sqlite" | "jsonl";
  durability: "default" | "fsync" | "relaxed";
  appends: number;
  /** How many times each function will run (warm-up included): entries are pre-built. */
  rounds: number;
  tmpDir: string;
  /** The large session to append onto. */
  big: { file: string; sessionId: string; lastEntryId: string; entries: number; sqliteDb?: string };
}

/**
 * `appends` messages appended as a user does, through a `SessionManager`: onto a new session
 * (`SessionManager.create`, then the appends) and onto the large session (`SessionManager.open`,
 * the lazy open a resume does, then the appends), each round timing the open too.
 */
export async function appendCase(params: AppendParams): Promise<BenchCase> {
  const driver: Maybe<StoreDriver> = params.store === "sqlite"
    ? await sqliteDriver()
    : await jsonlDriver();
  if (typeof driver === "string") {
    return { fns: { new: driver, [`onto ${params.big.entries}`]: driver } };
  }
  if (params.durability !== "default" && !driver.durability[params.durability]) {
    const why = `${driver.label} offers no durability option (${driver.durability.default})`;
    return { fns: { new: why, [`onto ${params.big.entries}`]: why } };
  }
  await rm(params.tmpDir, { recursive: true, force: true });
  await mkdir(params.tmpDir, { recursive: true });
  // The store under test works on a copy: appends must never touch the cached data.
  let location: string;
  if (params.store === "sqlite") {
    if (!params.big.sqliteDb) throw new Error("append onto SQLite needs a prepared database");
    location = `${params.tmpDir}/append.db`;
    await copyFile(params.big.sqliteDb, location);
  } else {
    location = `${params.tmpDir}/folder`;
    await mkdir(location);
    await copyFile(params.big.file, `${location}/${params.big.file.split("/").pop()}`);
  }
  const open = () => driver.open(location, { durability: params.durability });
  let store = await open();
  const total = params.appends * params.rounds;
  const t = performance.now();
  // Twice the entries needed: the generator mixes in entries that are not messages. Only
  // their messages are appended (the manager makes the entries, with ids it checks against
  // the session's), so the session is not loaded here: that read all 100,000 entries per
  // case (seconds on Node, and most of the child's memory) for ids nothing used.
  const chain = continuationEntries(2 * total, params.big.lastEntryId) as SessionEntry[];
  const generateMs = performance.now() - t;
  // The chain's messages, `appends` per round (the manager makes the entries around them).
  const messages = chain.flatMap((entry) => entry.type === "message" ? [entry.message] : []);
  if (messages.length < total) throw new Error(`${messages.length} messages for ${total} appends`);
  const slice = (round: number) =>
    messages.slice(round * params.appends, (round + 1) * params.appends);
  let newRound = 0;
  let ontoRound = 0;
  // The open and the first append are reported apart (facts): the first append after a
  // lazy open is where a store that reads the session's tree on demand would pay for it.
  const appendAll = async (
    open: () => Promise<SessionManager>,
    batch: readonly AgentMessage[],
  ) => {
    const cpu = process.cpuUsage();
    let t = performance.now();
    const manager = await open();
    const openMs = performance.now() - t;
    t = performance.now();
    const firstCpu = process.cpuUsage();
    await manager.appendMessage(batch[0]);
    const firstAppendMs = performance.now() - t;
    const firstAppendCpuMs = cpuMsSince(firstCpu);
    for (const message of batch.slice(1)) await manager.appendMessage(message);
    // CPU time beside the wall clock: what the code costs, apart from waiting for the disk.
    const cpuMs = cpuMsSince(cpu);
    return { appends: batch.length, openMs, firstAppendMs, firstAppendCpuMs, cpuMs };
  };
  return {
    info: { generateMs, durability: driver.durability[params.durability] },
    // Every round starts from a freshly opened store, as a user's next process would: a
    // store kept open carries deferred work between rounds (SQLite's search-index backlog of
    // the large session grew past its bound by the third round, so from then on its appends
    // indexed what the earlier rounds left, which a new session never does in its round).
    before: async () => {
      await store.close();
      store = await open();
    },
    fns: {
      // Same messages as the large-session run: only the target session differs.
      new: () =>
        appendAll(
          () => SessionManager.create(store, "/home/dev/projects/mu-sessions"),
          slice(newRound++),
        ),
      [`onto ${params.big.entries}`]: () =>
        appendAll(() => SessionManager.open(store, params.big.sessionId), slice(ontoRound++)),
    },
    teardown: async () => {
      await store.close();
      await rm(params.tmpDir, { recursive: true, force: true });
    },
  };
}

/** CPU time (user + system) of this process since `start` (`process.cpuUsage()`), in ms. */
function cpuMsSince(start: { user: number; system: number }): number {
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1000;
}

/** Import every session of a folder into a new SQLite database. */
export async function importCase(params: { folder: string; tmpDir: string }): Promise<BenchCase> {
  const sqlite = await sqliteDriver();
  if (typeof sqlite === "string") return { fns: { "sqlite import": sqlite } };
  await rm(params.tmpDir, { recursive: true, force: true });
  await mkdir(params.tmpDir, { recursive: true });
  const files = await sessionFiles(params.folder);
  let round = 0;
  return {
    fns: {
      "sqlite import": async () => {
        const db = `${params.tmpDir}/import-${round++}.db`;
        const store = await sqlite.open(db);
        let entries = 0;
        try {
          for (const file of files) entries += await importFile(store, file, false);
        } finally {
          await store.close();
        }
        await rm(db, { force: true });
        return { sessions: files.length, entries };
      },
    },
    teardown: () => rm(params.tmpDir, { recursive: true, force: true }),
  };
}
