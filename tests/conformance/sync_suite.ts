/**
 * The sync suite: `syncStores` between two store drivers, in the conformance style (one
 * function over two store subjects), so every pair of stores meets the same rules in every
 * runtime: the union after a two-way sync, byte-identical exports, a rerun that reads no
 * entry bodies in either direction, conflicts reported with neither side changed, the
 * session filters, abort and progress. Runtime-agnostic; `syncPairs` lists the pairs.
 */
import { importSession, type SessionEntry, type SessionStore } from "../../core.ts";
import { syncStores } from "../../sync.ts";
import { assert, assertEquals } from "./assert.ts";
import { type Register, type StoreSubject, withStore } from "./harness.ts";
import { freshId, header, oddlySpelledSession } from "./store_suite.ts";
import { chain } from "./sync_chain.ts";

/** Counts the calls that read a session's entries (`load`, `exportJsonl`, `loadExact`) on a store. */
export function countLoads(store: SessionStore): { loads: number } {
  const counter = { loads: 0 };
  const load = store.load.bind(store);
  store.load = (id) => (counter.loads++, load(id));
  const exportJsonl = store.exportJsonl?.bind(store);
  if (exportJsonl) store.exportJsonl = (id) => (counter.loads++, exportJsonl(id));
  const loadExact = store.loadExact?.bind(store);
  if (loadExact) store.loadExact = (id) => (counter.loads++, loadExact(id));
  return counter;
}

/** Export lines sorted: two copies of a session holding the same entries in any order. */
async function entryLines(store: SessionStore, id: string): Promise<string[]> {
  return (await store.exportJsonl!(id)).split("\n").filter(Boolean).sort();
}

/** A linear run of messages dated `at` (the listing's `modified` follows the last one). */
function datedChain(count: number, prefix: string, at: Date): SessionEntry[] {
  return chain(count, prefix).map((entry, i) => {
    const ms = at.getTime() + i;
    return {
      ...entry,
      timestamp: new Date(ms).toISOString(),
      message: { role: "user", content: `${prefix} ${i}`, timestamp: ms },
    } as SessionEntry;
  });
}

/** Run `fn` over fresh storage of both subjects. */
function withPair(
  a: StoreSubject,
  b: StoreSubject,
  fn: (a: SessionStore, b: SessionStore) => Promise<void>,
): Promise<void> {
  return withStore(a, (first) => withStore(b, (second) => fn(first, second)));
}

/**
 * The sync cases with `a` as the source (the local store) and `b` as the target. Every
 * case writes on both sides, so a pair run one way also checks the other direction.
 */
