/**
 * `deno run -A bench/serve_branch_ab.ts [--rounds=6] [--no-write] [--db=PATH]`: `mu serve`'s
 * first Conversation page of the 100k session on SQLite (`SessionPages.conversation`, a
 * fresh store each time), with the store answering the branch (`DeferredTree.branch`,
 * "store branch") against the same code with that answer withheld, so the lazy index reads
 * the session's tree columns ("tree columns", what the server did before), alternating in
 * one process. Needs the prepared database of `deno task bench --only=serve` (or another
 * copy of it, `--db`). The first round is a warm-up. Writes
 * `bench/results/serve-branch-ab-<date>.json`.
 *
 * @module
 */
import type { LazySession } from "../src/lazy_index.ts";
import { OPEN_LAZY } from "../src/lazy_store.ts";
import { openSqliteStore } from "../stores/sqlite/file.ts";
import { SessionPages } from "../web/api/session_pages.ts";
import { REPO } from "./jobs.ts";

const option = (name: string) =>
  Deno.args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const rounds = Number(option("rounds") ?? 6);
const meta = JSON.parse(
  await Deno.readTextFile(`${REPO}dist/bench-data/v5-s20261129/session-100000.meta.json`),
);
const sessionId: string = meta.sessionId;
const prepared = `${REPO}dist/bench-data/prepared`;
// `--db=PATH`: another prepared copy (the shared folder's may be mid-preparation).
const db = option("db") ?? [...Deno.readDirSync(prepared)]
  .map((item) => `${prepared}/${item.name}`)
  .find((path) => /\/session-100000-[^/]*\.db$/.test(path));
if (!db) throw new Error("run `deno task bench --only=serve` first (it prepares the database)");

const modes = ["store branch", "tree columns"] as const;
const samples: Record<string, number[]> = { "store branch": [], "tree columns": [] };
for (let round = 0; round < rounds; round++) {
  for (const mode of modes) {
    const store = await openSqliteStore(db);
    if (mode === "tree columns") {
      const open = store[OPEN_LAZY].bind(store);
      store[OPEN_LAZY] = async (id: string): Promise<LazySession | undefined> => {
        const session = await open(id);
        if (session?.deferred) delete session.deferred.branch;
        return session;
      };
    }
    const started = performance.now();
    const page = await new SessionPages(store).conversation(sessionId, undefined, 0, 30);
    const ms = performance.now() - started;
    await store.close();
    if (page.items.length !== 30) throw new Error(`${mode}: ${page.items.length} items`);
    if (round > 0) samples[mode].push(Math.round(ms));
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];
const result = {
  case: "serve-branch-ab",
  startedAt: new Date().toISOString(),
  sessionEntries: 100_000,
  samplesMs: samples,
  medianMs: {
    "store branch": median(samples["store branch"]),
    "tree columns": median(samples["tree columns"]),
  },
  ratio: median(samples["store branch"]) / median(samples["tree columns"]),
  loadAverage: Deno.loadavg(),
};
console.log(JSON.stringify(result, null, 1));
if (!Deno.args.includes("--no-write")) {
  const date = result.startedAt.slice(0, 10);
  await Deno.writeTextFile(
    `${REPO}bench/results/serve-branch-ab-${date}.json`,
    JSON.stringify(result, null, 1) + "\n",
  );
}
