/**
 * The default sources: the configured store plus the agent's JSONL folders (pi's
 * `<agentDir>/sessions` layout, a settings `sessionDir`) read as one store. Each session is
 * listed once with where it lives, read and written where it lives (an append to a JSONL
 * session lands in its own file), new sessions go to the configured store, a duplicate id
 * is shown from the configured store and the other copy reported, and an explicit store or
 * folder still stands alone.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { loadSessionContext, SessionManager } from "../../core.ts";
import { assert, assertEquals } from "../conformance/assert.ts";
import { removeDir, tempDir } from "../jsonl/subjects.ts";
import { copyFixture } from "../jsonl/helpers.ts";
import type { SkippedSession } from "../../src/store.ts";
import { searchSessions } from "../../src/search.ts";
import { openSessionSources } from "../../stores/default/default_sources.ts";
import type { SourcedSessionInfo } from "../../stores/default/sources.ts";
import { openSqliteStore } from "../../stores/sqlite/file.ts";
import { canonicalDir } from "../../stores/default/trust.ts";
import { fixturePath } from "../unit/fixtures.ts";

const FORMAT4_ID = "66666666-6666-4666-8666-666666666666";
const FORMAT4_FILE = "2026-01-05T10-00-00-000Z_a9703d75e61670054471bf04ee63439c.jsonl";
const V4_ID = "0b7c3f5e-4d2a-4c61-9e57-1f7a2b3c4d5e";

function test(name: string, fn: (root: string) => Promise<void>) {
  Deno.test(`sources: ${name}`, async () => {
    const root = await canonicalDir(await tempDir("mu-sources-"));
    try {
      await fn(root);
    } finally {
      await removeDir(root);
    }
  });
}

/** An agent dir holding pi's folder layout and one session in the default SQLite store. */
async function agentWithBoth(root: string) {
  const agentDir = join(root, "agent");
  await mkdir(join(agentDir, "sessions"), { recursive: true });
  await copyFixture("pi-layout", join(agentDir, "sessions"));
  const sqlite = await openSqliteStore(join(agentDir, "sessions.db"));
  const text = await readFile(fixturePath("codec/v4.jsonl"), "utf8");
  const lines = text.trimEnd().split("\n").map((line) => JSON.parse(line));
  await sqlite.create(lines[0], lines.slice(1));
  await sqlite.close();
  return { agentDir, options: { cwd: root, agentDir, env: { HOME: root } } };
}

test("pi's folder and the configured store list as one, each row saying where", async (root) => {
  const { agentDir, options } = await agentWithBoth(root);
  const { store, sources } = await openSessionSources(options);
  try {
    assertEquals(sources.map((s) => [s.store.kind, s.location]), [
      ["sqlite", join(agentDir, "sessions.db")],
      ["jsonl", join(agentDir, "sessions")],
    ]);
    const skipped: SkippedSession[] = [];
    const rows = await store.list({ onSkipped: (s) => skipped.push(s) }) as SourcedSessionInfo[];
    assertEquals(rows.length, 6, "5 readable pi files + 1 SQLite session");
    const where = new Map(rows.map((row) => [row.id, row.source.location]));
    assertEquals(where.get(V4_ID), join(agentDir, "sessions.db"));
    assertEquals(where.get(FORMAT4_ID), join(agentDir, "sessions"));
    assertEquals(skipped.length, 1, "the torn pi file is reported, as the JSONL store does");
    // Reads and search reach both.
    assertEquals((await store.load(FORMAT4_ID)).header.id, FORMAT4_ID);
    assertEquals((await store.load(V4_ID)).header.id, V4_ID);
    const hits = await searchSessions(store, "flaky");
    assert(hits.some((hit) => hit.sessionId === "11111111-1111-4111-8111-111111111111"));
  } finally {
    await store.close();
  }
});

test("an append goes to the session's own file; a new session to the configured store", async (root) => {
  const { agentDir, options } = await agentWithBoth(root);
  const file = join(agentDir, "sessions", FORMAT4_FILE);
  const before = await readFile(file, "utf8");
  const { store } = await openSessionSources(options);
  try {
    const manager = await SessionManager.open(store, FORMAT4_ID);
    await manager.appendMessage({ role: "user", content: "appended where it lives", timestamp: 1 });
    const after = await readFile(file, "utf8");
    assert(after.startsWith(before), "appended, not rewritten");
    assert(after.slice(before.length).includes("appended where it lives"));
    const created = await SessionManager.create(store, root);
    await created.appendMessage({ role: "user", content: "new", timestamp: 2 });
    const sqlite = await openSqliteStore(join(agentDir, "sessions.db"));
    assert(await sqlite.has(created.getSessionId()), "created in the configured store");
    await sqlite.close();
  } finally {
    await store.close();
  }
});

