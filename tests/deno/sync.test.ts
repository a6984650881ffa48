/**
 * `syncStores`: copies what the other side lacks, byte for byte, never overwrites, reports
 * conflicts without writing, converges after an interrupted run, and with a cursor reads
 * only the sessions that changed (counted as store operations, never timed).
 */
import { DatabaseSync } from "node:sqlite";
import { MemorySessionStore, type SessionEntry, type SessionHeader } from "../../core.ts";
import { syncStores } from "../../sync.ts";
import { SqliteSessionStore } from "../../stores/sqlite/store.ts";
import { openJsonlFsStore } from "../../stores/jsonl/fs.ts";
import { assert, assertEquals } from "../conformance/assert.ts";
import { header } from "../conformance/store_suite.ts";
import { chain } from "../conformance/sync_chain.ts";
import { countLoads } from "../conformance/sync_suite.ts";

const sqlite = () => SqliteSessionStore.open(new DatabaseSync(":memory:"));

Deno.test("sync: a push creates missing sessions with byte-identical entries", async () => {
  const source = await sqlite();
  const target = await sqlite();
  // Odd spacing survives only if the raw JSON text is copied, not re-serialised.
  const odd =
    '{"type":"message","id":"odd","parentId":null,"timestamp":"2026-01-02T00:00:00.000Z",' +
    '"message":{"role":"user","content":"spaced",   "timestamp":1}}';
  const { importSession } = await import("../../core.ts");
  await importSession(source, `${JSON.stringify(header("s-odd"))}\n${odd}\n`);
  await source.create(header("s1"), chain(5, "a"));
  const report = await syncStores(source, target);
  assertEquals(report.sessionsCreated, 2);
  assertEquals(report.entriesCopied, 6);
  assertEquals(report.conflicts, []);
  for (const id of ["s1", "s-odd"]) {
    assertEquals(await target.exportJsonl!(id), await source.exportJsonl!(id), id);
  }
  assert((await target.exportJsonl!("s-odd")).includes('"spaced",   "timestamp"'));
  const again = await syncStores(source, target);
  assertEquals([again.sessionsCreated, again.entriesCopied, again.alreadyPresent], [0, 0, 6]);
});

Deno.test("sync: both directions leave each side holding the union of a shared session", async () => {
  const a = new MemorySessionStore();
  const b = await sqlite();
  const shared = header("shared");
  const root = chain(2, "root");
  await a.create(shared, root);
  await b.create(shared, root);
  await a.append("shared", chain(3, "from-a", root[1].id));
  await b.append("shared", chain(2, "from-b", root[1].id));
  await a.create(header("only-a"), chain(1, "oa"));
  await b.create(header("only-b"), chain(1, "ob"));
  const report = await syncStores(a, b, { direction: "both" });
  assertEquals(report.conflicts, []);
  assertEquals(report.sessionsCreated, 2);
  assertEquals(report.entriesCopied, 3 + 2 + 1 + 1);
  for (const store of [a, b]) {
    assertEquals((await store.list()).map((s) => s.id).sort(), ["only-a", "only-b", "shared"]);
    const ids = (await store.load("shared")).entries.map((e) => e.id).sort();
    assertEquals(ids.length, 7);
    assertEquals(new Set(ids).size, 7, "no entry duplicated");
  }
});

Deno.test("sync: a conflict is reported with its first differing field and nothing is written", async () => {
  const source = new MemorySessionStore();
  const target = await sqlite();
  const base = chain(1, "c");
  const both = header("s", { cwd: "/p" });
  await source.create(both, base);
  await target.create(both, []);
  const theirs = JSON.parse(JSON.stringify(base[0]));
  theirs.message.content = "other";
  await target.append("s", [theirs]);
  await source.append("s", chain(2, "more", base[0].id));
  const before = await target.exportJsonl!("s");
  const report = await syncStores(source, target, { direction: "both" });
  assertEquals(report.entriesCopied, 0);
  assertEquals(report.conflicts.length, 2, "one per direction");
  assertEquals(report.conflicts[0], { sessionId: "s", entryId: "c-0", field: "message.content" });
  assertEquals(await target.exportJsonl!("s"), before, "the target is unchanged");
  assertEquals((await source.load("s")).entries.length, 3, "the source is unchanged");

  const other = new MemorySessionStore();
  await other.create(header("s", { cwd: "/elsewhere" }), []);
  const headerReport = await syncStores(other, target);
  assertEquals(headerReport.conflicts.length, 1);
  assertEquals(headerReport.conflicts[0].entryId, undefined);
  assert(["cwd", "createdAt"].includes(headerReport.conflicts[0].field));
});

