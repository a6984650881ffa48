/**
 * The listing cache kept in the folder (issue 12): a new store (a new process) lists without
 * folding the sessions again; a torn, edited or foreign-version cache file is ignored and
 * replaced, never trusted; a file changed behind the cache's back is read again; and a
 * folder the cache cannot be written to still lists. Every listing is compared with the
 * uncached one, and reads are counted, not timed.
 */
import { appendFile, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { SessionInfo } from "../../core.ts";
import { assert, assertEquals } from "../conformance/assert.ts";
import { removeDir, tempDir } from "../jsonl/subjects.ts";
import { chain, user, v4Header } from "../jsonl/helpers.ts";
import { CountingFs } from "../jsonl/counting_fs.ts";
import { freshListing, rowsText, uncached } from "../jsonl/listing_helpers.ts";
import { NodeJsonlFolderFs, openJsonlFsStore } from "../../stores/jsonl/fs.ts";
import { JsonlSessionStore } from "../../stores/jsonl/store.ts";
import { LISTING_CACHE_FILE } from "../../stores/jsonl/_persist.ts";
import type { WriteOptions } from "../../stores/jsonl/_folder.ts";

function test(name: string, fn: (dir: string) => Promise<void>) {
  Deno.test(`jsonl listing cache: ${name}`, async () => {
    const dir = await tempDir();
    try {
      const writer = await openJsonlFsStore(dir, { persistListingCache: false });
      for (let i = 0; i < 12; i++) {
        await writer.create(v4Header(`c-${i}`, i % 3 ? "/a" : "/b"), chain(`c${i}x`, 5 + i));
      }
      await fn(dir);
    } finally {
      await removeDir(dir);
    }
  });
}

test("a new store lists from the cache file without folding any session", async (dir) => {
  const first = await freshListing(dir);
  assertEquals(first.streams, 12, "the first listing folds every file");
  assertEquals(first.writes, 1, "and writes the cache file");
  // Keys are whole milliseconds, so Deno and Node processes (whose stat precision differs)
  // share the cache file instead of rebuilding it in turn.
  const stat = await new NodeJsonlFolderFs(dir).stat(JSON.parse(first.rows)[0].path);
  assert(Number.isInteger(stat!.mtimeMs), `mtime ${stat!.mtimeMs}`);
  const second = await freshListing(dir);
  assertEquals(second.rows, await uncached(dir));
  assertEquals([second.streams, second.writes], [0, 0], "nothing folded, nothing rewritten");
  // A cwd-filtered listing from the cache equals the uncached one too.
  const filtered = await second.store.list({ cwd: "/b" });
  const reference = await (await openJsonlFsStore(dir, { persistListingCache: false }))
    .list({ cwd: "/b" });
  assertEquals(rowsText(filtered), rowsText(reference));
});

for (
  const [damage, spoil] of [
    ["truncated", (text: string) => text.slice(0, Math.floor(text.length * 0.6))],
    ["emptied", () => ""],
    // Still valid JSON, but no longer what was checksummed: an edited count is not believed.
    ["edited", (text: string) => text.replace(/"messageCount":(\d+)/g, '"messageCount":999')],
    ["from another version", (text: string) => text.replace('"version":2', '"version":99')],
    ["not a cache at all", () => '{"files":{}}\n{"files":{}}'],
  ] as const
) {
  test(`a cache file ${damage} is ignored and rebuilt`, async (dir) => {
    await freshListing(dir);
    const path = join(dir, LISTING_CACHE_FILE);
    const spoiled = spoil(await readFile(path, "utf8"));
    await writeFile(path, spoiled);
    const listed = await freshListing(dir);
    assertEquals(listed.rows, await uncached(dir));
    assertEquals(listed.streams, 12, "every file is folded again");
    assertEquals(listed.writes, 1, "and a good cache file replaces the damaged one");
    assertEquals((await freshListing(dir)).streams, 0, "which the next store uses");
  });
}

test("a file changed behind the cache's back is read again", async (dir) => {
  const first = await freshListing(dir);
  assertEquals(first.writes, 1);
  // Another program appends to one session and rewrites another (no store involved).
  const rows = JSON.parse(first.rows) as { id: string; path: string }[];
  const grown = rows.find((row) => row.id === "c-4")!;
  await appendFile(grown.path, JSON.stringify(user("zz000001", "c4x0000009")) + "\n");
  const rewritten = rows.find((row) => row.id === "c-7")!;
  const lines = (await readFile(rewritten.path, "utf8")).trimEnd().split("\n");
  await writeFile(rewritten.path, lines.slice(0, 3).join("\n") + "\n");
  const listed = await freshListing(dir);
  assertEquals(listed.rows, await uncached(dir));
  assert(listed.streams >= 1 && listed.streams <= 2, `only the changed files (${listed.streams})`);
  const byId = new Map((JSON.parse(listed.rows) as SessionInfo[]).map((row) => [row.id, row]));
  assertEquals(byId.get("c-4")!.messageCount, 10);
  assertEquals(byId.get("c-7")!.messageCount, 2);
});

test("a cache file rewritten by a store that never needed its probes still recognises appends", async (dir) => {
  await freshListing(dir);
  const rows = JSON.parse((await freshListing(dir)).rows) as { id: string; path: string }[];
  /** Append one entry to a session; a fresh listing then reads only the end of it. */
  const growThenList = async (id: string, entryId: string, parentId: string) => {
    const path = rows.find((row) => row.id === id)!.path;
    await appendFile(path, JSON.stringify(user(entryId, parentId)) + "\n");
    const cacheBytes = (await stat(join(dir, LISTING_CACHE_FILE))).size;
    const listed = await freshListing(dir);
    const fileBytes = (await stat(path)).size;
    assert(
      listed.bytesRead - cacheBytes < fileBytes / 2,
      `${id}: ${listed.bytesRead - cacheBytes} bytes read of ${fileBytes}: extended by its probe`,
    );
    assertEquals(listed.writes, 1, "the cache file is saved again");
  };
  // The first store saves the other files' probes as it read them (base64, not decoded).
  await growThenList("c-4", "zz000001", "c4x0000009");
  await growThenList("c-7", "zz000002", "c7x0000012");
  assertEquals((await freshListing(dir)).rows, await uncached(dir));
});

test("a folder the cache cannot be written to still lists, every time", async (dir) => {
  class ReadOnly extends CountingFs {
    override writeAtomic(
      path: string,
      data: Uint8Array | AsyncIterable<Uint8Array>,
      options?: WriteOptions,
    ): Promise<void> {
      this.counts.atomicWrites++;
      if (path === LISTING_CACHE_FILE) {
        const error = Object.assign(new Error("EROFS: read-only file system"), { code: "EROFS" });
        return Promise.reject(error);
      }
      return this.inner.writeAtomic(path, data, options);
    }
  }
  const fs = new ReadOnly(new NodeJsonlFolderFs(dir));
  const store = new JsonlSessionStore(fs);
  assertEquals(rowsText(await store.list({ includeInternal: true })), await uncached(dir));
  assertEquals(fs.counts.atomicWrites, 1, "tried once");
  fs.reset();
  await store.list();
  assertEquals(fs.counts.atomicWrites, 0, "not retried while nothing changed");
  // The store's own writes still work, and the next listing shows them.
  await store.append("c-0", [user("zz000002", "c0x0000005")]);
  const rows = await store.list({ cwd: "/b" });
  assertEquals(rows.find((row) => row.id === "c-0")!.messageCount, 6);
});

test("a store that saves the cache again after its own appends leaves no stale entry in it", async (dir) => {
  const { store } = await freshListing(dir);
  // Appends by this store, then a listing that saves the cache with the changed entries.
  await store.append("c-4", [user("zz000001", "c4x0000009")]);
  await store.append("c-7", [user("zz000002", "c7x0000012")]);
  await store.list({ includeInternal: true });
  const next = await freshListing(dir);
  assertEquals(next.rows, await uncached(dir));
  assertEquals([next.streams, next.writes], [0, 0]);
  const cacheBytes = (await stat(join(dir, LISTING_CACHE_FILE))).size;
  assertEquals(next.bytesRead, cacheBytes, "only the cache file is read: every entry current");
});
