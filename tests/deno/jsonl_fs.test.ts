/**
 * The JSONL store on the local file system: the conformance suite, then the rules that are
 * specific to files (torn tails, unterminated records, upgrades, failure safety, repair,
 * trash, naming, lookups that do not parse every file).
 */
import { appendFile, chmod, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  SessionFormatError,
  SessionManager,
  SessionNotFoundError,
  SessionStorageError,
  type SkippedSession,
} from "../../core.ts";
import { conformance } from "../conformance/mod.ts";
import { assert, assertEquals, assertRejects } from "../conformance/assert.ts";
import { jsonlFsSubject, removeDir, tempDir } from "../jsonl/subjects.ts";
import { chain, copyFixture, snapshot, user, v4Header } from "../jsonl/helpers.ts";
import { CountingFs } from "../jsonl/counting_fs.ts";
import { NodeJsonlFolderFs, openJsonlFsStore, TornTailError } from "../../stores/jsonl/fs.ts";
import { JsonlSessionStore } from "../../stores/jsonl/store.ts";
import { hashSessionId } from "../../stores/jsonl/_folder.ts";

conformance((name, fn) => Deno.test(name, fn), jsonlFsSubject("jsonl (deno fs)"));

/** A temp folder with a store over a counting backend. */
async function setup() {
  const dir = await tempDir();
  const fs = new CountingFs(new NodeJsonlFolderFs(dir, { trashCommand: false }));
  const store = new JsonlSessionStore(fs);
  return { dir, fs, store, done: () => removeDir(dir) };
}

function test(name: string, fn: () => Promise<void>) {
  Deno.test(`jsonl (deno fs): ${name}`, fn);
}

test("a torn final record refuses appends, loses nothing, and repairSession fixes it", async () => {
  const { dir, store, done } = await setup();
  try {
    const [a, b, c] = chain("a", 3);
    const { path } = await store.create(v4Header("torn-1"), [a, b]);
    await appendFile(path!, '{"type":"message","id":"cut","parentId":"a00');
    const before = await readFile(path!);
    const error = await assertRejects(() => store.append("torn-1", [c]), TornTailError);
    assert(error instanceof SessionStorageError, "TornTailError is a SessionStorageError");
    assert(error.message.includes("repairSession"), "the error points to repairSession");
    assertEquals(await readFile(path!), before, "file byte-identical after the refusal");
    await assertRejects(() => store.load("torn-1"), SessionFormatError, "torn final record");
    const skipped: SkippedSession[] = [];
    await store.list({ onSkipped: (s) => skipped.push(s) });
    assertEquals(skipped.map((s) => s.path), [path]);

    const report = await store.repairSession("torn-1");
    assertEquals(report.action, "dropped-torn-record");
    assertEquals(report.droppedBytes, '{"type":"message","id":"cut","parentId":"a00'.length);
    assertEquals(report.remainingProblem, undefined);
    assertEquals(await readFile(report.backupPath!), before, "backup holds the original bytes");
    assertEquals((await store.load("torn-1")).entries, [a, b]);
    await store.append("torn-1", [c]);
    assertEquals((await store.load("torn-1")).entries, [a, b, c]);
    await store.close(); // appends keep their lock until the writer is idle or closed
    assert(!(await readdir(dir)).some((name) => name.endsWith(".lock")), "no lock left behind");
  } finally {
    await done();
  }
});

test("repairSession takes a session id as an id, even one ending in .jsonl, and a file as { path }", async () => {
  const { dir, store, done } = await setup();
  try {
    const [a, b] = chain("r", 2);
    const { path } = await store.create(v4Header("notes.jsonl"), [a, b]);
    await appendFile(path!, '{"type":"mess');
    const fresh = await openJsonlFsStore(dir, { trashCommand: false });
    const report = await fresh.repairSession("notes.jsonl");
    assertEquals(report.action, "dropped-torn-record");
    assertEquals((await fresh.load("notes.jsonl")).entries, [a, b]);
    await assertRejects(() => fresh.repairSession("missing.jsonl"), SessionNotFoundError);
    await appendFile(path!, '{"type":"mess');
    assertEquals((await fresh.repairSession({ path: path! })).action, "dropped-torn-record");
    assert(
      !(await readdir(dir)).some((name) => name.startsWith("missing")),
      "nothing made for an unknown id",
    );
  } finally {
    await done();
  }
});

