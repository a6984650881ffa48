/**
 * The failure half of the JSONL burst-append path (`stores/jsonl/_append.ts`
 * `appendInBurst`): within a burst of appends awaited back to back, a bad entry is refused
 * with a typed error and nothing already acknowledged is lost. The file stays byte-identical
 * to before the refused append, loads with every acknowledged entry (in this store and in a
 * fresh one), and the burst goes on: the next append is written at once (the lock and the
 * in-process queue were given back). Deno and Node alike.
 */
import { test } from "node:test";
import { readFileSync } from "node:fs";
import { assert, assertEquals, assertRejects } from "../conformance/assert.ts";
import { chain, v4Header } from "../jsonl/helpers.ts";
import { removeDir, tempDir } from "../jsonl/subjects.ts";
import { openJsonlFsStore } from "../../stores/jsonl/fs.ts";
import type { JsonlSessionStore } from "../../stores/jsonl/store.ts";
import { systemCalls } from "../../stores/jsonl/_native.ts";
import { EntryConflictError, SessionStorageError } from "../../src/errors.ts";
import type { SessionEntry } from "../../src/schema.ts";

/**
 * A session with three entries appended in a burst (the file kept open: no open after the
 * first append), then `refuse` run against it; checks both halves afterwards.
 */
async function burstThenRefused(
  refuse: (store: JsonlSessionStore, acknowledged: SessionEntry[]) => Promise<void>,
): Promise<void> {
  const dir = await tempDir("mu-burst-");
  try {
    // A short lock wait: a lock left held by the refused append fails the next one quickly.
    const options = { trashCommand: false, durability: "relaxed", lockTimeoutMs: 300 } as const;
    const store = await openJsonlFsStore(dir, options);
    const [a, b, c, d] = chain("burst", 4);
    const { path } = await store.create(v4Header("s"));
    await store.append("s", [a]);
    const opensBefore = systemCalls.open;
    await store.append("s", [b]);
    await store.append("s", [c]);
    assertEquals(systemCalls.open, opensBefore, "b and c were appended within the burst");
    const before = readFileSync(path!);

    await refuse(store, [a, b, c]);

    assertEquals(readFileSync(path!), before, "the refused append wrote nothing");
    assertEquals((await store.load("s")).entries, [a, b, c]);
    // The burst goes on: the lock and the in-process queue were given back.
    await store.append("s", [d]);
    assertEquals((await store.load("s")).entries, [a, b, c, d]);
    await store.close();
    const fresh = await openJsonlFsStore(dir, options);
    try {
      assertEquals((await fresh.load("s")).entries, [a, b, c, d]);
    } finally {
      await fresh.close();
    }
  } finally {
    await removeDir(dir);
  }
}

test("jsonl burst append: an entry reusing a stored id with other content is refused (EntryConflictError); the acknowledged entries stay", async () => {
  await burstThenRefused(async (store, [, b]) => {
    const clash = { ...b, message: { ...(b as { message: object }).message, content: "other" } };
    const error = await assertRejects(
      () => store.append("s", [clash as SessionEntry]),
      EntryConflictError,
    );
    assert(error.message.includes(b.id), error.message);
  });
});

test("jsonl burst append: an entry that cannot be stored as JSON is refused (SessionStorageError) before the file or its lock is touched", async () => {
  await burstThenRefused(async (store, acknowledged) => {
    const parentId = acknowledged[acknowledged.length - 1].id;
    const [entry] = chain("bad", 1, parentId);
    const bad = { ...entry, size: 10n } as unknown as SessionEntry; // JSON has no BigInt
    const error = await assertRejects(() => store.append("s", [bad]), SessionStorageError);
    assert(error.message.includes("JSON"), error.message);
  });
});
