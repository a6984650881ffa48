/**
 * `syncStores` appending a changed session's new entries without reading the receiving copy
 * (the cursor's record of what that copy held): any doubt about that record (torn, or a
 * write to the receiving copy it did not see) ends in the merge that reads both sides, so
 * conflicts are still reported and nothing is written (counted as reads, never timed).
 */
import { DatabaseSync } from "node:sqlite";
import type { SessionEntry, SessionStore } from "../../core.ts";
import { type SyncReport, syncStores } from "../../sync.ts";
import { SqliteSessionStore } from "../../stores/sqlite/store.ts";
import { assertEquals } from "../conformance/assert.ts";
import { header } from "../conformance/store_suite.ts";
import { chain } from "../conformance/sync_chain.ts";
import { countLoads } from "../conformance/sync_suite.ts";

const sqlite = () => SqliteSessionStore.open(new DatabaseSync(":memory:"));

/** Two stores holding session `s` after a merge, and the cursor that records it. */
async function merged() {
  const source = await sqlite();
  const target = await sqlite();
  const sessionHeader = header("s");
  const entries = chain(3, "s");
  await source.create(sessionHeader, entries);
  await target.create(sessionHeader, entries.slice(0, 1));
  const { cursor } = await syncStores(source, target);
  return { source, target, cursor };
}

/** The cursor with the receiving token in its record of `s` replaced by `token`. */
function withHeldToken(cursor: SyncReport["cursor"], token: string): SyncReport["cursor"] {
  const [sent, record] = cursor.push.s.split("\nheld ");
  const [count, digest] = JSON.parse(record);
  return { ...cursor, push: { s: `${sent}\nheld ${JSON.stringify([count, digest, token])}` } };
}

Deno.test("sync held copy: a write the record did not see is refused whole and reported as a conflict", async () => {
  const { source, target, cursor } = await merged();
  // Another writer adds s-new-0 with its own content to the receiving copy, and the
  // record claims the token after it (as when that write lands between ours and the read).
  const theirs = chain(1, "s-new", "s-2");
  await target.append("s", theirs);
  const forged = withHeldToken(cursor, (await target.changeToken("s"))!);
  const before = await target.exportJsonl("s");
  await source.append("s", chain(2, "s-new", "s-2") as SessionEntry[]);
  const targetLoads = countLoads(target);
  const report = await syncStores(source, target, { cursor: forged });
  assertEquals(report.conflicts, [{ sessionId: "s", entryId: "s-new-0", field: "timestamp" }]);
  assertEquals(report.entriesCopied, 0);
  assertEquals(targetLoads.loads, 1, "merged by reading the receiving copy");
  assertEquals(await target.exportJsonl("s"), before, "nothing written");
});

Deno.test("sync held copy: a torn record is not trusted; the session is merged by reading both sides", async () => {
  const { source, target, cursor } = await merged();
  const torn = { ...cursor, push: { s: cursor.push.s.slice(0, -3) } };
  await source.append("s", chain(2, "s-new", "s-2"));
  const targetLoads = countLoads(target);
  const report = await syncStores(source, target, { cursor: torn });
  assertEquals([report.entriesCopied, report.alreadyPresent, targetLoads.loads], [2, 3, 1]);
  assertEquals(await target.exportJsonl("s"), await source.exportJsonl("s"));
  // The merge wrote a fresh record: the next new entries are appended without that read.
  await source.append("s", chain(1, "s-more", "s-new-1"));
  targetLoads.loads = 0;
  const next = await syncStores(source, target, { cursor: report.cursor });
  assertEquals([next.entriesCopied, targetLoads.loads], [1, 0]);
  assertEquals(await target.exportJsonl("s"), await source.exportJsonl("s"));
});

/** A SQLite store answering many sessions' tokens in one call, as a server does; counted. */
async function batchingReceiver() {
  const target = await sqlite();
  const calls = { one: 0, many: 0 };
  const one = target.changeToken.bind(target);
  Object.assign(target, {
    changeToken: (id: string) => (calls.one++, one(id)),
    // Undefined for a session it lacks, as `changeTokens` answers.
    changeTokens: (ids: readonly string[]) => (
      calls.many++,
        Promise.all(ids.map((id) => target.has(id).then((has) => has ? one(id) : undefined)))
    ),
  });
  return { target, calls };
}

/** Two new entries on each session of `tips` (id -> last entry id), which it updates. */
async function appendTwoEach(source: SessionStore, tips: Record<string, string>, tag: string) {
  for (const id of Object.keys(tips)) {
    const added = chain(2, `${id}-${tag}`, tips[id]);
    await source.append(id, added);
    tips[id] = added.at(-1)!.id;
  }
}

Deno.test("sync held copy: a receiver that answers many tokens at once is asked once after the pass, not once per session written", async () => {
  const source = await sqlite();
  const { target, calls } = await batchingReceiver();
  const tips: Record<string, string> = {};
  for (let s = 0; s < 6; s++) {
    const [sessionHeader, entries] = [header(`s${s}`), chain(3, `s${s}`)];
    await source.create(sessionHeader, entries);
    await target.create(sessionHeader, entries.slice(0, 1));
    tips[`s${s}`] = entries.at(-1)!.id;
  }
  let { cursor } = await syncStores(source, target);
  const targetLoads = countLoads(target);
  for (let round = 0; round < 2; round++) {
    await appendTwoEach(source, tips, `r${round}`);
    [calls.one, calls.many, targetLoads.loads] = [0, 0, 0];
    const report = await syncStores(source, target, { cursor });
    assertEquals([report.entriesCopied, report.conflicts], [12, []]);
    assertEquals(targetLoads.loads, 0, `round ${round}: appended to the copies the cursor holds`);
    assertEquals(calls, { one: 0, many: 2 }, `round ${round}: the tokens before and after`);
    cursor = report.cursor;
  }
  for (const id of Object.keys(tips)) {
    assertEquals(await target.exportJsonl(id), await source.exportJsonl(id));
  }
});

Deno.test("sync held copy: a session a push created gets its new entries on the next push without a read of the receiving copy", async () => {
  const source = await sqlite();
  const { target, calls } = await batchingReceiver();
  const tips: Record<string, string> = {};
  for (let s = 0; s < 5; s++) {
    const entries = chain(3, `c${s}`);
    await source.create(header(`c${s}`), entries);
    tips[`c${s}`] = entries.at(-1)!.id;
  }
  const created = await syncStores(source, target);
  assertEquals([created.sessionsCreated, calls.one, calls.many], [5, 0, 2]);
  await appendTwoEach(source, tips, "after-create");
  const targetLoads = countLoads(target);
  const report = await syncStores(source, target, { cursor: created.cursor });
  assertEquals([report.entriesCopied, report.alreadyPresent, report.conflicts], [10, 15, []]);
  assertEquals(targetLoads.loads, 0, "the create recorded what the copy held");
  for (const id of Object.keys(tips)) {
    assertEquals(await target.exportJsonl(id), await source.exportJsonl(id));
  }
});
