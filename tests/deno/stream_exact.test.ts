/**
 * `streamExact` of the JSONL store: a session read in checked parts, in file order, each
 * entry keeping its exact text; an older format upgraded as one part; a bad line rejecting
 * after the parts before it; a torn final line read again under the writer's lock. And the
 * SQLite store's, paged by seq.
 */
import { DatabaseSync } from "node:sqlite";
import { importSession, SessionFormatError } from "../../core.ts";
import { SqliteSessionStore } from "../../stores/sqlite/store.ts";
import { toJsonLine } from "../../src/jsonl.ts";
import type { LoadedSession } from "../../src/store.ts";
import { NodeJsonlFolderFs, openJsonlFsStore } from "../../stores/jsonl/fs.ts";
import { streamSessionFile } from "../../stores/jsonl/_stream.ts";
import type { JsonlFolderFs, LockOptions } from "../../stores/jsonl/_folder.ts";
import { assert, assertEquals } from "../conformance/assert.ts";
import { header } from "../conformance/store_suite.ts";
import { chain } from "../conformance/sync_chain.ts";

/** Run `body` with a fresh folder, removed after it. */
async function inFolder(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "mu-stream-exact-" });
  try {
    await body(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function collect(parts: AsyncIterable<LoadedSession>): Promise<LoadedSession[]> {
  const all: LoadedSession[] = [];
  for await (const part of parts) all.push(part);
  return all;
}

const lines = (entries: readonly object[]) => entries.map((entry) => toJsonLine(entry));

Deno.test("streamExact: parts in file order with each entry's exact text", () =>
  inFolder(async (dir) => {
    const store = await openJsonlFsStore(dir);
    await store.create(header("s"), chain(40, "a"));
    // Odd spacing survives only if the line's own text is kept.
    const odd = '{"type":"message","id":"odd","parentId":"a-39",' +
      '"timestamp":"2026-01-02T00:00:00.000Z","message":{"role":"user","content":"x",  "timestamp":1}}';
    await Deno.writeTextFile((await store.pathOf("s"))!, odd + "\n", { append: true });
    const whole = await store.loadExact("s");
    const parts = await collect(await store.streamExact("s", { batchChars: 1_000 }));
    assert(parts.length > 3, `${parts.length} parts`);
    for (const part of parts) {
      assertEquals(part.header, whole.header);
      assertEquals([part.upgraded, part.sourceVersion], [false, 4]);
    }
    assertEquals(lines(parts.flatMap((part) => part.entries)), lines(whole.entries));
    assertEquals(lines(parts.at(-1)!.entries).at(-1), odd);
    await store.close();
  }));

Deno.test("streamExact: an older format comes upgraded in one part", () =>
  inFolder(async (dir) => {
    await Deno.copyFile(
      new URL("../../fixtures/codec/v3.jsonl", import.meta.url),
      `${dir}/v3.jsonl`,
    );
    const store = await openJsonlFsStore(dir);
    const [{ id }] = await store.list({ includeInternal: true });
    const whole = await store.loadExact(id);
    const parts = await collect(await store.streamExact(id, { batchChars: 10 }));
    assertEquals(parts.length, 1);
    assertEquals([parts[0].upgraded, parts[0].sourceVersion], [true, 3]);
    assertEquals(lines(parts[0].entries), lines(whole.entries));
    await store.close();
  }));

Deno.test("streamExact: a bad line rejects after the parts before it", () =>
  inFolder(async (dir) => {
    const store = await openJsonlFsStore(dir);
    await store.create(header("s"), chain(30, "a"));
    const path = (await store.pathOf("s"))!;
    await Deno.writeTextFile(path, '{"type":"message","id":"bad"}\n', { append: true });
    const seen: LoadedSession[] = [];
    const error = await (async () => {
      for await (const part of await store.streamExact("s", { batchChars: 1_000 })) {
        seen.push(part);
      }
    })().then(() => undefined, (error) => error);
    assert(error instanceof SessionFormatError, String(error));
    assertEquals(error.line, 32, "the header, 30 entries, then the bad one");
    assert(seen.length > 0, "the complete parts before it came first");
    const before = seen.flatMap((part) => part.entries);
    assert(before.length < 31 && before.every((entry) => entry.id !== "bad"));
    await store.close();
  }));

Deno.test("streamExact: a torn last line is read again under the writer's lock", () =>
  inFolder(async (dir) => {
    const store = await openJsonlFsStore(dir);
    const first = chain(3, "a");
    await store.create(header("s"), first);
    const path = (await store.pathOf("s"))!;
    const name = path.slice(dir.length + 1);
    const [late] = chain(1, "late", "a-2");
    const text = toJsonLine(late);
    // Another writer is mid-append: half its line is written when the read reaches the end,
    // and it finishes the line before it lets go of the lock the read then waits for.
    await Deno.writeTextFile(path, text.slice(0, 20), { append: true });
    const real = new NodeJsonlFolderFs(dir);
    let locks = 0;
    // What the read uses of a folder: the real one's, with the lock told to the test.
    const fs = {
      describe: (file: string) => real.describe(file),
      readStream: (file: string, start?: number) => real.readStream(file, start),
      async lock(file: string, options: LockOptions) {
        locks++;
        await Deno.writeTextFile(path, text.slice(20) + "\n", { append: true });
        return await real.lock(file, options);
      },
    } as JsonlFolderFs;
    const how = { retainRaw: true, lockOptions: { timeoutMs: 5_000 }, forget() {} };
    const parts = await collect(streamSessionFile(fs, name, "s", how, 1));
    assertEquals(locks, 1, "read again once, under the lock");
    assertEquals(
      lines(parts.flatMap((part) => part.entries)),
      lines([...first, late]),
    );

    // Left torn with no writer: the read rejects as a whole load does.
    await Deno.writeTextFile(path, text.slice(0, 20), { append: true });
    const error = await collect(await store.streamExact("s")).then(() => undefined, (e) => e);
    assert(error instanceof SessionFormatError && error.reason.startsWith("torn final record"));
    await store.close();
    real.idle?.();
  }));

Deno.test("streamExact (SQLite): parts paged by seq, each entry's stored text kept", async () => {
  const store = await SqliteSessionStore.open(new DatabaseSync(":memory:"));
  const odd = '{"type":"message","id":"odd","parentId":null,' +
    '"timestamp":"2026-01-02T00:00:00.000Z","message":{"role":"user","content":"x",  "timestamp":1}}';
  await importSession(store, `${JSON.stringify(header("s"))}\n${odd}\n`);
  await store.append("s", chain(700, "a", "odd"));
  const parts = await collect(await store.streamExact("s", { batchChars: 10_000 }));
  assert(parts.length > 3, `${parts.length} parts`);
  const text = (await store.exportJsonl("s")).split("\n").filter(Boolean);
  assertEquals(toJsonLine(parts[0].header), text[0]);
  assertEquals(lines(parts.flatMap((part) => part.entries)), text.slice(1));
  await store.close();
});
