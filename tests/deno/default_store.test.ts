/**
 * Which store a factory without an explicit store gets: explicit store > explicit
 * directory > settings > `<agentDir>/sessions.db`; never memory; and the runtime storage
 * `stores/default/mod.ts` registers for the path-based SessionManager factories.
 */
import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { SessionManager, SessionStorageError } from "../../core.ts";
import { assert, assertEquals, assertRejects } from "../conformance/assert.ts";
import { removeDir, tempDir } from "../jsonl/subjects.ts";
import { chain, copyFixture, v4Header } from "../jsonl/helpers.ts";
import {
  openStorage,
  resolveAgentDir,
  resolveDefaultStore,
  resolveStorageChoice,
} from "../../stores/default/mod.ts";
import { MemorySessionStore } from "../../src/memory_store.ts";
import { canonicalDir } from "../../stores/default/trust.ts";

function test(name: string, fn: (root: string) => Promise<void>) {
  Deno.test(`default store: ${name}`, async () => {
    const root = await canonicalDir(await tempDir("mu-default-"));
    try {
      await fn(root);
    } finally {
      await removeDir(root);
    }
  });
}

test("resolution order: explicit store, explicit directory, settings, default SQLite", async (root) => {
  const agentDir = join(root, "agent");
  const base = { cwd: root, agentDir, home: join(root, "home"), env: {} };
  const explicit = new MemorySessionStore();
  await mkdir(agentDir, { recursive: true });
  await writeFile(
    join(agentDir, "settings.json"),
    '// jsonc\n{ "sessions": { "storage": { "type": "sqlite", "path": "~/elsewhere.db", }, }, }',
  );
  const withAll = { ...base, store: explicit, sessionDir: join(root, "dir") };
  assertEquals((await resolveStorageChoice(withAll)).kind, "store");
  assertEquals(await resolveDefaultStore(withAll), explicit);
  const dirChoice = await resolveStorageChoice({ ...base, sessionDir: "relative-dir" });
  assertEquals([dirChoice.kind, dirChoice.source], ["jsonl", "explicit"]);
  const settings = await resolveStorageChoice(base);
  assertEquals([settings.kind, settings.source], ["sqlite", "global-settings"]);
  assertEquals((settings as { path: string }).path, join(root, "home", "elsewhere.db"));
  await writeFile(join(agentDir, "settings.json"), '{ "sessionDir": "legacy" }');
  assertEquals((await resolveStorageChoice(base) as { dir: string }).dir, join(agentDir, "legacy"));
  await writeFile(join(agentDir, "settings.json"), "{}");
  const fallback = await resolveStorageChoice(base);
  assertEquals([fallback.kind, fallback.source], ["sqlite", "default"]);
  assertEquals((fallback as { path: string }).path, join(agentDir, "sessions.db"));
});

test("the agent directory comes from PI_CODING_AGENT_DIR, else ~/.pi/agent", async (root) => {
  assertEquals(resolveAgentDir({ env: { PI_CODING_AGENT_DIR: join(root, "a") } }), join(root, "a"));
  assertEquals(
    resolveAgentDir({ env: { PI_CODING_AGENT_DIR: "~/x" }, home: root }),
    join(root, "x"),
  );
  assertEquals(resolveAgentDir({ env: {}, home: root }), join(root, ".pi", "agent"));
});

test("a relative PI_CODING_AGENT_DIR is taken from home, never from the current directory", async (root) => {
  const home = join(root, "home");
  const repo = join(root, "repo");
  // A repository shipping agent/settings.json must not choose the storage.
  await mkdir(join(repo, "agent"), { recursive: true });
  await writeFile(join(repo, "agent", "settings.json"), '{ "sessionDir": "/tmp/evil" }');
  const env = { PI_CODING_AGENT_DIR: "agent" };
  assertEquals(resolveAgentDir({ env, home, cwd: repo }), join(home, "agent"));
  const choice = await resolveStorageChoice({ env, home, cwd: repo });
  assertEquals((choice as { path: string }).path, join(home, "agent", "sessions.db"));
});

