/**
 * SIGKILL during appends, creates, imports and upgrade rewrites, per persistent store (JSONL
 * in Deno, SQLite in Deno over node:sqlite and in Node 20 over better-sqlite3). A child
 * writes and prints an acknowledgement per resolved write; the parent kills it at a seeded
 * random moment, then checks with its own fresh store (a new process from the killed one):
 * every acknowledged write present, no duplicate ids, no dangling parents, the session
 * opens (a torn tail repaired with `repairSession`, the spec's rule), and the next append
 * succeeds. Each series goes on from the state the kills left, so the next child also
 * writes after a crash.
 *
 * @module
 */
import { SessionFormatError, type SessionStore } from "../../core.ts";
import { openJsonlFsStore } from "../../stores/jsonl/fs.ts";
import type { JsonlSessionStore } from "../../stores/jsonl/store.ts";
import { hashSessionId, sessionFileName } from "../../stores/jsonl/_folder.ts";
import { DAY_MS, TEMP_NAME, TEMP_STALE_MS } from "../../stores/jsonl/_leftovers.ts";
import { processAlive } from "../../stores/jsonl/_lockfile.ts";
import { openSqliteStore } from "../../stores/sqlite/file.ts";
import type { ChildArgs } from "./child.ts";
import { exportIds, exportText, KILL_SIZES } from "./_sources.ts";
import {
  type Checks,
  deriveSeed,
  header,
  messageEntry,
  Rng,
  type Runtime,
  sessionProblems,
  sleep,
  spawnChild,
  tempDir,
} from "./_shared.ts";

type Op = ChildArgs["mode"];
type StoreKind = ChildArgs["store"];

const TARGETS: { store: StoreKind; runtime: Runtime; label: string }[] = [
  { store: "jsonl", runtime: "deno", label: "JSONL (Deno)" },
  { store: "sqlite", runtime: "deno", label: "SQLite node:sqlite (Deno)" },
  { store: "sqlite", runtime: "node", label: "SQLite better-sqlite3 (Node 20)" },
];
const OPS: Op[] = ["append", "create", "import", "upgrade"];
const SIZES = KILL_SIZES;
const UPGRADE_FILES_PER_ROUND = 8;
/** The verifier's lock wait: a dead writer's lock must not hold anyone up this long. */
const VERIFY_LOCK_MS = 3_000;

/** Figures of one series (store x operation). */
export interface KillFigures {
  label: string;
  op: Op;
  kills: number;
  acknowledged: number;
  lost: number;
  repairs: number;
  /** The most attempts the next append needed after a kill. */
  maxAppendAttempts: number;
  /** Crash leftovers (temp copies, locks, break guards) found at the end, all swept. */
  leftovers: number;
}

interface Series {
  store: StoreKind;
  location: string;
  checks: Checks;
  figures: KillFigures;
  /** Acknowledged: session id -> entry ids that must be there. */
  acked: Map<string, string[]>;
  /** Sessions written since the last check (older ones were checked and left alone). */
  touched: Set<string>;
  /** Sessions already checked. */
  seen: Set<string>;
}

async function openFresh(series: Series): Promise<SessionStore> {
  return series.store === "jsonl"
    ? await openJsonlFsStore(series.location, {
      trashCommand: false,
      lockTimeoutMs: VERIFY_LOCK_MS,
    })
    : await openSqliteStore(series.location);
}

const isTorn = (error: unknown) =>
  error instanceof SessionFormatError && error.reason.startsWith("torn final record");

/** Load, repairing a torn tail first (JSONL refuses to append onto one until repaired). */
async function loadOrRepair(store: SessionStore, series: Series, id: string) {
  try {
    return await store.load(id);
  } catch (error) {
    if (!isTorn(error) || series.store !== "jsonl") throw error;
    series.figures.repairs++;
    await (store as JsonlSessionStore).repairSession(id);
    return await store.load(id);
  }
}

/**
 * Lock files left by a kill with no owner written, and lock-break guards left by a kill
 * (both would hold the next writer up for seconds: issue 11 finding 1), removed so the
 * series goes on.
 */
async function ownerlessLocks(series: Series): Promise<string[]> {
  const found: string[] = [];
  for await (const item of Deno.readDir(series.location)) {
    const path = `${series.location}/${item.name}`;
    if (item.name.endsWith(".lock.break")) found.push(path);
    if (!item.name.endsWith(".lock")) continue;
    const text = await Deno.readTextFile(path).catch(() => "");
    let owned = false;
    try {
      owned = typeof JSON.parse(text).pid === "number";
    } catch {
      // empty or half-written: no owner
    }
    if (!owned) found.push(path);
  }
  return found;
}

/** What a kill can leave in a JSONL folder: temp copies, lock files, break guards. */
const LEFTOVER = /\.(tmp|lock|lock\.break)$/;

