/**
 * JSONL appends (issue 12): concurrent appends to one session share one write and one
 * flush (counted through the folder interface, not timed); `durability: "relaxed"` asks
 * the backend for no flush; a bad entry among concurrent appends fails alone with a typed
 * error, and a failed group loses nothing committed before it. One new entry id appended
 * twice at once (by one store or two writers) is written once: the check that an id is new
 * runs again under the file's lock.
 */
import { EntryConflictError, InvalidArgumentError } from "../../core.ts";
import { assert, assertEquals } from "../conformance/assert.ts";
import { removeDir, tempDir } from "../jsonl/subjects.ts";
import { chain, user, v4Header } from "../jsonl/helpers.ts";
import { CountingFs } from "../jsonl/counting_fs.ts";
import { NodeJsonlFolderFs } from "../../stores/jsonl/fs.ts";
import { JsonlSessionStore, type JsonlStoreOptions } from "../../stores/jsonl/store.ts";
import type { SessionEntry } from "../../src/schema.ts";

function test(name: string, fn: () => Promise<void>) {
  Deno.test(`jsonl append: ${name}`, fn);
}

async function withStore(
  options: JsonlStoreOptions,
  fn: (store: JsonlSessionStore, fs: CountingFs, dir: string) => Promise<void>,
) {
  const dir = await tempDir();
  try {
    const fs = new CountingFs(new NodeJsonlFolderFs(dir));
    const store = new JsonlSessionStore(fs, options);
    await fn(store, fs, dir);
    await store.close();
  } finally {
    await removeDir(dir);
  }
}

/** Eight single-entry appends in flight at once, siblings under one parent. */
const siblings = (parent: string, prefix: string): SessionEntry[] =>
  Array.from({ length: 8 }, (_, i) => user(`${prefix}${String(i).padStart(7, "0")}`, parent));

test("8 appends in flight to one session share one write and one fsync", async () => {
  await withStore({}, async (store, fs) => {
    const base = chain("g", 3);
    await store.create(v4Header("grouped"), base);
    // The first append of a store locates the file; later ones know it (the common case).
    await store.append("grouped", [user("g0000004", "g0000003")]);
    fs.reset();
    const entries = siblings("g0000004", "h");
    await Promise.all(entries.map((entry) => store.append("grouped", [entry])));
    assertEquals(fs.counts.appends, 1, "one write for the group");
    assertEquals(fs.counts.durableAppends, 1, "one fsync serves all eight");
    const loaded = await store.load("grouped");
    assertEquals(
      loaded.entries.map((e) => e.id),
      [...base, user("g0000004", null), ...entries]
        .map((e) => e.id),
      "every entry committed, in call order",
    );

    // Sequential appends are not held back to form groups: one flush each.
    fs.reset();
    await store.append("grouped", [user("i0000001", "g0000004")]);
    await store.append("grouped", [user("i0000002", "i0000001")]);
    assertEquals(fs.counts.durableAppends, 2);
  });
});

test("appends in flight to different sessions are written separately", async () => {
  await withStore({}, async (store, fs) => {
    await store.create(v4Header("one"), chain("a", 1));
    await store.create(v4Header("two"), chain("b", 1));
    fs.reset();
    await Promise.all([
      store.append("one", [user("a0000002", "a0000001")]),
      store.append("two", [user("b0000002", "b0000001")]),
      store.append("one", [user("a0000003", "a0000002")]),
    ]);
    assertEquals(fs.counts.appends, 2, "one group per file");
    assertEquals((await store.load("one")).entries.length, 3);
    assertEquals((await store.load("two")).entries.length, 2);
  });
});

test('durability "relaxed" writes without asking for a flush; the default asks', async () => {
  for (const durability of ["relaxed", undefined] as const) {
    await withStore({ durability }, async (store, fs) => {
      await store.create(v4Header("r"), chain("r", 2));
      fs.reset();
      await store.append("r", [user("r0000003", "r0000002")]);
      assertEquals(fs.counts.appends, 1);
      assertEquals(fs.counts.durableAppends, durability === "relaxed" ? 0 : 1, `${durability}`);
      assertEquals((await store.load("r")).entries.length, 3);
    });
  }
});

test("a bad entry among appends in flight fails alone; the others commit", async () => {
  await withStore({}, async (store) => {
    await store.create(v4Header("mixed"), chain("m", 2));
    await store.append("mixed", [user("m0000003", "m0000002")]);
    const good = siblings("m0000003", "n");
    const bad = user("bad\u0000id", "m0000003"); // an id no store can keep
    const results = await Promise.allSettled([
      ...good.slice(0, 4).map((entry) => store.append("mixed", [entry])),
      store.append("mixed", [bad]),
      ...good.slice(4).map((entry) => store.append("mixed", [entry])),
    ]);
    const rejected = results.filter((r) => r.status === "rejected");
    assertEquals(rejected.length, 1);
    assert((rejected[0] as PromiseRejectedResult).reason instanceof InvalidArgumentError);
    const ids = (await store.load("mixed")).entries.map((e) => e.id);
    assertEquals(ids.slice(3), good.map((e) => e.id));
  });
});