Deno.test("sync: a run interrupted between sessions converges on the rerun", async () => {
  const source = await sqlite();
  for (let s = 0; s < 6; s++) await source.create(header(`s${s}`), chain(4, `s${s}`));
  const target = await sqlite();
  const create = target.create.bind(target);
  let creates = 0;
  target.create = (h, e) => {
    if (++creates === 4) return Promise.reject(new Error("connection lost"));
    return create(h, e);
  };
  let failed = false;
  await syncStores(source, target).catch(() => failed = true);
  assert(failed, "the first run stopped part way");
  assertEquals((await target.list()).length, 3);
  const report = await syncStores(source, target);
  assertEquals(report.sessionsCreated, 3);
  for (let s = 0; s < 6; s++) {
    assertEquals(await target.exportJsonl!(`s${s}`), await source.exportJsonl!(`s${s}`));
  }
});

Deno.test("sync: with the cursor a second run reads no session, and then only the changed ones", async () => {
  const source = await sqlite();
  const target = await sqlite();
  for (let s = 0; s < 30; s++) await source.create(header(`s${s}`), chain(3, `s${s}`));
  const first = await syncStores(source, target);
  assertEquals(first.sessionsCreated, 30);
  const sourceLoads = countLoads(source);
  const targetLoads = countLoads(target);
  const idle = await syncStores(source, target, { cursor: first.cursor });
  assertEquals([sourceLoads.loads, targetLoads.loads], [0, 0], "no entry bodies read");
  assertEquals(idle.sessionsUnchanged, 30);
  for (let s = 0; s < 10; s++) {
    const last = (await source.load(`s${s}`)).entries.at(-1)!.id;
    await source.append(`s${s}`, chain(10, `s${s}-new`, last));
  }
  sourceLoads.loads = 0;
  const next = await syncStores(source, target, { cursor: idle.cursor });
  assertEquals(next.entriesCopied, 100);
  assertEquals(next.sessionsUnchanged, 20);
  assertEquals(sourceLoads.loads, 10, "only the changed sessions were read");
  assertEquals(targetLoads.loads, 10);
  assertEquals(await target.exportJsonl!("s3"), await source.exportJsonl!("s3"));
});