async function leftovers(series: Series): Promise<string[]> {
  const found: string[] = [];
  for await (const item of Deno.readDir(series.location)) {
    if (LEFTOVER.test(item.name)) found.push(item.name);
  }
  return found.sort();
}

/**
 * Issue 11 finding 11: a store's first listing sweeps crash leftovers once provably dead.
 * The rule waits {@link TEMP_STALE_MS} after a temp file's last write, so what the kills
 * left is backdated: past that bound everything whose writer is gone must go (a temp file
 * whose pid now runs again may stay: the pid was reused), past a day everything. Returns
 * how many there were.
 */
async function sweptOnceOld(series: Series, where: string): Promise<number> {
  if (series.store !== "jsonl") return 0;
  const found = await leftovers(series);
  const ageAll = async (ms: number) => {
    const then = new Date(Date.now() - ms);
    for (const name of await leftovers(series)) {
      await Deno.utime(`${series.location}/${name}`, then, then).catch(() => {});
    }
  };
  const listFresh = async () => {
    const store = await openFresh(series);
    try {
      await store.list({ includeInternal: true });
    } finally {
      await store.close();
    }
  };
  await ageAll(TEMP_STALE_MS + 60_000);
  await listFresh();
  const kept = (await leftovers(series)).filter((name) => {
    const pid = TEMP_NAME.exec(name)?.[1];
    return pid === undefined || !processAlive(Number(pid));
  });
  series.checks.check(
    kept.length === 0,
    `${where}: crash leftovers not swept a minute after their writer died (finding 11): ${kept}`,
  );
  await ageAll(2 * DAY_MS);
  await listFresh();
  const left = await leftovers(series);
  series.checks.check(
    left.length === 0,
    `${where}: crash leftovers not swept after a day (finding 11): ${left}`,
  );
  return found.length;
}

/** The checks after one kill, in this (parent) process with a fresh store. */
async function verify(series: Series, round: number, appendTo: string): Promise<void> {
  const { checks, figures } = series;
  const where = `${figures.label} ${figures.op} kill ${round}`;
  if (series.store === "jsonl") {
    const stale = await ownerlessLocks(series);
    checks.check(stale.length === 0, `${where}: owner-less lock left (finding 1): ${stale}`);
    for (const path of stale) await Deno.remove(path).catch(() => {});
  }
  const store = await openFresh(series);
  try {
    const rows = await store.list({ includeInternal: true });
    const listed = new Set(rows.map((row) => row.id));
    checks.check(listed.size === rows.length, `${where}: a session is listed twice`);
    const notSessions = rows.filter((row) => LEFTOVER.test(row.path)).map((row) => row.path);
    checks.check(
      notSessions.length === 0,
      `${where}: crash leftovers listed as sessions (finding 11): ${notSessions}`,
    );
    for (const id of series.touched) {
      const ids = series.acked.get(id)!;
      checks.check(listed.has(id), `${where}: acknowledged session ${id} not listed`);
      let loaded;
      try {
        loaded = await loadOrRepair(store, series, id);
      } catch (error) {
        checks.check(false, `${where}: session ${id} does not open: ${error}`);
        continue;
      }
      const { problems, lost } = sessionProblems(loaded.entries, ids);
      figures.lost += lost;
      for (const problem of problems) checks.check(false, `${where}: ${id}: ${problem}`);
    }
    // Every other listed session (written but not acknowledged) opens too: all or nothing.
    for (const row of rows) {
      if (series.acked.has(row.id) || series.seen.has(row.id)) continue;
      series.seen.add(row.id);
      try {
        const loaded = await loadOrRepair(store, series, row.id);
        checks.check(
          sessionProblems(loaded.entries, []).problems.length === 0,
          `${where}: unacknowledged ${row.id} is inconsistent`,
        );
      } catch (error) {
        checks.check(false, `${where}: unacknowledged ${row.id} does not open: ${error}`);
      }
    }
    figures.maxAppendAttempts = Math.max(
      figures.maxAppendAttempts,
      await nextAppend(store, series, appendTo, `${where}: next append`),
    );
  } finally {
    await store.close();
  }
}

/** Append one entry after a kill; the first attempt should do. Returns the attempts made. */
async function nextAppend(store: SessionStore, series: Series, id: string, where: string) {
  for (let attempt = 1; attempt <= 3; attempt++) {
    try {
      const { entries } = await loadOrRepair(store, series, id);
      const entry = messageEntry(`v${crypto.randomUUID().slice(0, 12)}`, entries.at(-1)!.id);
      await store.append(id, [entry]);
      series.acked.get(id)!.push(entry.id);
      series.checks.check(attempt === 1, `${where} needed ${attempt} attempts`);
      return attempt;
    } catch (error) {
      if (attempt === 3) series.checks.check(false, `${where} failed 3 times: ${error}`);
    }
  }
  return 3;
}

