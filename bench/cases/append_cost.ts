/**
 * What one JSONL append costs against what the disk costs (issue 12): the same bytes
 * written with `writeSync` + `fsyncSync` (the floor), the store's durable append, its
 * relaxed append (no fsync; against `writeSync` alone, and against pi's own way of appending,
 * below), and eight appends in flight at once (group commit: one fsync serves the waiting
 * appends). Every function appends the same `appends` entries one at a time onto its own
 * session file, round-robin in one process, so the ratios share the machine's noise.
 *
 * "pi append" is what pi's `SessionManager` does per entry once its file exists (anchor notes
 * §6.1, §6.4): `appendFileSync(file, JSON.stringify(entry) + "\n")`, no fsync, no lock, no
 * check of the file. It serialises inside the timed loop, as the store does.
 *
 * Both run under the same harness, as a user's code runs them: appends awaited back to back,
 * with no forced garbage collection before each call (`collectBetween: false`; a collection
 * before every call billed the allocating side for heap work a user's burst never sees).
 * Each call also reports its CPU time (`cpuMs`), steadier than the wall clock on a shared
 * machine.
 * @module
 */
import { appendFileSync, closeSync, fsyncSync, openSync, writeFileSync, writeSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import process from "node:process";
import type { SessionEntry, SessionHeader } from "../../core.ts";
import { continuationEntries } from "../gen/continuation.ts";
import { jsonlDriver } from "../drivers.ts";
import type { BenchCase } from "./types.ts";

/** Parameters of the append-cost case. */
export interface AppendCostParams {
  appends: number;
  /** Rounds (warm-up included): entries are pre-built. */
  rounds: number;
  tmpDir: string;
}

const header = (id: string): SessionHeader => ({
  type: "session",
  version: 4,
  id,
  createdAt: new Date(Date.UTC(2026, 10, 1)).toISOString(),
  cwd: "/home/dev/projects/mu-sessions",
});

/** Per-append durable/relaxed/8-in-flight costs against raw write(+fsync) of the same bytes. */
export async function appendCostCase(params: AppendCostParams): Promise<BenchCase> {
  const driver = await jsonlDriver();
  const names = [
    "raw write+fsync",
    "jsonl durable",
    "raw write",
    "jsonl relaxed",
    "pi append",
    "jsonl 8 in flight",
  ];
  if (typeof driver === "string") return { fns: Object.fromEntries(names.map((n) => [n, driver])) };
  await rm(params.tmpDir, { recursive: true, force: true });
  await mkdir(params.tmpDir, { recursive: true });
  const entries = continuationEntries(params.appends, null) as SessionEntry[];
  const lines = entries.map((entry) => new TextEncoder().encode(`${JSON.stringify(entry)}\n`));
  const durable = await driver.open(`${params.tmpDir}/durable`);
  const relaxed = await driver.open(`${params.tmpDir}/relaxed`, { durability: "relaxed" });
  const facts = { appends: params.appends };

  let raws = 0;
  const raw = (sync: boolean) => () => {
    const fd = openSync(`${params.tmpDir}/raw-${raws++}.jsonl`, "w");
    try {
      let position = 0;
      for (const bytes of lines) {
        writeSync(fd, bytes, 0, bytes.length, position);
        position += bytes.length;
        if (sync) fsyncSync(fd);
      }
    } finally {
      closeSync(fd);
    }
    return Promise.resolve(facts);
  };
  // pi's files exist with their header before timing, as the store's sessions do.
  const piFiles = Array.from({ length: params.rounds }, (_, round) => {
    const file = `${params.tmpDir}/pi-${round}.jsonl`;
    writeFileSync(file, `${JSON.stringify(header(`pi-${round}`))}\n`);
    return file;
  });
  const pi = () => {
    const file = piFiles.shift()!;
    for (const entry of entries) appendFileSync(file, `${JSON.stringify(entry)}\n`);
    return Promise.resolve(facts);
  };
  // Sessions are created (and appended to once, so the store knows the file, as a
  // manager's would) before timing: only the appends are measured.
  let sessions = 0;
  const prepare = async (store: typeof durable) => {
    const ids: string[] = [];
    for (let round = 0; round < params.rounds; round++) {
      const id = `cost-${sessions++}`;
      await store.create(header(id));
      await store.append(id, [entries[0]]);
      ids.push(id);
    }
    return ids;
  };
  const [durableIds, relaxedIds, groupedIds] = [
    await prepare(durable),
    await prepare(relaxed),
    await prepare(durable),
  ];
  const oneByOne = (store: typeof durable, ids: string[]) => async () => {
    const id = ids.shift()!;
    for (const entry of entries) await store.append(id, [entry]);
    return facts;
  };
  const withCpu = (fn: () => Promise<typeof facts>) => async () => {
    const before = process.cpuUsage();
    const result = await fn();
    const { user, system } = process.cpuUsage(before);
    return { ...result, cpuMs: (user + system) / 1000 };
  };
  const fns = {
    "raw write+fsync": raw(true),
    "jsonl durable": oneByOne(durable, durableIds),
    "raw write": raw(false),
    "jsonl relaxed": oneByOne(relaxed, relaxedIds),
    "pi append": pi,
    "jsonl 8 in flight": async () => {
      const id = groupedIds.shift()!;
      for (let i = 0; i < entries.length; i += 8) {
        await Promise.all(entries.slice(i, i + 8).map((entry) => durable.append(id, [entry])));
      }
      return facts;
    },
  };
  return {
    info: { durable: driver.durability.default, relaxed: driver.durability.relaxed },
    fns: Object.fromEntries(Object.entries(fns).map(([name, fn]) => [name, withCpu(fn)])),
    collectBetween: false,
    teardown: async () => {
      await durable.close();
      await relaxed.close();
      await rm(params.tmpDir, { recursive: true, force: true });
    },
  };
}