test("a complete final record without newline loads, and an append terminates it first", async () => {
  const { dir, done } = await setup();
  try {
    const [a, b] = chain("b", 2);
    const header = v4Header("unterminated-1");
    const file = join(dir, "hand-written.jsonl");
    await writeFile(file, `${JSON.stringify(header)}\n${JSON.stringify(a)}`);
    const store = await openJsonlFsStore(dir, { trashCommand: false });
    assertEquals((await store.load("unterminated-1")).entries, [a]);
    await store.append("unterminated-1", [b]);
    const text = await readFile(file, "utf8");
    assertEquals(text, `${JSON.stringify(header)}\n${JSON.stringify(a)}\n${JSON.stringify(b)}\n`);
    assertEquals((await store.load("unterminated-1")).entries, [a, b]);
  } finally {
    await done();
  }
});

test("an older file: load upgrades in memory only; replace persists the upgrade atomically", async () => {
  const { dir, fs, store, done } = await setup();
  try {
    await copyFixture("pi-layout", dir);
    const v1 = "22222222-2222-4222-8222-222222222222";
    const before = await snapshot(dir);
    const loaded = await store.load(v1);
    assertEquals([loaded.sourceVersion, loaded.upgraded], [1, true]);
    assertEquals(loaded.header.version, 4);
    assert((await store.exportJsonl(v1)).startsWith('{"type":"session","version":4'), "v4 export");
    assertEquals(await snapshot(dir), before, "load and export leave files untouched");
    await assertRejects(
      () => store.append(v1, [user("n0000001", loaded.entries.at(-1)!.id)]),
      SessionStorageError,
      "replace()",
    );
    assertEquals(await snapshot(dir), before, "a refused append writes nothing");

    fs.reset();
    await store.replace(loaded.header, loaded.entries);
    assertEquals([fs.counts.atomicWrites, fs.counts.appends], [1, 0]);
    const again = await store.load(v1);
    assertEquals([again.sourceVersion, again.upgraded], [4, false]);
    assertEquals(again.entries.map((e) => e.id), loaded.entries.map((e) => e.id));
    assertEquals(again.path, loaded.path, "upgraded in place");
    await store.append(v1, [user("n0000001", again.entries.at(-1)!.id)]);
    assertEquals((await store.load(v1)).entries.length, loaded.entries.length + 1);
    await store.close(); // appends keep their lock until the writer is idle or closed
    const leftovers = (await readdir(dir, { recursive: true })).filter((name) =>
      String(name).endsWith(".tmp") || String(name).endsWith(".lock")
    );
    assertEquals(leftovers, [], "no temp or lock files left");
  } finally {
    await done();
  }
});

test("persisting an upgrade can refuse to overwrite one another writer persisted first", async () => {
  const { dir, store, done } = await setup();
  try {
    await copyFixture("pi-layout", dir);
    const v1 = "22222222-2222-4222-8222-222222222222";
    const other = await openJsonlFsStore(dir);
    const mine = await store.load(v1);
    const theirs = await other.load(v1); // a v1 upgrade invents new entry ids each time
    await other.replace(theirs.header, theirs.entries, { ifStillOlderFormat: true });
    await other.append(v1, [user("o0000001", theirs.entries.at(-1)!.id)]);
    await assertRejects(
      () => store.replace(mine.header, mine.entries, { ifStillOlderFormat: true }),
      SessionStorageError,
      "load it again",
    );
    const now = await store.load(v1);
    assertEquals(now.entries.map((e) => e.id), [...theirs.entries.map((e) => e.id), "o0000001"]);
  } finally {
    await done();
  }
});

test("SessionManager.open persists an older file's upgrade before appending", async () => {
  const { dir, store, done } = await setup();
  try {
    await copyFixture("pi-layout", dir);
    const v2 = "33333333-3333-4333-8333-333333333333";
    const manager = await SessionManager.open(store, v2);
    await manager.appendMessage({ role: "user", content: "after upgrade", timestamp: 1 });
    const loaded = await store.load(v2);
    assertEquals([loaded.sourceVersion, loaded.upgraded], [4, false]);
    assertEquals(loaded.entries.at(-1)!.type, "message");
    const roles = loaded.entries.map((e) => (e as { message?: { role: string } }).message?.role);
    assertEquals(roles, ["user", "custom", "user"], "hookMessage persisted as custom");
  } finally {
    await done();
  }
});