export function syncSuite(register: Register, a: StoreSubject, b: StoreSubject): void {
  const t = (name: string, fn: (a: SessionStore, b: SessionStore) => Promise<void>) =>
    register(`sync ${a.name} -> ${b.name}: ${name}`, () => withPair(a, b, fn));

  t("a two-way sync leaves both sides holding the union, shared session included", async (a, b) => {
    const [shared, onlyA, onlyB] = [freshId("shared"), freshId("a"), freshId("b")];
    const root = chain(2, `${shared}-root`);
    const sharedHeader = header(shared);
    await a.create(sharedHeader, root);
    await b.create(sharedHeader, root);
    await a.append(shared, chain(3, `${shared}-a`, root[1].id));
    await b.append(shared, chain(2, `${shared}-b`, root[1].id));
    await a.create(header(onlyA), chain(4, onlyA));
    await b.create(header(onlyB), chain(1, onlyB));
    const report = await syncStores(a, b, { direction: "both" });
    assertEquals(report.conflicts, []);
    assertEquals(report.skipped, []);
    assertEquals([report.sessionsCreated, report.entriesCopied], [2, 3 + 2 + 4 + 1]);
    for (const store of [a, b]) {
      assertEquals((await store.list()).map((s) => s.id).sort(), [onlyA, onlyB, shared].sort());
      assertEquals((await store.load(shared)).entries.length, 7, `${store.kind}: no duplicate`);
    }
    assertEquals(await entryLines(a, shared), await entryLines(b, shared));
    assertEquals(await b.exportJsonl!(onlyA), await a.exportJsonl!(onlyA));
    assertEquals(await a.exportJsonl!(onlyB), await b.exportJsonl!(onlyB));
    const again = await syncStores(a, b, { direction: "both" });
    // The push finds the target holding nothing more, so the pull need not read it again.
    const counts = [again.entriesCopied, again.alreadyPresent, again.sessionsUnchanged];
    assertEquals(counts, [0, 12, 3]);
  });

  t(
    "exports from the target equal the source's byte for byte, past one store call",
    async (a, b) => {
      const odd = freshId("odd");
      await importSession(a, oddlySpelledSession(odd));
      const long = freshId("long");
      // Longer than one batch, so the copy spans several appends.
      await a.create(header(long), chain(4_500, long));
      const report = await syncStores(a, b);
      assertEquals([report.sessionsCreated, report.entriesCopied], [2, 4_502]);
      for (const id of [odd, long]) {
        assertEquals(
          await b.exportJsonl!(id),
          await a.exportJsonl!(id),
        );
      }
      assert((await b.exportJsonl!(odd)).includes('{ "type" : "custom"'), "raw spelling kept");
    },
  );

  t("a rerun with the cursor reads no entry bodies in either direction", async (a, b) => {
    const ids = Array.from({ length: 6 }, () => freshId("inc"));
    for (const id of ids) await a.create(header(id), chain(3, id));
    const first = await syncStores(a, b);
    assertEquals(first.sessionsCreated, 6);
    // A two-way run reads once what the push wrote, then holds both sides' tokens.
    const settled = await syncStores(a, b, { direction: "both", cursor: first.cursor });
    assertEquals(settled.entriesCopied, 0);
    const reads = [countLoads(a), countLoads(b)];
    const idle = await syncStores(a, b, { direction: "both", cursor: settled.cursor });
    assertEquals(reads.map((r) => r.loads), [0, 0], "nothing new: no session read");
    assertEquals(idle.sessionsUnchanged, 12);
    const pull = await syncStores(a, b, { direction: "pull", cursor: settled.cursor });
    assertEquals([pull.sessionsUnchanged, reads[0].loads, reads[1].loads], [6, 0, 0]);

    // New entries on the source: only those sessions are read, on each side.
    for (const id of ids.slice(0, 2)) await a.append(id, chain(5, `${id}-new`, `${id}-2`));
    const push = await syncStores(a, b, { cursor: idle.cursor });
    assertEquals([push.entriesCopied, push.sessionsUnchanged], [10, 4]);
    assertEquals(reads.map((r) => r.loads), [2, 2]);
    // New entries on the receiving side are found from its change tokens.
    reads.forEach((r) => r.loads = 0);
    await b.append(ids[5], chain(2, `${ids[5]}-b`, `${ids[5]}-2`));
    const back = await syncStores(a, b, { direction: "pull", cursor: push.cursor });
    // Read: the one appended to, and the two the push wrote to (read once more after a write).
    assertEquals([back.entriesCopied, back.sessionsUnchanged], [2, 3]);
    assertEquals(await a.exportJsonl!(ids[5]), await b.exportJsonl!(ids[5]));
    // What the pull wrote was read back then: the next run in either direction reads nothing.
    reads.forEach((r) => r.loads = 0);
    const after = await syncStores(a, b, { direction: "both", cursor: back.cursor });
    assertEquals([after.entriesCopied, after.sessionsUnchanged], [0, 12]);
    assertEquals(reads.map((r) => r.loads), [0, 0], "what the pull wrote is not read again");
  });

  t(
    "after a merge, new entries are appended reading the sender only; a rewritten sender still conflicts",
    async (a, b) => {
      const id = freshId("held");
      const sessionHeader = header(id);
      const first = chain(3, id);
      await a.create(sessionHeader, first);
      await b.create(sessionHeader, first.slice(0, 2)); // a prefix: the run merges, reading both
      const merged = await syncStores(a, b);
      assertEquals([merged.entriesCopied, merged.alreadyPresent], [1, 2]);
      const reads = [countLoads(a), countLoads(b)];
      await a.append(id, chain(4, `${id}-new`, `${id}-2`));
      const next = await syncStores(a, b, { cursor: merged.cursor });
      assertEquals([next.entriesCopied, next.alreadyPresent, next.conflicts], [4, 3, []]);
      assertEquals(reads.map((r) => r.loads), [1, 0], "the receiving copy was not read");
      assertEquals(await b.exportJsonl!(id), await a.exportJsonl!(id));

      // The sender rewritten under the same ids, one more entry on top: its first entries no
      // longer match what the receiving side holds, so both are read and the conflict found.
      const { header: head, entries } = await a.load(id);
      const edited = entries.map((entry, i) =>
        i === 1 ? { ...entry, message: { role: "user", content: "edited", timestamp: 1 } } : entry
      ) as SessionEntry[];
      await a.replace(head, [...edited, ...chain(1, `${id}-more`, entries.at(-1)!.id)]);
      const before = await b.exportJsonl!(id);
      const clash = await syncStores(a, b, { cursor: next.cursor });
      assertEquals(clash.conflicts, [{
        sessionId: id,
        entryId: `${id}-1`,
        field: "message.content",
      }]);
      assertEquals(clash.entriesCopied, 0);
      assertEquals(await b.exportJsonl!(id), before, "the receiving copy is unchanged");
    },
  );

  t("conflicts are reported with their field and neither side changes", async (a, b) => {
    const id = freshId("conflict");
    const base = chain(1, id);
    const both = header(id, { cwd: "/p" });
    await a.create(both, base);
    await b.create(both, []);
    const theirs = structuredClone(base[0]) as SessionEntry & { message: { content: string } };
    theirs.message.content = "written elsewhere";
    await b.append(id, [theirs]);
    await a.append(id, chain(2, `${id}-more`, base[0].id));
    const before = [await a.exportJsonl!(id), await b.exportJsonl!(id)];
    const report = await syncStores(a, b, { direction: "both" });
    assertEquals(report.conflicts, [
      { sessionId: id, entryId: base[0].id, field: "message.content" },
      { sessionId: id, entryId: base[0].id, field: "message.content" },
    ]);
    assertEquals(report.entriesCopied, 0);
    assertEquals([await a.exportJsonl!(id), await b.exportJsonl!(id)], before);

    const other = freshId("header");
    await a.create(header(other, { cwd: "/here" }), chain(1, other));
    await b.create({ ...header(other, { cwd: "/there" }), createdAt: "2026-01-01T00:00:00.000Z" });
    const headers = await syncStores(a, b, { direction: "both", sessions: { ids: [other] } });
    assertEquals(headers.conflicts.map((c) => [c.entryId, c.field]), [
      [undefined, "createdAt"],
      [undefined, "createdAt"],
    ]);
    assertEquals((await b.load(other)).entries, [], "the target kept its copy");
  });

  t("the cwd, ids and since filters choose the sessions copied", async (a, b) => {
    const [here, there, picked, old] = ["here", "there", "picked", "old"].map((p) => freshId(p));
    await a.create(header(here, { cwd: "/a" }), chain(1, here));
    await a.create(header(there, { cwd: "/b" }), chain(1, there));
    await a.create(header(picked, { cwd: "/b" }), chain(1, picked));
    await a.create(header(old, { cwd: "/a" }), datedChain(1, old, new Date("2020-01-01")));
    const since = new Date("2025-01-01");
    const byCwd = await syncStores(a, b, { sessions: { cwd: "/a", since } });
    assertEquals(byCwd.sessionsCreated, 1);
    assertEquals([await b.has(here), await b.has(old), await b.has(there)], [true, false, false]);
    const byId = await syncStores(a, b, { sessions: { ids: [picked] } });
    assertEquals(byId.sessionsCreated, 1);
    assertEquals([await b.has(picked), await b.has(there)], [true, false]);
  });

  t(
    "progress counts every session; an abort stops the sessions in flight and the rerun converges",
    async (a, b) => {
      const ids = Array.from({ length: 4 }, () => freshId("abort"));
      for (const id of ids) await a.create(header(id), chain(2, id));
      const controller = new AbortController();
      const progress: string[] = [];
      const stop = new Error("stop");
      const rejected = await syncStores(a, b, {
        signal: controller.signal,
        onProgress: (done, total) => {
          progress.push(`${done}/${total}`);
          if (done === 2) controller.abort(stop);
        },
      }).then(() => undefined, (error) => error);
      assertEquals(rejected, stop, "rejects with the signal's reason");
      assertEquals(progress, ["1/4", "2/4"], "no progress after the abort");
      // Sessions are copied a few at a time: those in flight at the abort may have landed,
      // each whole (one create), never half.
      const copied = (await b.list()).length;
      assertEquals(copied >= 2 && copied <= 4, true, `${copied} sessions copied`);
      for (const { id } of await b.list()) {
        assertEquals(await b.exportJsonl!(id), await a.exportJsonl!(id));
      }
      const all: string[] = [];
      const rerun = await syncStores(a, b, { onProgress: (d, n) => all.push(`${d}/${n}`) });
      assertEquals(all, ["1/4", "2/4", "3/4", "4/4"]);
      assertEquals([rerun.sessionsCreated, rerun.alreadyPresent], [4 - copied, 2 * copied]);
      for (const id of ids) assertEquals(await b.exportJsonl!(id), await a.exportJsonl!(id));
    },
  );
}

/** The stores a runtime can open for the pairs (PostgreSQL on its test cluster). */
export interface SyncSubjects {
  memory: StoreSubject;
  sqlite: StoreSubject;
  jsonl: StoreSubject;
  postgres: StoreSubject;
}

/** The store pairs every runtime runs the sync suite over. */
export function syncPairs(register: Register, s: SyncSubjects): void {
  syncSuite(register, s.memory, s.sqlite);
  syncSuite(register, s.sqlite, s.memory);
  syncSuite(register, s.memory, s.jsonl);
  syncSuite(register, s.jsonl, s.memory);
  syncSuite(register, s.jsonl, s.postgres);
  syncSuite(register, s.sqlite, s.postgres);
  syncSuite(register, s.postgres, s.jsonl);
}
