/**
 * Opening a large session in the viewer's worker (web/worker/session_handle.ts): the first
 * context page comes from the SQLite store's context-only load, reading only the context
 * range's rows and never the whole session; the tree, the counts and every other branch
 * arrive with the full load, which runs once, when asked. Counted in store calls and entry
 * rows read, never in time. The worker store channel carries the same capability
 * (`WorkerSessionStore.loadContext`).
 */
import { DatabaseSync } from "node:sqlite";
import { MemorySessionStore, type SessionStore } from "../../core.ts";
import { canLoadContext, projectLoadedContext } from "../../src/context_load.ts";
import { serveSessionStore } from "../../stores/browser/_channel.ts";
import { WorkerSessionStore } from "../../stores/browser/worker_client.ts";
import { SqliteSessionStore } from "../../stores/sqlite/store.ts";
import { OpenedSession } from "../../web/worker/opened_session.ts";
import { SessionHandle } from "../../web/worker/session_handle.ts";
import { assert, assertEquals } from "../conformance/assert.ts";
import { countingJsonReads } from "../sqlite/context_cases.ts";
import { generatedSession } from "../unit/context_sessions.ts";

/** A store that counts its full loads. */
function countingLoads(store: SessionStore): { store: SessionStore; loads: () => number } {
  let loads = 0;
  const counted = new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (key === "load") {
        return (...args: [string]) => (loads++, target.load(...args));
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { store: counted, loads: () => loads };
}

Deno.test("viewer open: the first context page of a large session comes before the full load", async () => {
  const { db, reads } = countingJsonReads(
    new DatabaseSync(":memory:") as unknown as Parameters<typeof countingJsonReads>[0],
  );
  const sqlite = await SqliteSessionStore.open(db);
  try {
    const session = generatedSession(6_000, 12);
    await sqlite.create(session.header, session.entries);
    const { store, loads } = countingLoads(sqlite);
    const id = session.header.id;
    const before = reads();
    const handle = await SessionHandle.open(store, id);
    const first = handle.overview();
    const leaf = session.entries.at(-1)!.id;
    assertEquals([first.pending, first.defaultLeafId, first.rowCount], [true, leaf, 0]);
    const page = await handle.context(leaf, 0, 50);
    const olderPage = await handle.context(leaf, page.total - 10, 50);
    // The context only: no full load, and far fewer rows read than the session has.
    assertEquals(loads(), 0);
    const read = reads() - before;
    assert(read < session.entries.length / 2, `${read} of ${session.entries.length} rows read`);
    assert(page.items.length > 0);
    assertEquals(handle.loaded, undefined);

    // The rest arrives with the full load, started once however many ask.
    const [full] = await Promise.all([handle.full(), handle.full()]);
    assertEquals(loads(), 1);
    const overview = handle.overview();
    assertEquals(overview.pending, undefined);
    assertEquals(overview.entryCount, session.entries.length);
    assert(overview.rowCount > 0 && full.treeRows(leaf, 0, 10).length === 10);
    assertEquals(overview.defaultLeafId, first.defaultLeafId);
    assertEquals([overview.title, overview.cwd, overview.created], [
      first.title,
      first.cwd,
      first.created,
    ]);
    // The first look's pages are exactly the full session's.
    const reference = await OpenedSession.load(sqlite, id);
    assertEquals(page, reference.context(leaf, 0, 50));
    assertEquals(olderPage, reference.context(leaf, page.total - 10, 50));
    assertEquals(await handle.context(leaf, 0, 50), page);
    assertEquals(loads(), 1);
  } finally {
    await sqlite.close();
  }
});

Deno.test("viewer open: another leaf waits for the full load; a store without loadContext loads at once", async () => {
  const sqlite = await SqliteSessionStore.open(new DatabaseSync(":memory:"));
  try {
    const session = generatedSession(3_000, 7);
    await sqlite.create(session.header, session.entries);
    const { store, loads } = countingLoads(sqlite);
    const handle = await SessionHandle.open(store, session.header.id);
    const other = session.entries[10].id;
    const page = await handle.context(other, 0, 20);
    assertEquals(loads(), 1);
    assertEquals(page, (await OpenedSession.load(sqlite, session.header.id)).context(other, 0, 20));

    const memory = new MemorySessionStore();
    await memory.create(session.header, session.entries);
    const counted = countingLoads(memory);
    const opened = await SessionHandle.open(counted.store, session.header.id);
    assertEquals([counted.loads(), opened.overview().pending], [1, undefined]);
  } finally {
    await sqlite.close();
  }
});

Deno.test("worker channel: loadContext crosses the wire when the served store has it", async () => {
  const sqlite = await SqliteSessionStore.open(new DatabaseSync(":memory:"));
  const { port1, port2 } = new MessageChannel();
  serveSessionStore(port2, sqlite);
  const client = await WorkerSessionStore.overPort(port1);
  try {
    const session = generatedSession(3_000, 9);
    await sqlite.create(session.header, session.entries);
    assert(canLoadContext(client), "the client mirrors the capability");
    const id = session.header.id;
    const leaf = session.entries[2_000].id;
    for (const at of [undefined, leaf, null]) {
      const [direct, wire] = [await sqlite.loadContext(id, at), await client.loadContext(id, at)];
      assertEquals(wire, direct);
      assertEquals(projectLoadedContext(wire), projectLoadedContext(direct));
    }
    // A memory store has no context-only load: the client does not pretend to.
    const { port1: p1, port2: p2 } = new MessageChannel();
    serveSessionStore(p2, new MemorySessionStore());
    const plain = await WorkerSessionStore.overPort(p1);
    assertEquals(canLoadContext(plain), false);
    await plain.close();
  } finally {
    await client.close();
  }
});
