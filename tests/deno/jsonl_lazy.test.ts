/**
 * `SessionManager.open` over the JSONL store indexes entries lazily (stores/jsonl/scan/_lazy_open.ts,
 * src/lazy_index.ts): over every fixture copied into a folder, a lazily opened manager
 * answers exactly like a view over the store's full load (same header, file, entries,
 * branches, tree, labels, projections) and a file the full load refuses is refused with
 * the same error; over seeded mutations of real files (byte flips, truncations, splices,
 * hostile values) the lazy open never accepts what the full load refuses and never
 * answers differently when both accept. Entry bodies are read back from the file by offset:
 * the store's own rewrites copy the file first, another writer's rewrite raises.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  serializeSessionJsonl,
  SessionManager,
  SessionStorageError,
  SessionView,
} from "../../core.ts";
import { LazyIndex } from "../../src/lazy_index.ts";
import { type JsonlSessionStore, openJsonlFsStore } from "../../stores/jsonl/fs.ts";
import { assert, assertEquals, assertThrows } from "../conformance/assert.ts";
import { copyFixtures } from "../jsonl/fixture_folder.ts";
import { removeDir, tempDir } from "../jsonl/subjects.ts";
import { mutate } from "../stress/_mutate.ts";
import { Rng } from "../stress/_shared.ts";
import { generatedSession, handMadeSessions } from "../unit/context_sessions.ts";
import { answers } from "../unit/lazy_answers.ts";

const isLazy = (manager: SessionManager) =>
  (manager as unknown as { index: unknown }).index instanceof LazyIndex;

/**
 * Open `id` both ways: "refused" when both reject alike, "lazy" or "full" (how the manager
 * indexed it) when both accept with the same answers. Older formats are skipped (opening
 * persists their upgrade, and v1 upgrades mint new ids).
 */
async function compareOpen(store: JsonlSessionStore, id: string, what: string) {
  const loaded = await store.load(id).catch((error: Error) => error);
  const manager = await SessionManager.open(store, id).catch((error: Error) => error);
  if (loaded instanceof Error) {
    assert(manager instanceof Error, `${what}: the manager opened what load refuses`);
    assertEquals([manager.constructor, manager.message], [loaded.constructor, loaded.message]);
    return "refused";
  }
  if (loaded.upgraded) return "upgraded";
  if (manager instanceof Error) throw new Error(`${what}: open failed: ${manager.message}`);
  const full = new SessionView({
    header: loaded.header,
    entries: loaded.entries,
    path: loaded.path,
  });
  const ids = loaded.entries.map((entry) => entry.id);
  assertEquals(answers(manager, ids), answers(full, ids), what);
  return isLazy(manager) ? "lazy" : "full";
}

Deno.test("jsonl SessionManager.open: lazily indexed, the full load's answers and refusals", async () => {
  const dir = await tempDir();
  try {
    const store = await openJsonlFsStore(dir);
    const counts: Record<string, number> = {};
    for (const [file, id] of await copyFixtures(dir)) {
      const verdict = await compareOpen(store, id, file);
      counts[verdict] = (counts[verdict] ?? 0) + 1;
    }
    assert(counts.lazy >= 20 && counts.refused >= 3, JSON.stringify(counts));
    await store.close();
  } finally {
    await removeDir(dir);
  }
});

Deno.test("jsonl SessionManager.open over seeded mutations: never accepts what load refuses", async () => {
  const dir = await tempDir();
  try {
    const store = await openJsonlFsStore(dir);
    const sessions = [...handMadeSessions(), generatedSession(400, 400)];
    const corpus = sessions.map((s) =>
      new TextEncoder().encode(serializeSessionJsonl(s.header, s.entries))
    );
    const rng = new Rng(20261202);
    const counts: Record<string, number> = {};
    for (let round = 0; round < 120; round++) {
      const { bytes, steps } = mutate(rng, corpus);
      const id = `m${round}`;
      // The store finds a session by its header id: give the mutated header this round's id.
      const text = new TextDecoder().decode(bytes).replace(/"id":"[^"]*"/, `"id":"${id}"`);
      await writeFile(join(dir, `${id}.jsonl`), text);
      const verdict = await compareOpen(store, id, `round ${round}: ${steps.join(", ")}`);
      counts[verdict] = (counts[verdict] ?? 0) + 1;
    }
    assert(counts.lazy >= 10 && counts.refused >= 10, JSON.stringify(counts));
    await store.close();
  } finally {
    await removeDir(dir);
  }
});

Deno.test("jsonl SessionManager.open: appends after a lazy open land and read back", async () => {
  const dir = await tempDir();
  try {
    const store = await openJsonlFsStore(dir);
    const { header, entries } = generatedSession(3_000, 5);
    await store.create(header, entries);
    const manager = await SessionManager.open(store, header.id);
    assert(isLazy(manager), "opened lazily");
    const id = await manager.appendMessage({ role: "user", content: "next", timestamp: 1 });
    await manager.appendLabelChange(entries[10].id, "kept");
    const reloaded = await store.load(header.id);
    const full = new SessionView({ ...reloaded });
    const ids = reloaded.entries.map((entry) => entry.id);
    assertEquals(answers(manager, ids), answers(full, ids));
    assertEquals(manager.getBranch().at(-2)?.id, id);
    await store.close();
  } finally {
    await removeDir(dir);
  }
});

Deno.test("jsonl lazy manager: its own store's rewrites keep its answers; another writer's raise", async () => {
  const dir = await tempDir();
  try {
    const store = await openJsonlFsStore(dir);
    const { header, entries } = generatedSession(6_000, 8); // entries outside the scan window
    const ids = entries.map((entry) => entry.id);
    await store.create(header, entries);
    const expected = answers(new SessionView({ ...(await store.load(header.id)) }), ids);
    // The header rewrite moves every offset: the manager copies the file first.
    const manager = await SessionManager.open(store, header.id);
    await manager.markSessionInternal({ runId: "r", stageId: "s", stageName: "n" });
    const after = answers(manager, ids);
    assertEquals({ ...after, header: expected.header }, expected);
    const replaced = await SessionManager.open(store, header.id);
    await store.replace(header, entries.slice(0, 10));
    assertEquals(answers(replaced, ids).entries, entries);
    // Another store instance (another process, say) rewrites the file under a manager.
    await store.replace(header, entries);
    const other = await openJsonlFsStore(dir);
    const stale = await SessionManager.open(store, header.id);
    stale.buildSessionContext();
    await other.replace({ ...header, cwd: "/a/much/longer/working/directory" }, entries);
    assertThrows(() => stale.getEntries(), SessionStorageError);
    await other.close();
    await store.close();
  } finally {
    await removeDir(dir);
  }
});
