/**
 * Listing a JSONL folder: the (path, size, mtime) cache (asserted by counting reads, not
 * by timing), incremental folding of appends, skipped files with reasons, the older pi
 * folder layout, duplicates, abort; and that listing never writes.
 */
import { appendFile, copyFile, readdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { SessionFormatError, type SessionInfo, type SkippedSession } from "../../core.ts";
import { assert, assertEquals } from "../conformance/assert.ts";
import { removeDir, tempDir } from "../jsonl/subjects.ts";
import { chain, copyFixture, snapshot, user, v4Header } from "../jsonl/helpers.ts";
import { CountingFs } from "../jsonl/counting_fs.ts";
import { NodeJsonlFolderFs, openJsonlFsStore } from "../../stores/jsonl/fs.ts";
import { JsonlSessionStore } from "../../stores/jsonl/store.ts";
import { LISTING_CACHE_FILE } from "../../stores/jsonl/_persist.ts";

function test(name: string, fn: () => Promise<void>) {
  Deno.test(`jsonl listing: ${name}`, fn);
}

const ids = (rows: SessionInfo[]) => rows.map((row) => row.id);

test("a warm listing re-reads nothing; an appended file is folded from where it grew", async () => {
  const dir = await tempDir();
  try {
    const writer = await openJsonlFsStore(dir);
    for (let i = 0; i < 20; i++) await writer.create(v4Header(`l-${i}`), chain(`l${i}`, 50));
    const fs = new CountingFs(new NodeJsonlFolderFs(dir));
    const store = new JsonlSessionStore(fs);
    const cold = await store.list();
    assertEquals(cold.length, 20);
    const coldCounts = { ...fs.counts };
    assert(coldCounts.streams === 20, `cold listing folds every file (${coldCounts.streams})`);

    fs.reset();
    const warm = await store.list();
    assertEquals(ids(warm), ids(cold));
    assertEquals([fs.counts.reads, fs.counts.streams, fs.counts.bytesRead], [0, 0, 0]);
    assertEquals(fs.counts.stats, 20, "a warm listing only stats");
    console.log(
      `  cold: ${coldCounts.streams} streams + ${coldCounts.reads} reads, ${coldCounts.bytesRead} bytes; warm: ${fs.counts.stats} stats, 0 bytes`,
    );

    // Another store (another process, say) appends: only the new bytes are folded.
    const grown = ids(cold)[5];
    const size = (await stat((await writer.pathOf(grown))!)).size;
    await writer.append(grown, [user("z0000001", `l${grown.slice(2)}0000050`, "latest words")]);
    fs.reset();
    const after = await store.list();
    assertEquals(after[0].id, grown, "the appended session is now the newest");
    assertEquals(after[0].messageCount, 51);
    assertEquals(fs.counts.streams, 1);
    assert(fs.counts.bytesRead < size / 2, `read ${fs.counts.bytesRead} of ${size} bytes`);

    // This store's own appends keep its cache current: the next listing reads nothing.
    await store.append(grown, [user("z0000002", "z0000001")]);
    fs.reset();
    assertEquals((await store.list())[0].messageCount, 52);
    assertEquals([fs.counts.reads, fs.counts.streams], [0, 0]);
  } finally {
    await removeDir(dir);
  }
});

test("unloadable files are left out and reported with their reasons, cached", async () => {
  const dir = await tempDir();
  try {
    const store = await openJsonlFsStore(dir);
    await store.create(v4Header("good"), chain("g", 2));
    const header = (id: string, extra = "") =>
      `{"type":"session","version":4,"id":"${id}","createdAt":"2026-01-01T00:00:00.000Z","cwd":"/p"${extra}}\n`;
    const files: Record<string, string> = {
      "future.jsonl": header("future").replace('"version":4', '"version":9'),
      "torn.jsonl": header("torn") + '{"type":"message","id":"x"',
      "invalid-entry.jsonl": header("invalid") +
        '{"type":"message","id":"m1","parentId":null,"timestamp":"t","message":{"role":"user"}}\n',
      "no-header.jsonl":
        '{"type":"message","id":"m1","parentId":null,"timestamp":"t","message":{"role":"user","content":"x"}}\n',
      "empty.jsonl": "",
      "bad-json.jsonl": header("badjson") + "{not json}\n" + JSON.stringify(user("m2", null)) +
        "\n",
    };
    for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
    const reasons = new Map<string, string>();
    const onSkipped = (s: SkippedSession) => {
      assert(s.error instanceof SessionFormatError, `${s.path}: ${s.error.name}`);
      reasons.set(s.path.split("/").pop()!, (s.error as SessionFormatError).reason);
    };
    assertEquals(ids(await store.list({ onSkipped })), ["good"]);
    assertEquals([...reasons.keys()].sort(), Object.keys(files).sort());
    assert(reasons.get("future.jsonl")!.includes("newer than this library supports"), "future");
    assert(reasons.get("torn.jsonl")!.startsWith("torn final record"), "torn");
    assert(reasons.get("invalid-entry.jsonl")!.startsWith("invalid message entry"), "invalid");
    assert(reasons.get("no-header.jsonl")!.includes("not a session header"), "no header");
    assert(reasons.get("empty.jsonl")!.includes("no session header"), "empty");
    assert(reasons.get("bad-json.jsonl")!.startsWith("invalid JSON"), "bad json");
    // Reported again from the cache, without reading the files again.
    const fs = new CountingFs(new NodeJsonlFolderFs(dir));
    const counted = new JsonlSessionStore(fs);
    await counted.list();
    fs.reset();
    reasons.clear();
    await counted.list({ onSkipped });
    assertEquals(reasons.size, 6);
    assertEquals([fs.counts.reads, fs.counts.streams], [0, 0]);
  } finally {
    await removeDir(dir);
  }
});

test("the older pi folder layout is listed, filtered by cwd, and never written", async () => {
  const dir = await tempDir();
  try {
    await copyFixture("pi-layout", dir);
    const before = await snapshot(dir);
    const fs = new CountingFs(new NodeJsonlFolderFs(dir));
    const store = new JsonlSessionStore(fs);
    const skipped: SkippedSession[] = [];
    const all = await store.list({ onSkipped: (s) => skipped.push(s) });
    assertEquals(ids(all), [
      "66666666-6666-4666-8666-666666666666", // format 4, 2026
      "44444444-4444-4444-8444-444444444444", // early v4, 2025-03
      "11111111-1111-4111-8111-111111111111", // v3, 2025-01
      "33333333-3333-4333-8333-333333333333", // v2, 2024-09
      "22222222-2222-4222-8222-222222222222", // v1, 2024-06
    ]);
    assertEquals(skipped.length, 1);
    assert(skipped[0].path.includes("--home-u-gamma--"), "the torn file is reported");
    assert(String(skipped[0].error.message).includes("torn final record"), "with its reason");
    const byId = new Map(all.map((row) => [row.id, row]));
    assertEquals(byId.get("11111111-1111-4111-8111-111111111111")!.name, "Flaky test");
    assertEquals(
      byId.get("22222222-2222-4222-8222-222222222222")!.firstMessage,
      "v1: list the files",
    );
    assertEquals(
      byId.get("44444444-4444-4444-8444-444444444444")!.parentSessionId,
      "33333333-3333-4333-8333-333333333333",
    );
    assertEquals(
      byId.get("44444444-4444-4444-8444-444444444444")!.created.toISOString(),
      "2025-03-01T10:00:00.000Z",
    );
    assertEquals(ids(await store.list({ cwd: "/home/u/alpha" })), [
      "66666666-6666-4666-8666-666666666666",
      "11111111-1111-4111-8111-111111111111",
      "22222222-2222-4222-8222-222222222222",
    ]);
    assertEquals(ids(await store.list({ cwd: "/home/u/beta" })).length, 2);
    for (const row of all) assertEquals((await store.load(row.id)).header.id, row.id);
    // The one write: the listing cache, beside the sessions (a new process reads it instead).
    assertEquals([fs.counts.appends, fs.counts.atomicWrites], [0, 1]);
    const after = await snapshot(dir);
    assert(after.delete(LISTING_CACHE_FILE), "the listing cache is kept in the folder");
    assertEquals(after, before, "listing and loading changed no session file");
  } finally {
    await removeDir(dir);
  }
});

test("a copied file with the same id is listed once and reported as a duplicate", async () => {
  const dir = await tempDir();
  try {
    const store = await openJsonlFsStore(dir);
    const { path } = await store.create(v4Header("dup"), chain("d", 1));
    await copyFile(path!, join(dir, "copy-of-dup.jsonl"));
    const skipped: SkippedSession[] = [];
    const fresh = await openJsonlFsStore(dir);
    assertEquals(ids(await fresh.list({ onSkipped: (s) => skipped.push(s) })), ["dup"]);
    assertEquals(skipped.map((s) => s.path), [join(dir, "copy-of-dup.jsonl")]);
    assertEquals((await fresh.load("dup")).path, path, "the canonical file is the session");
  } finally {
    await removeDir(dir);
  }
});

test("listing can be aborted between files and reports progress in order", async () => {
  const dir = await tempDir();
  try {
    const store = await openJsonlFsStore(dir);
    for (let i = 0; i < 5; i++) await store.create(v4Header(`p-${i}`), chain(`p${i}`, 3));
    const progress: number[] = [];
    await (await openJsonlFsStore(dir, { listConcurrency: 1 })).list({
      onProgress: (loaded, total) => progress.push(loaded * 10 + total),
    });
    assertEquals(progress, [15, 25, 35, 45, 55]);
    const controller = new AbortController();
    let error: unknown;
    try {
      await (await openJsonlFsStore(dir, { listConcurrency: 1 })).list({
        signal: controller.signal,
        onProgress: () => controller.abort(new Error("enough")),
      });
    } catch (e) {
      error = e;
    }
    assertEquals((error as Error)?.message, "enough");
    await appendFile(join(dir, "not-a-session.txt"), "ignored");
    assertEquals((await store.list()).length, 5);
    assert(!(await readdir(dir)).some((name) => name.endsWith(".lock")), "no locks taken");
  } finally {
    await removeDir(dir);
  }
});
