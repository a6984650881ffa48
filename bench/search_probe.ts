/**
 * A quick search probe, outside the bench harness (not run by `deno task bench`): seeded
 * sessions of mixed prose, identifiers and CJK in a SQLite file; reports p50/p95 of 100
 * queries drawn from the data (common words, phrases, prefixes, parts of words) and of 100
 * rare terms (one session each), for the FTS index and for the scan, the index's share of the
 * file, and the cost of appends with the index on vs off (off = the index statements
 * replaced by no-ops on the same store code).
 *
 * Run: deno run -A bench/search_probe.ts [sessions=500] [entriesPerSession=20]
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { scanSearch, type SessionEntry } from "../core.ts";
import { SqliteSessionStore } from "../stores/sqlite/store.ts";
import type { SqliteDatabase } from "../stores/sqlite/_schema.ts";

const SESSIONS = Number(Deno.args[0] ?? 500);
const PER_SESSION = Number(Deno.args[1] ?? 20);
const POOL = (
  "the a to of and in fix bug token refreshToken getUserById parseConfig cache layer async " +
  "await login logger session branch compaction summary request response timeout retry " +
  "database migration schema index query 東京 天気 晴れ 日本語 テスト 数据库 查询 " +
  "snake_case_name kebab-case-name /src/auth/store.ts error warning deploy build"
).split(" ");

let seed = 1;
const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const pick = () => POOL[Math.floor(random() * POOL.length)];
const sentence = (n: number) => Array.from({ length: n }, pick).join(" ");

function session(s: number): SessionEntry[] {
  const entries: SessionEntry[] = [];
  for (let e = 0; e < PER_SESSION; e++) {
    const ts = new Date(Date.UTC(2026, 0, 1) + s * 60_000 + e * 1000).toISOString();
    const base = { id: `e${e}`, parentId: e ? `e${e - 1}` : null, timestamp: ts };
    const role = e % 2 ? "assistant" : "user";
    // One rare word per session (a ticket id), so rare terms can be timed apart.
    const text = sentence(8 + Math.floor(random() * 60)) + (e === 0 ? ` ticket${s}q` : "");
    entries.push({
      ...base,
      type: "message",
      message: role === "user"
        ? { role, content: text, timestamp: 0 }
        : { role, content: [{ type: "text", text }], timestamp: 0 },
    } as SessionEntry);
  }
  return entries;
}

/** A handle whose search-index writes do nothing (the "index off" side). */
function withoutIndex(db: SqliteDatabase): SqliteDatabase {
  const noop = { run: () => ({ changes: 0 }), all: () => [], get: () => undefined };
  return {
    exec: (sql) => db.exec(sql),
    close: () => db.close(),
    prepare: (sql) => sql.startsWith("INSERT INTO search_") ? noop : db.prepare(sql),
  };
}

async function fill(store: SqliteSessionStore): Promise<number> {
  seed = 1;
  const start = performance.now();
  for (let s = 0; s < SESSIONS; s++) {
    const entries = session(s);
    await store.create(
      { type: "session", version: 4, id: `s${s}`, createdAt: entries[0].timestamp, cwd: "/p" },
      entries.slice(0, 1),
    );
    for (const entry of entries.slice(1)) await store.append(`s${s}`, [entry]);
  }
  return performance.now() - start;
}

const quantile = (values: number[], q: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))];

const dir = await Deno.makeTempDir({ prefix: "mu-search-probe-" });
try {
  const on = await SqliteSessionStore.open(new DatabaseSync(`${dir}/on.db`));
  const off = await SqliteSessionStore.open(withoutIndex(new DatabaseSync(`${dir}/off.db`)));
  const offMs = await fill(off);
  const onMs = await fill(on);
  await off.close();
  seed = 7;
  const queries = Array.from({ length: 100 }, (_, i) => {
    const kind = i % 5;
    if (kind === 0) return pick();
    if (kind === 1) return `"${pick()} ${pick()}"`;
    if (kind === 2) return pick().slice(0, 4) + "*";
    if (kind === 3) return `${pick()} ${pick()}`;
    return pick().slice(1, 6); // part of a word or identifier
  });
  const rare = Array.from({ length: 100 }, () => `ticket${Math.floor(random() * SESSIONS)}q`);
  const time = async (fn: (q: string) => Promise<unknown>, list = queries) => {
    const ms: number[] = [];
    for (const q of list) {
      const start = performance.now();
      await fn(q);
      ms.push(performance.now() - start);
    }
    return `p50 ${quantile(ms, 0.5).toFixed(1)} ms, p95 ${quantile(ms, 0.95).toFixed(1)} ms`;
  };
  await on.search("warm");
  const fts = await time((q) => on.search(q, { limit: 20 }));
  const scan = await time((q) => scanSearch(on, q, { limit: 20 }));
  const ftsRare = await time((q) => on.search(q, { limit: 20 }), rare);
  const scanRare = await time((q) => scanSearch(on, q, { limit: 20 }), rare);
  await on.close();
  const withIndex = (await Deno.stat(`${dir}/on.db`)).size;
  const raw = new DatabaseSync(`${dir}/on.db`);
  for (const table of ["search_fts", "search_docs", "search_pending"]) {
    raw.exec(`DROP TABLE ${table}`);
  }
  raw.exec("VACUUM");
  raw.close();
  const bare = (await Deno.stat(`${dir}/on.db`)).size;
  console.log(`${SESSIONS} sessions x ${PER_SESSION} entries`);
  console.log(`common terms (a pool of ${POOL.length} words), FTS:  ${fts}`);
  console.log(`common terms, scan: ${scan}`);
  console.log(`rare terms (one session each), FTS:  ${ftsRare}`);
  console.log(`rare terms, scan: ${scanRare}`);
  console.log(`index share of the file: ${((1 - bare / withIndex) * 100).toFixed(0)} %`);
  console.log(`appends, index on / off: ${(onMs / offMs).toFixed(2)}x`);
} finally {
  await Deno.remove(dir, { recursive: true });
}