/** Write `count` format-3 sessions straight into the JSONL folder, for upgrade children. */
async function writeOlderFiles(series: Series, round: number): Promise<string[]> {
  const ids: string[] = [];
  for (let j = 0; j < UPGRADE_FILES_PER_ROUND; j++) {
    const id = `old${round}-${j}`;
    const name = sessionFileName("2026-01-01T00:00:00.000Z", await hashSessionId(id));
    await Deno.writeTextFile(`${series.location}/${name}`, exportText(id, 3, SIZES.upgrade));
    series.acked.set(id, exportIds(SIZES.upgrade)); // written by us: must survive the rewrite
    series.touched.add(id);
    ids.push(id);
  }
  return ids;
}

/** Fold a child's acknowledgements into what must survive. */
function recordAcks(series: Series, op: Op, lines: string[], mainId: string): number {
  let count = 0;
  for (const line of lines) {
    const [word, id, entryId] = line.split(" ");
    if (word !== "ack") continue;
    count++;
    series.touched.add(op === "append" ? mainId : id);
    if (op === "append") series.acked.get(mainId)!.push(id);
    else if (op === "upgrade" && entryId) series.acked.get(id)!.push(entryId);
    else if (op === "upgrade" && series.store === "sqlite") {
      series.acked.set(id, exportIds(SIZES.upgrade));
    } else {series.acked.set(
        id,
        op === "create"
          ? exportIds(SIZES.create).map((_, n) => `${id}e${n}`)
          : exportIds(SIZES.import),
      );}
  }
  return count;
}

async function runSeries(
  target: (typeof TARGETS)[number],
  op: Op,
  kills: number,
  checks: Checks,
): Promise<KillFigures> {
  const rng = new Rng(deriveSeed(checks.seed, `kill ${target.label} ${op}`));
  const dir = await tempDir(`kill-${target.store}-${op}`);
  const series: Series = {
    store: target.store,
    location: target.store === "jsonl" ? `${dir}/sessions` : `${dir}/sessions.db`,
    checks,
    figures: {
      label: target.label,
      op,
      kills: 0,
      acknowledged: 0,
      lost: 0,
      repairs: 0,
      maxAppendAttempts: 0,
      leftovers: 0,
    },
    acked: new Map(),
    touched: new Set(),
    seen: new Set(),
  };
  // The session appended to after every kill (and by the append children).
  const mainId = "main";
  const store = await openFresh(series);
  await store.create(header(mainId), [messageEntry("root0000", null)]);
  await store.close();
  series.acked.set(mainId, ["root0000"]);
  try {
    for (let round = 0; round < kills; round++) {
      const ids = op === "upgrade" && target.store === "jsonl"
        ? await writeOlderFiles(series, round)
        : undefined;
      const args: ChildArgs = {
        mode: op,
        store: target.store,
        location: series.location,
        sessionId: mainId,
        prefix: `r${round}x`,
        ids,
      };
      const child = await spawnChild(target.runtime, args);
      // Kill after a random number of acknowledged writes plus a random few ms, so kills
      // land at every phase of a write (before, inside, between its steps, after).
      const wanted = 1 + rng.int(op === "append" ? 25 : 4);
      const acks = (lines: string[]) => lines.filter((line) => line.startsWith("ack")).length;
      const alive = await child.until((lines) =>
        acks(lines) >= wanted || lines.includes("exhausted")
      );
      if (alive) await sleep(rng.int(12));
      child.kill();
      const status = await child.done;
      if (!checks.check(alive, `${target.label} ${op}: child ended early: ${status.stderr}`)) {
        continue;
      }
      series.figures.kills++;
      series.figures.acknowledged += recordAcks(series, op, child.lines, mainId);
      series.touched.add(mainId);
      await verify(series, round, mainId);
      series.touched.clear();
    }
    series.figures.leftovers = await sweptOnceOld(series, `${target.label} ${op}`);
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
  return series.figures;
}

/**
 * All series: every target x operation, `kills` kills each. The three targets run side by
 * side (a round mostly waits for a child to start), the operations of one in turn.
 */
export async function killSection(checks: Checks, kills: number): Promise<KillFigures[]> {
  const perTarget = await Promise.all(TARGETS.map(async (target) => {
    const figures: KillFigures[] = [];
    for (const op of OPS) {
      const result = await runSeries(target, op, kills, checks);
      console.log(
        `  ${result.label} ${op}: ${result.kills} kills, ${result.acknowledged} acknowledged, ` +
          `${result.lost} lost, ${result.repairs} torn tails repaired, ` +
          `next append <= ${result.maxAppendAttempts} attempt(s), ` +
          `${result.leftovers} crash leftovers swept`,
      );
      figures.push(result);
    }
    return figures;
  }));
  return perTarget.flat();
}
