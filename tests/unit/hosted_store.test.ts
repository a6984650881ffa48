/**
 * `HostedSessionStore` against a real loopback HTTP server (node:http, so Deno and Node run
 * the same test) that serves objects the way R2 and S3 do, and under `/plain/` from a server
 * that ignores Range. Differential: for every fixture and every leaf, and a generated
 * session, what the store reads through the export index equals the whole-session
 * projection; it fetches only part of a compacted session; and a changed, tampered or
 * missing object is a typed `SessionError`, never a wrong answer.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  buildSessionProjection,
  loadSessionProjection,
  parseSessionJsonlSync,
  SessionError,
  SessionNotFoundError,
  SessionStorageError,
} from "../../core.ts";
import { buildExportIndex, serializeExportIndex } from "../../src/export_index.ts";
import { serializeSessionJsonl } from "../../src/jsonl.ts";
import { HostedSessionStore } from "../../stores/http/store.ts";
import { type RangeStorage, serveRangeStorage } from "../edge/range_storage.ts";
import { compareLeaves } from "./context_compare.ts";
import { generatedSession, parseableFixtures, type TestSession } from "./context_sessions.ts";
import { fixtureBytes } from "./fixtures.ts";

const encoder = new TextEncoder();

/** Publish `bytes` as `<name>` with its index `<name>.idx`; false when it cannot be indexed. */
async function publish(storage: RangeStorage, name: string, bytes: Uint8Array): Promise<boolean> {
  storage.put(name, bytes);
  try {
    storage.put(`${name}.idx`, serializeExportIndex(await buildExportIndex(bytes)));
    return true;
  } catch {
    return false;
  }
}

async function withStorage(run: (storage: RangeStorage) => Promise<void>): Promise<void> {
  const storage = await serveRangeStorage();
  try {
    await run(storage);
  } finally {
    await storage.stop();
  }
}

const store = (storage: RangeStorage, name: string, plain = false) =>
  new HostedSessionStore({ url: `${storage.origin}/${plain ? "plain" : "o"}/${name}` });

const bytesOf = (session: TestSession) =>
  encoder.encode(serializeSessionJsonl(session.header, session.entries));

test("hosted store: every fixture and every leaf, read by ranges, equals the whole projection", async () => {
  await withStorage(async (storage) => {
    let ranged = 0;
    for (const session of parseableFixtures()) {
      const indexed = await publish(storage, session.name, fixtureBytes(session.name));
      const hosted = store(storage, session.name);
      await compareLeaves(hosted, session);
      const read = await hosted.readContext();
      // v1 files have no ids to index by: they are read whole, and say so.
      const { sourceVersion } = parseSessionJsonlSync(fixtureBytes(session.name));
      assert.equal(read.ranged, indexed && sourceVersion >= 2, session.name);
      if (read.ranged) ranged++;
      assert.deepEqual(read.projection, buildSessionProjection(session.entries, undefined));
    }
    assert(ranged > 20, `only ${ranged} fixtures were read by ranges`);
  });
});

test("hosted store: a server that ignores Range, or no index, answers the same from the whole body", async () => {
  await withStorage(async (storage) => {
    for (const session of parseableFixtures().filter((_, i) => i % 5 === 0)) {
      const indexed = await publish(storage, session.name, fixtureBytes(session.name));
      const plain = store(storage, session.name, true);
      const step = Math.max(1, Math.ceil(session.entries.length / 8));
      await compareLeaves(plain, session, step);
      const read = await plain.readContext();
      assert.equal(read.ranged, false);
      assert.equal(read.bytesFetched, fixtureBytes(session.name).length, session.name);
      storage.remove(`${session.name}.idx`);
      if (indexed) await compareLeaves(store(storage, session.name), session, step);
      assert.equal((await store(storage, session.name).readContext()).ranged, false);
    }
  });
});