test("an agent directory inside the current project is reported", async (root) => {
  const home = join(root, "home");
  const repo = join(root, "repo");
  await mkdir(join(repo, ".pi"), { recursive: true });
  await writeFile(join(repo, ".pi", "settings.json"), '{ "sessionDir": "here" }');
  const inside = await resolveStorageChoice({
    env: { PI_CODING_AGENT_DIR: join(repo, ".pi") },
    home,
    cwd: join(repo),
  });
  assertEquals(inside.agentDirInProject, repo);
  const outside = await resolveStorageChoice({ env: {}, home, cwd: repo });
  assertEquals(outside.agentDirInProject, undefined);
  // The home directory is never a project: ~/.pi/agent while working in ~ is not reported.
  await mkdir(home, { recursive: true });
  assertEquals(
    (await resolveStorageChoice({ env: {}, home, cwd: home })).agentDirInProject,
    undefined,
  );
});

test("the default SQLite database opens for real, once per file; broken storage raises", async (root) => {
  const agentDir = join(root, "agent");
  const options = { cwd: root, agentDir, env: {}, home: root };
  const store = await resolveDefaultStore(options);
  try {
    assertEquals(store.kind, "sqlite");
    assert((await stat(join(agentDir, "sessions.db"))).isFile(), "sessions.db created");
    assertEquals(await resolveDefaultStore(options), store, "shared within the process");
    await store.create(v4Header("in-sqlite"), chain("s", 2));
  } finally {
    await store.close();
  }
  const again = await resolveDefaultStore(options);
  try {
    assert(again !== store, "a closed store is not handed out again");
    assertEquals((await again.load("in-sqlite")).entries.length, 2);
  } finally {
    await again.close();
  }
  // A database path that is a directory cannot open: the error surfaces, no memory fallback.
  await mkdir(join(root, "not-a-file.db"));
  await assertRejects(
    () => openStorage({ kind: "sqlite", path: join(root, "not-a-file.db"), source: "default" }),
    SessionStorageError,
  );
  await writeFile(join(agentDir, "settings.json"), "{ broken");
  await assertRejects(() => resolveDefaultStore(options), SessionStorageError, "settings.json");
  await writeFile(join(agentDir, "settings.json"), '{"sessions":{"storage":{"type":"redis"}}}');
  await assertRejects(() => resolveDefaultStore(options), SessionStorageError, '"redis"');
});

test("SessionManager path factories go through the registered file-system storage", async (root) => {
  const dir = join(root, "sessions");
  const created = await SessionManager.create("/work/p", dir);
  await created.appendMessage({ role: "user", content: "hello", timestamp: 1 });
  assertEquals(created.getSessionDir(), dir);
  assertEquals((await SessionManager.list("/work/p", dir)).map((r) => r.id), [
    created.getSessionId(),
  ]);

  // open(path) creates a missing file with a fresh format-4 header, then appends to it.
  const file = join(root, "direct", "mine.jsonl");
  const opened = await SessionManager.open(file, undefined, "/work/q");
  await opened.appendMessage({ role: "user", content: "direct", timestamp: 2 });
  const lines = (await readFile(file, "utf8")).trim().split("\n").map((l) => JSON.parse(l));
  assertEquals([lines[0].type, lines[0].version, lines[0].cwd], ["session", 4, "/work/q"]);
  assertEquals(lines.length, 2);
  const reopened = await SessionManager.open(file);
  assertEquals(reopened.getSessionId(), opened.getSessionId());
  assertEquals(reopened.getEntries().length, 1);

  // With a separate sessionDir, new sessions of that manager go there.
  const other = await SessionManager.open(file, join(root, "new-here"));
  await other.newSession();
  await other.appendMessage({ role: "user", content: "new", timestamp: 3 });
  // (A lock file may outlive the append by a timer turn: only session files count.)
  const files = (await readdir(join(root, "new-here"))).filter((name) => name.endsWith(".jsonl"));
  assertEquals(files.length, 1);
});

test("opening an older pi file by path persists its upgrade in place, then appends", async (root) => {
  await copyFixture("pi-layout", root);
  const file = join(
    root,
    "--home-u-alpha--",
    "2025-01-10T09-00-00-000Z_11111111-1111-4111-8111-111111111111.jsonl",
  );
  const manager = await SessionManager.open(file);
  await manager.appendMessage({ role: "user", content: "after", timestamp: 3 });
  const lines = (await readFile(file, "utf8")).trim().split("\n").map((l) => JSON.parse(l));
  assertEquals(lines[0].version, 4);
  assertEquals(lines[0].createdAt, "2025-01-10T09:00:00.000Z");
  assertEquals(lines.length, 5);
  const all = await SessionManager.listAll(root);
  assertEquals(all.length, 5, "the other fixtures are still listed; the torn one skipped");
});