test("a failed write leaves the file byte-identical and rejects with SessionStorageError", async () => {
  const { fs, store, done } = await setup();
  try {
    const [a, b, c] = chain("c", 3);
    const { path } = await store.create(v4Header("fail-1"), [a]);
    const before = await readFile(path!);
    fs.failNextAppendAfter = 7; // half a record reaches the disk, then the write fails
    await assertRejects(() => store.append("fail-1", [b, c]), SessionStorageError, "injected");
    assertEquals(await readFile(path!), before);
    assertEquals((await store.load("fail-1")).entries, [a]);
    await store.append("fail-1", [b, c]);
    assertEquals((await store.load("fail-1")).entries, [a, b, c]);
  } finally {
    await done();
  }
});

test("files are named <createdAt>_<hash of id>.jsonl; odd ids and dates stay in the folder", async () => {
  const { dir, store, done } = await setup();
  try {
    const odd = "weird:id with spaces.and.dots";
    const { path } = await store.create({
      ...v4Header(odd),
      createdAt: "2026-03-04T05:06:07.089Z",
    });
    const hash = await hashSessionId(odd);
    assertEquals(path, join(dir, `2026-03-04T05-06-07-089Z_${hash}.jsonl`));
    const sneaky = { ...v4Header("sneaky"), createdAt: "../../etc/passwd" };
    const created = await store.create(sneaky);
    assert(created.path!.startsWith(dir + "/"), "inside the folder");
    assertEquals((await readdir(dir)).length, 2);
    assertEquals((await store.load("sneaky")).header.createdAt, "../../etc/passwd");
  } finally {
    await done();
  }
});

test("finding a session by id reads headers, never whole files", async () => {
  const { dir, done } = await setup();
  try {
    const writer = await openJsonlFsStore(dir);
    for (let i = 0; i < 20; i++) await writer.create(v4Header(`find-${i}`), chain(`f${i}`, 30));
    const fs = new CountingFs(new NodeJsonlFolderFs(dir));
    const reader = new JsonlSessionStore(fs);
    assertEquals(await reader.has("no-such-session"), false);
    assertEquals(fs.counts.streams, 0, "no file streamed for a missing id");
    assert(fs.counts.reads <= 20, `header reads only (${fs.counts.reads})`);
    fs.reset();
    assertEquals((await reader.load("find-7")).entries.length, 30);
    assertEquals(fs.counts.streams, 1, "only the wanted file is parsed");
  } finally {
    await done();
  }
});

const canRun = Deno.permissions.querySync({ name: "run" }).state === "granted";

Deno.test({
  name:
    "jsonl (deno fs): delete uses the trash command when there is one, and keeps the file if it fails",
  ignore: !canRun, // running the trash command needs --allow-run
}, async () => {
  const dir = await tempDir();
  try {
    const sessions = join(dir, "sessions");
    const trash = join(dir, "trash");
    await mkdir(trash);
    const ok = join(dir, "trash-ok.sh");
    const broken = join(dir, "trash-broken.sh");
    await writeFile(ok, `#!/bin/sh\nmv "$1" "${trash}/"\n`);
    await writeFile(broken, `#!/bin/sh\necho "no trash today" >&2\nexit 3\n`);
    await chmod(ok, 0o755);
    await chmod(broken, 0o755);
    const store = await openJsonlFsStore(sessions, { trashCommand: ok });
    const { path } = await store.create(v4Header("trash-me"), chain("t", 1));
    await store.delete("trash-me");
    assertEquals(await store.has("trash-me"), false);
    assertEquals(await readdir(trash), [path!.split("/").pop()]);
    const failing = await openJsonlFsStore(sessions, { trashCommand: broken });
    await failing.create(v4Header("keep-me"), chain("k", 1));
    await assertRejects(() => failing.delete("keep-me"), SessionStorageError, "no trash today");
    assertEquals(await failing.has("keep-me"), true);
    const plain = await openJsonlFsStore(sessions, { trashCommand: false });
    await plain.delete("keep-me");
    assertEquals(await plain.has("keep-me"), false);
  } finally {
    await removeDir(dir);
  }
});