test("hosted store: a generated session's context is read from a small part of the file", async () => {
  const session = generatedSession(6000, 7);
  const bytes = bytesOf(session);
  await withStorage(async (storage) => {
    assert(await publish(storage, "gen.jsonl", bytes));
    const hosted = store(storage, "gen.jsonl");
    await compareLeaves(hosted, session, 211);
    storage.reset();
    const read = await hosted.readContext();
    assert.equal(read.ranged, true);
    assert.deepEqual(read.projection, buildSessionProjection(session.entries, undefined));
    const served = storage.served("gen.jsonl");
    assert.equal(read.bytesFetched, served.bytes);
    assert(served.bytes < bytes.length / 4, `${served.bytes} of ${bytes.length} bytes fetched`);
    assert(served.ranges.length > 0 && served.ranges.every((r) => r.startsWith("bytes=")));
  });
});

test("hosted store: a changed or tampered object is a typed error, and a later read of the restored file answers", async () => {
  const session = generatedSession(3000, 11);
  const bytes = bytesOf(session);
  await withStorage(async (storage) => {
    await publish(storage, "s.jsonl", bytes);
    const hosted = store(storage, "s.jsonl");
    const id = session.header.id;
    // Replaced between the first range and the next one: the ETag changes.
    storage.onRequest = (name, count) => {
      if (name === "s.jsonl" && count === 2) storage.put("s.jsonl", bytes.slice());
    };
    let error = await hosted.loadContext(id).catch((e) => e);
    assert(error instanceof SessionError, String(error));
    assert.equal(error.name, "ExportChangedError");
    storage.onRequest = undefined;
    // A flipped byte in the context's blocks: the digest refuses it.
    const flipped = bytes.slice();
    flipped[bytes.length - 10] ^= 1;
    storage.put("s.jsonl", flipped);
    error = await hosted.readContext().catch((e) => e);
    assert(error instanceof SessionError, String(error));
    assert.equal(error.name, "ExportIndexError");
    // Appended after indexing: the length no longer matches.
    const longer = new Uint8Array(bytes.length + 1);
    longer.set(bytes);
    longer[bytes.length] = 0x0a;
    storage.put("s.jsonl", longer);
    error = await hosted.readContext().catch((e) => e);
    assert(error instanceof SessionError && error.name === "ExportIndexError", String(error));
    // Restored: the same store answers again.
    storage.put("s.jsonl", bytes);
    assert.deepEqual(
      await loadSessionProjection(hosted, id),
      buildSessionProjection(session.entries, undefined),
    );
  });
});

test("hosted store: missing export, another session's id, network failure, writes", async () => {
  const session = parseableFixtures().find((s) => s.entries.length > 2)!;
  await withStorage(async (storage) => {
    const missing = store(storage, "missing.jsonl");
    await assert.rejects(missing.readContext(), SessionNotFoundError);
    await assert.rejects(missing.list(), SessionNotFoundError);
    await publish(storage, "s.jsonl", bytesOf(session));
    const hosted = store(storage, "s.jsonl");
    assert.equal(await hosted.has(session.header.id), true);
    assert.equal(await hosted.has("another"), false);
    await assert.rejects(hosted.loadContext("another"), SessionNotFoundError);
    await assert.rejects(hosted.load("another"), SessionNotFoundError);
    const [row] = await hosted.list();
    assert.equal(row.id, session.header.id);
    assert.equal(row.path, `${storage.origin}/o/s.jsonl`);
    await assert.rejects(hosted.append(session.header.id, []), SessionStorageError);
    await assert.rejects(hosted.create(session.header), SessionStorageError);
    const loaded = await hosted.load(session.header.id);
    assert.deepEqual(loaded.entries, parseSessionJsonlSync(bytesOf(session)).entries);
  });
  const gone = await serveRangeStorage();
  const origin = gone.origin;
  await gone.stop();
  const unreachable = new HostedSessionStore({ url: `${origin}/o/s.jsonl` });
  await assert.rejects(unreachable.readContext(), SessionStorageError);
});