test("a duplicate id: the configured store's copy is shown, the other reported", async (root) => {
  const { agentDir, options } = await agentWithBoth(root);
  // The same session also as a JSONL file in pi's folder.
  await writeFile(
    join(agentDir, "sessions", "copy.jsonl"),
    await readFile(fixturePath("codec/v4.jsonl")),
  );
  const { store } = await openSessionSources(options);
  try {
    const skipped: SkippedSession[] = [];
    const rows = await store.list({ onSkipped: (s) => skipped.push(s) }) as SourcedSessionInfo[];
    assertEquals(rows.filter((row) => row.id === V4_ID).length, 1);
    assertEquals(rows.find((row) => row.id === V4_ID)!.source.kind, "sqlite");
    const duplicate = skipped.find((s) => s.path.endsWith("copy.jsonl"));
    assert(duplicate, JSON.stringify(skipped.map((s) => s.path)));
    assert(
      duplicate.error.message.includes(join(agentDir, "sessions.db")),
      duplicate.error.message,
    );
    assertEquals((await store.load(V4_ID)).path, undefined, "read from SQLite");
    const hits = await searchSessions(store, "hello");
    assertEquals(hits.filter((hit) => hit.sessionId === V4_ID).length, 1, "one copy's hits");
  } finally {
    await store.close();
  }
});

/** An entry pi appends to its file after `mu migrate` copied the session. */
const APPENDED_LATER = JSON.stringify({
  type: "message",
  id: "c3d4e5f6",
  parentId: "b2c3d4e5",
  timestamp: "2026-03-01T11:00:00.000Z",
  message: { role: "user", content: "written by pi after the migrate", timestamp: 1772362800000 },
});

test("a duplicate id pi wrote on after the copy: its newer file is read and written", async (root) => {
  const { agentDir, options } = await agentWithBoth(root);
  const file = join(agentDir, "sessions", "copy.jsonl");
  await writeFile(
    file,
    await readFile(fixturePath("codec/v4.jsonl"), "utf8") + APPENDED_LATER + "\n",
  );
  const { store } = await openSessionSources(options);
  try {
    const skipped: SkippedSession[] = [];
    const rows = await store.list({ onSkipped: (s) => skipped.push(s) }) as SourcedSessionInfo[];
    const row = rows.find((row) => row.id === V4_ID)!;
    assertEquals([row.source.kind, row.messageCount], ["jsonl", 3]);
    const stale = skipped.find((s) => s.path === V4_ID);
    assert(stale, JSON.stringify(skipped.map((s) => s.path)));
    assert(stale.error.message.includes(join(agentDir, "sessions")), stale.error.message);
    assert(stale.error.message.includes("mu migrate"), stale.error.message);
    // Every read by id goes to the newer copy, not only the listing.
    assertEquals((await store.load(V4_ID)).entries.length, 3);
    assert((await store.exportJsonl!(V4_ID)).includes("written by pi after the migrate"));
    const context = await loadSessionContext(store, V4_ID);
    assertEquals(context.messages.length, 3, "the context an agent resumes with");
    const hits = await searchSessions(store, "migrate");
    assertEquals(hits.map((hit) => hit.sessionId), [V4_ID]);
    // And a write lands in that file, where pi keeps writing.
    const manager = await SessionManager.open(store, V4_ID);
    await manager.appendMessage({
      role: "user",
      content: "and then by mu",
      timestamp: 1772362900000,
    });
    assert((await readFile(file, "utf8")).includes("and then by mu"));
    const sqlite = await openSqliteStore(join(agentDir, "sessions.db"));
    assertEquals((await sqlite.load(V4_ID)).entries.length, 2, "the store's copy untouched");
    await sqlite.close();
  } finally {
    await store.close();
  }
});

test("a settings sessionDir is read too; an explicit folder stands alone", async (root) => {
  const { agentDir, options } = await agentWithBoth(root);
  const elsewhere = join(root, "elsewhere");
  await mkdir(elsewhere);
  await writeFile(join(elsewhere, "s.jsonl"), await readFile(fixturePath("codec/v4.jsonl")));
  await writeFile(
    join(agentDir, "settings.json"),
    JSON.stringify({
      sessionDir: elsewhere,
      sessions: { storage: { type: "sqlite" } },
    }),
  );
  const opened = await openSessionSources(options);
  assertEquals(opened.sources.map((s) => s.location), [
    join(agentDir, "sessions.db"),
    join(agentDir, "sessions"),
    elsewhere,
  ]);
  await opened.store.close();
  const alone = await openSessionSources({ ...options, sessionDir: elsewhere });
  assertEquals(alone.sources.length, 1);
  assertEquals(alone.store.kind, "jsonl");
  await alone.store.close();
});
