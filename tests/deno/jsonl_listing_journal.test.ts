/**
 * The listing cache's journal: a save after a few changes among many files writes only the
 * changed entries beside the cache file, which a new store (a new process) lists from
 * without folding a session; a torn, edited or foreign journal, or one written on top of a
 * cache file another writer has replaced, is ignored, never trusted; a large journal is
 * folded into the cache file; a process killed while saving leaves a folder that lists as
 * the uncached store does. Reads and writes are counted, not timed.
 */
import { readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { SessionInfo } from "../../core.ts";
import { assert, assertEquals } from "../conformance/assert.ts";
import { removeDir, tempDir } from "../jsonl/subjects.ts";
import { chain, repoRoot, user, v4Header } from "../jsonl/helpers.ts";
import { freshListing, uncached } from "../jsonl/listing_helpers.ts";
import { openJsonlFsStore } from "../../stores/jsonl/fs.ts";
import { LISTING_CACHE_FILE } from "../../stores/jsonl/_persist.ts";
import { LISTING_JOURNAL_FILE } from "../../stores/jsonl/_listing_journal.ts";
import { encodeSideFile } from "../../stores/jsonl/_side_file.ts";

const SESSIONS = 40;

function test(name: string, fn: (dir: string) => Promise<void>) {
  Deno.test(`jsonl listing journal: ${name}`, async () => {
    const dir = await tempDir();
    try {
      const writer = await openJsonlFsStore(dir, { persistListingCache: false });
      for (let i = 0; i < SESSIONS; i++) {
        await writer.create(v4Header(`j-${i}`), chain(`j${i}x`, 4));
      }
      await fn(dir);
    } finally {
      await removeDir(dir);
    }
  });
}

const exists = (path: string) => stat(path).then(() => true, () => false);

/** A store that lists (writing the whole cache file), then appends to `count` sessions and lists again. */
async function appendAndList(dir: string, count: number, tag = "zz") {
  const listed = await freshListing(dir);
  const cacheBefore = await readFile(join(dir, LISTING_CACHE_FILE));
  for (let i = 0; i < count; i++) {
    await listed.store.append(`j-${i}`, [user(`${tag}${i}`.padEnd(10, "0"), `j${i}x0000004`)]);
  }
  listed.fs.reset();
  await listed.store.list({ includeInternal: true });
  return { ...listed, cacheBefore, counts: listed.fs.counts };
}

test("a save after one append writes the journal, not the cache file, and a new store reads only those two", async (dir) => {
  const { cacheBefore, counts } = await appendAndList(dir, 1);
  assertEquals(counts.atomicWrites, 1, "one save");
  assertEquals(await readFile(join(dir, LISTING_CACHE_FILE)), cacheBefore, "cache file kept");
  const journalBytes = (await stat(join(dir, LISTING_JOURNAL_FILE))).size;
  assert(journalBytes < cacheBefore.length / 8, `journal ${journalBytes} B`);
  const next = await freshListing(dir);
  assertEquals(next.rows, await uncached(dir));
  assertEquals([next.streams, next.atomicWrites], [0, 0], "nothing folded, nothing rewritten");
  assertEquals(next.bytesRead, cacheBefore.length + journalBytes);
  const row = (JSON.parse(next.rows) as SessionInfo[]).find((r) => r.id === "j-0")!;
  assertEquals(row.messageCount, 5, "the appended entry is counted from the journal");
});

test("a journal grown past its share is folded into the cache file, and removed", async (dir) => {
  const { store } = await appendAndList(dir, 1);
  assert(await exists(join(dir, LISTING_JOURNAL_FILE)));
  // Each later save carries every change since the cache file: it grows until folded.
  for (let i = 1; i < SESSIONS && await exists(join(dir, LISTING_JOURNAL_FILE)); i++) {
    await store.append(`j-${i}`, [user(`yy${i}`.padEnd(10, "0"), `j${i}x0000004`)]);
    await store.list({ includeInternal: true });
  }
  assert(!await exists(join(dir, LISTING_JOURNAL_FILE)), "folded by a whole save");
  const next = await freshListing(dir);
  assertEquals(next.rows, await uncached(dir));
  assertEquals([next.streams, next.atomicWrites], [0, 0]);
});

/** The journal's head line and body, to spoil. */
async function journalParts(dir: string) {
  const text = await readFile(join(dir, LISTING_JOURNAL_FILE), "utf8");
  const newline = text.indexOf("\n");
  return { head: JSON.parse(text.slice(0, newline)), body: text.slice(newline + 1) };
}

/** A journal entry that would be believed (its file's size and mtime match) but lies. */
const lie = (body: string) => body.replace(/"messageCount":5/, '"messageCount":999');

for (
  const [damage, spoil] of [
    ["torn", async (dir: string) => {
      const bytes = await readFile(join(dir, LISTING_JOURNAL_FILE));
      return bytes.subarray(0, Math.floor(bytes.length * 0.7));
    }],
    ["edited", async (dir: string) => {
      const { head, body } = await journalParts(dir);
      return `${JSON.stringify(head)}\n${lie(body)}`;
    }],
    // Whole and checksummed, but written on top of another cache file than the one there.
    ["naming another cache file", async (dir: string) => {
      const { head, body } = await journalParts(dir);
      const foreign = lie(body).replace(/"base":"[0-9a-f]+"/, `"base":"${"0".repeat(64)}"`);
      const kind = { format: head.format, version: head.version };
      return await encodeSideFile(kind, new TextEncoder().encode(foreign));
    }],
  ] as const
) {
  test(`a journal ${damage} is ignored: the files it names are read again`, async (dir) => {
    await appendAndList(dir, 1);
    assert((await journalParts(dir)).body.includes('"messageCount":5'), "the lie has a target");
    await writeFile(join(dir, LISTING_JOURNAL_FILE), await spoil(dir));
    const next = await freshListing(dir);
    assertEquals(next.rows, await uncached(dir));
    assertEquals(next.streams, 1, "only the session the journal would have vouched for");
  });
}

test("a journal on top of a cache file another writer replaced is not written", async (dir) => {
  const { store } = await appendAndList(dir, 1);
  // Another process, finding no cache file it trusts, saves a whole one meanwhile.
  await rm(join(dir, LISTING_CACHE_FILE));
  await (await openJsonlFsStore(dir)).list({ includeInternal: true });
  const cacheNow = await readFile(join(dir, LISTING_CACHE_FILE));
  await store.append("j-1", [user("zz10000000", "j1x0000004")]);
  await store.list({ includeInternal: true });
  assert(!(await readFile(join(dir, LISTING_CACHE_FILE))).equals(cacheNow), "saved whole");
  const next = await freshListing(dir);
  assertEquals(next.rows, await uncached(dir));
  assertEquals([next.streams, next.atomicWrites], [0, 0]);
});

Deno.test("jsonl listing journal: a process killed while saving leaves a folder that lists as without a cache, and the rerun converges", async () => {
  const dir = await tempDir();
  try {
    const writer = await openJsonlFsStore(dir, { persistListingCache: false });
    for (let i = 0; i < SESSIONS; i++) {
      await writer.create(v4Header(`j-${i}`), chain(`j${i}x`, 4));
    }
    for (let round = 0; round < 6; round++) {
      const child = new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--quiet",
          `--config=${repoRoot}deno.json`,
          "-A",
          `${repoRoot}tests/jsonl/journal_child.ts`,
          dir,
          `k${round}x`,
        ],
        stdout: "piped",
        stderr: "inherit",
      }).spawn();
      const reader = child.stdout.getReader();
      const { value } = await reader.read(); // "ready": the child lists and writes from here
      assert(value !== undefined, "the child started");
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 200));
      child.kill("SIGKILL");
      await child.status;
      await reader.cancel();
      // A session file may end in an append the kill tore; both listings see the same file.
      const reference = await uncached(dir);
      assertEquals((await freshListing(dir)).rows, reference, `round ${round}`);
      const again = await freshListing(dir);
      assertEquals(again.rows, reference);
      assertEquals([again.streams, again.atomicWrites], [0, 0], `round ${round}: converged`);
    }
  } finally {
    await removeDir(dir);
  }
});
