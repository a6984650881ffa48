/**
 * `mu serve` keeps a session open between its entry pages: reading a session page by page
 * through the API opens it once (counted at the store: full loads and lazy opens), answers
 * exactly what the store holds, and opens it again only after it changed (an append by
 * another store instance, as another process would).
 */
import { SessionManager, type SessionStore } from "../../core.ts";
import { importSession } from "../../src/import_rule.ts";
import { serializeSessionJsonl } from "../../src/jsonl.ts";
import { openJsonlFsStore } from "../../stores/jsonl/fs.ts";
import { openSqliteStore } from "../../stores/sqlite/file.ts";
import { HttpSessionStore } from "../../stores/http/store.ts";
import { createSessionApi } from "../../web/api/routes.ts";
import { SessionPages } from "../../web/api/session_pages.ts";
import { assert, assertEquals } from "../conformance/assert.ts";
import { generatedSession } from "../unit/context_sessions.ts";
import { fixtureText } from "../unit/fixtures.ts";
import { removeDir, tempDir } from "../jsonl/subjects.ts";
import { counted } from "./counted_store.ts";

function client(store: SessionStore, entryPageSize: number): HttpSessionStore {
  const api = createSessionApi({ store });
  return new HttpSessionStore({
    baseUrl: "http://127.0.0.1:8787/",
    fetch: async (request) => (await api(request)) ?? new Response(null, { status: 404 }),
    entryPageSize,
  });
}

const kinds: [string, (dir: string) => Promise<SessionStore>][] = [
  ["jsonl", (dir) => openJsonlFsStore(`${dir}/sessions`)],
  ["sqlite", (dir) => openSqliteStore(`${dir}/sessions.db`)],
];

for (const [kind, open] of kinds) {
  Deno.test(`mu serve pages (${kind}): a session read page by page is opened once, reopened after a change`, async () => {
    const dir = await tempDir("mu-serve-pages-");
    const served = await open(dir);
    const other = await open(dir); // another writer, with its own connection / handles
    try {
      const session = generatedSession(60, 7);
      await importSession(served, serializeSessionJsonl(session.header, session.entries));
      const { store, opens } = counted(served);
      const viewer = client(store, 7);
      const id = session.header.id;

      const first = await viewer.load(id);
      assertEquals(first.entries, (await served.load(id)).entries);
      assertEquals(first.header, session.header);
      assertEquals(opens(), 1, "nine pages, one open");
      await viewer.load(id);
      assertEquals(opens(), 1, "an unchanged session is not opened again");

      const manager = await SessionManager.open(other, id);
      const appended = await manager.appendMessage({
        role: "user",
        content: "from another writer",
        timestamp: 1,
      });
      const after = await viewer.load(id);
      assertEquals(after.entries.length, 61);
      assertEquals(after.entries.at(-1)!.id, appended);
      assertEquals(opens(), 2, "the change is seen through the store's change token");
    } finally {
      await other.close();
      await served.close();
      await removeDir(dir);
    }
  });
}

Deno.test("mu serve pages: an older-format session (no lazy open) is loaded once and keeps its source version", async () => {
  const dir = await tempDir("mu-serve-pages-");
  const served = await openJsonlFsStore(dir);
  try {
    await Deno.writeTextFile(`${dir}/old.jsonl`, fixtureText("codec/v3.jsonl"));
    const [row] = await served.list({ includeInternal: true });
    assert(row !== undefined, "the v3 fixture is listed");
    const { store, opens, loads } = counted(served);
    const viewer = client(store, 1);
    const loaded = await viewer.load(row.id);
    const expected = await served.load(row.id);
    assertEquals(loaded.entries, expected.entries);
    assertEquals(loaded.sourceVersion, 3);
    assert(expected.entries.length > 1, "more than one page");
    assertEquals([loads(), opens()], [1, 2], "one declined lazy open, one full load, kept");
    await viewer.load(row.id);
    assertEquals(opens(), 2);
  } finally {
    await served.close();
    await removeDir(dir);
  }
});

Deno.test("mu serve pages: only the most recently read sessions stay open", async () => {
  const dir = await tempDir("mu-serve-pages-");
  const served = await openSqliteStore(`${dir}/sessions.db`);
  try {
    for (const seed of [1, 2, 3]) {
      const { header, entries } = generatedSession(5, seed);
      await importSession(served, serializeSessionJsonl({ ...header, id: `s${seed}` }, entries));
    }
    const pages = new SessionPages(served, 2);
    const read = async (order: string[]) => {
      for (const id of order) assertEquals((await pages.page(id, 0, 10)).total, 5);
    };
    await read(["s1", "s2", "s1", "s2"]);
    assertEquals(pages.opens, 2, "two sessions fit");
    await read(["s3", "s2"]);
    assertEquals(pages.opens, 3, "s3 pushed out s1, the least recently read");
    await read(["s1"]);
    assertEquals(pages.opens, 4);
  } finally {
    await served.close();
    await removeDir(dir);
  }
});