Deno.test("sync: a JSONL folder's tokens come from its listing, and a file replaced under its name is still copied", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const source = await openJsonlFsStore(dir);
    for (let s = 0; s < 5; s++) await source.create(header(`j${s}`), chain(3, `j${s}`));
    const listed = new Map<string, string>();
    await source.list({ onChangeToken: (id, token) => listed.set(id, token) });
    assertEquals(listed.get("j2"), await source.changeToken("j2"), "the same token either way");
    const target = new MemorySessionStore();
    const first = await syncStores(source, target);
    let asked = 0;
    const ask = source.changeToken.bind(source);
    source.changeToken = (id) => (asked++, ask(id));
    const idle = await syncStores(source, target, { cursor: first.cursor });
    assertEquals([idle.sessionsUnchanged, asked], [5, 0], "no token asked for beside the listing");

    // Replaced under the same name, as a restore or a copy tool does: a new file, one more entry.
    const path = (await source.pathOf("j2"))!;
    const last = (await source.load("j2")).entries.at(-1)!.id;
    const more = chain(1, "j2-more", last).map((entry) => JSON.stringify(entry) + "\n").join("");
    await Deno.writeTextFile(`${path}.new`, (await Deno.readTextFile(path)) + more);
    await Deno.rename(`${path}.new`, path);
    const next = await syncStores(source, target, { cursor: idle.cursor });
    assertEquals([next.entriesCopied, next.sessionsUnchanged], [1, 4]);
    assertEquals(await target.exportJsonl!("j2"), await source.exportJsonl!("j2"));
    await source.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("sync: the sessions filter and abort signal are honoured", async () => {
  const source = new MemorySessionStore();
  await source.create(header("keep", { cwd: "/a" }), chain(1, "k"));
  await source.create(header("other", { cwd: "/b" }), chain(1, "o"));
  const target = new MemorySessionStore();
  const progress: string[] = [];
  const report = await syncStores(source, target, {
    sessions: { cwd: "/a" },
    onProgress: (done, total) => progress.push(`${done}/${total}`),
  });
  assertEquals(report.sessionsCreated, 1);
  assertEquals(progress, ["1/1"]);
  assertEquals(await target.has("other"), false);
  const byId = await syncStores(source, target, { sessions: { ids: ["other"] } });
  assertEquals(byId.sessionsCreated, 1);
  const controller = new AbortController();
  controller.abort(new Error("stop"));
  let aborted = false;
  await syncStores(source, new MemorySessionStore(), { signal: controller.signal })
    .catch(() => aborted = true);
  assert(aborted);
});

Deno.test("sync: JSONL -> SQLite copies the readable sessions and skips a broken file with its reason", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const source = await openJsonlFsStore(dir);
    await source.create(header("good"), chain(3, "good"));
    await Deno.writeTextFile(`${dir}/torn.jsonl`, '{"type":"session","version":4,"id":"torn"');
    const target = await sqlite();
    const report = await syncStores(source, target);
    assertEquals([report.sessionsCreated, report.entriesCopied], [1, 3]);
    assertEquals(report.skipped.length, 1);
    assert(report.skipped[0].sessionId.endsWith("torn.jsonl"), report.skipped[0].sessionId);
    assert(report.skipped[0].reason.startsWith("cannot be read: "));
    assertEquals(await target.exportJsonl!("good"), await source.exportJsonl!("good"));
    await source.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("sync: a JSONL session is read once (no export to parse again), its bytes kept", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const odd =
      '{"type":"message","id":"odd","parentId":null,"timestamp":"2026-01-02T00:00:00.000Z",' +
      '"message":{"role":"user","content":"spaced",   "timestamp":1}}';
    await Deno.writeTextFile(`${dir}/odd.jsonl`, `${JSON.stringify(header("odd"))}\n${odd}\n`);
    const source = await openJsonlFsStore(dir);
    let exports = 0;
    const { exportJsonl } = source;
    Object.assign(source, {
      exportJsonl: (id: string) => (exports++, exportJsonl.call(source, id)),
    });
    const target = await sqlite();
    const report = await syncStores(source, target);
    assertEquals([report.sessionsCreated, report.entriesCopied, exports], [1, 1, 0]);
    assertEquals(await target.exportJsonl!("odd"), await source.exportJsonl("odd"));
    assert((await target.exportJsonl!("odd")).includes('"spaced",   "timestamp"'));
    await source.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("sync: a long JSONL session is streamed in parts, never loaded whole", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const source = await openJsonlFsStore(dir);
    // About 3 MB of entry JSON: more than one part of the streamed read.
    const entries = chain(1_500, "long").map((entry) => ({
      ...entry,
      message: { role: "user", content: "x".repeat(2_000), timestamp: 1 },
    } as SessionEntry));
    await source.create(header("long"), entries);
    const loads = countLoads(source);
    const target = new MemorySessionStore();
    const calls: number[] = [];
    const { create, append } = target;
    Object.assign(target, {
      create: (head: SessionHeader, given: SessionEntry[] = []) => (
        calls.push(given.length), create.call(target, head, given)
      ),
      append: (id: string, given: SessionEntry[]) => (
        calls.push(given.length), append.call(target, id, given)
      ),
    });
    const report = await syncStores(source, target);
    assertEquals([report.sessionsCreated, report.entriesCopied, loads.loads], [1, 1_500, 0]);
    assert(calls.length >= 3, `one create and appends, part by part: ${calls}`);
    assertEquals(calls.reduce((a, b) => a + b), 1_500);
    assertEquals(await target.exportJsonl("long"), await source.exportJsonl("long"));
    await source.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("sync: a few sessions are copied at once; conflicts still come in listing order", async () => {
  const source = new MemorySessionStore();
  const target = new MemorySessionStore();
  const ids = Array.from({ length: 8 }, (_, i) => `many-${i}`);
  for (const id of ids) await source.create(header(id), chain(2, id));
  // Two sessions the target holds with other content, the first listed answering last.
  const listed = (await source.list()).map((info) => info.id);
  const [slow, fast] = [listed[0], listed[1]];
  for (const id of [slow, fast]) {
    // A later timestamp under the same entry id: other content.
    await target.create((await source.load(id)).header, chain(1, id));
  }
  let inFlight = 0;
  let most = 0;
  const { has } = target;
  Object.assign(target, {
    has: async (id: string) => {
      most = Math.max(most, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, id === slow ? 60 : 10));
      inFlight--;
      return await has.call(target, id);
    },
  });
  const report = await syncStores(source, target);
  assertEquals(most, 4, "four sessions in flight");
  assertEquals(report.sessionsCreated, 6);
  assertEquals(report.conflicts.map((conflict) => conflict.sessionId), [slow, fast]);
});