test("a group whose write fails is rolled back whole; what was committed stays", async () => {
  await withStore({}, async (store, fs, _dir) => {
    await store.create(v4Header("torn"), chain("t", 2));
    await store.append("torn", [user("t0000003", "t0000002")]);
    fs.failNextAppendAfter = 11; // writes 11 bytes of the group, then fails
    const results = await Promise.allSettled(
      siblings("t0000003", "u").map((entry) => store.append("torn", [entry])),
    );
    assert(results.every((r) => r.status === "rejected"), "every append of the group fails");
    const loaded = await store.load("torn");
    assertEquals(loaded.entries.map((e) => e.id), ["t0000001", "t0000002", "t0000003"]);
    // The file is intact: the next append goes on from it.
    await store.append("torn", [user("t0000004", "t0000003")]);
    assertEquals((await store.load("torn")).entries.length, 4);
  });
});

/** How many lines of the session's file carry `id`. */
async function linesWithId(dir: string, id: string): Promise<number> {
  let count = 0;
  for await (const file of Deno.readDir(dir)) {
    if (!file.name.endsWith(".jsonl")) continue;
    const text = await Deno.readTextFile(`${dir}/${file.name}`);
    count += text.split("\n").filter((line) => line.includes(`"id":"${id}"`)).length;
  }
  return count;
}

test("one new id appended twice in flight is written once; other content under it fails alone", async () => {
  await withStore({}, async (store, _fs, dir) => {
    await store.create(v4Header("twice"), chain("d", 2));
    const entry = user("d0000003", "d0000002");
    const other = user("d0000003", "d0000002", "other content");
    const innocent = user("x0000001", "d0000002");
    const results = await Promise.allSettled([
      store.append("twice", [entry]),
      store.append("twice", [innocent]),
      store.append("twice", [entry]), // the same entry: a retry, written once
      store.append("twice", [other]),
    ]);
    assertEquals(results.map((r) => r.status), ["fulfilled", "fulfilled", "fulfilled", "rejected"]);
    assert((results[3] as PromiseRejectedResult).reason instanceof EntryConflictError);
    assertEquals(await linesWithId(dir, "d0000003"), 1);
    const ids = (await store.load("twice")).entries.map((e) => e.id);
    assertEquals(ids, ["d0000001", "d0000002", "d0000003", "x0000001"]);
  });
});

test("two writers appending one new id at once: written once, other content refused", async () => {
  const dir = await tempDir();
  const open = () => new JsonlSessionStore(new NodeJsonlFolderFs(dir));
  const [first, second] = [open(), open()];
  try {
    await first.create(v4Header("race"), chain("r", 2));
    for (const [n, content] of [[3, undefined], [4, "the second writer's"]] as const) {
      const id = `r000000${n}`;
      const parent = `r000000${n - 1}`;
      // Both writers know the file as it is, so both checks before the lock pass.
      assertEquals((await first.load("race")).entries.length, n - 1);
      assertEquals((await second.load("race")).entries.length, n - 1);
      const mine = user(id, parent);
      const theirs = content === undefined ? mine : user(id, parent, content);
      const results = await Promise.allSettled([
        first.append("race", [mine]),
        second.append("race", [theirs]),
      ]);
      assertEquals(await linesWithId(dir, id), 1, `${id} is in the file once`);
      const refused = results.filter((r) => r.status === "rejected") as PromiseRejectedResult[];
      assertEquals(refused.length, content === undefined ? 0 : 1, JSON.stringify(results));
      for (const { reason } of refused) {
        assert(reason instanceof EntryConflictError, String(reason));
      }
      assertEquals((await first.load("race")).entries.length, n);
    }
  } finally {
    await first.close();
    await second.close();
    await removeDir(dir);
  }
});

test("the id check under the lock costs no I/O when this store wrote the file last", async () => {
  await withStore({}, async (store, fs) => {
    await store.create(v4Header("cheap"), chain("c", 3));
    await store.append("cheap", [user("c0000004", "c0000003")]); // locates and scans once
    fs.reset();
    await store.append("cheap", [user("c0000005", "c0000004")]);
    assertEquals(fs.counts.stats, 1, "the append's own stat serves the check");
    assertEquals(fs.counts.reads, 0, "no line read");
  });
});
