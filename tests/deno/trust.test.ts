/**
 * Project trust decides whether a repository's `.pi/settings.json` may choose where
 * sessions are written (spec/pi-security.md). The fixture project points storage at
 * `../redirected-sessions`.
 */
import { mkdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { SessionStorageError } from "../../core.ts";
import { assert, assertEquals, assertRejects } from "../conformance/assert.ts";
import { removeDir, tempDir } from "../jsonl/subjects.ts";
import { copyFixture } from "../jsonl/helpers.ts";
import { resolveDefaultStore, resolveStorageChoice } from "../../stores/default/mod.ts";
import {
  canonicalDir,
  readTrustFile,
  resolveProjectTrust,
  saveTrustDecision,
} from "../../stores/default/trust.ts";
import { MemorySessionStore } from "../../src/memory_store.ts";

interface Case {
  root: string;
  agentDir: string;
  project: string;
  cwd: string;
  options: { cwd: string; agentDir: string; home: string; env: Record<string, string> };
  globalSettings(value: unknown): Promise<void>;
  trust(value: unknown): Promise<void>;
}

async function withCase(fn: (c: Case) => Promise<void>) {
  const root = await canonicalDir(await tempDir("mu-trust-"));
  try {
    const agentDir = join(root, "agent");
    const project = join(root, "repos", "project");
    await mkdir(agentDir, { recursive: true });
    await mkdir(join(root, "repos"), { recursive: true });
    await copyFixture("trust/project", project);
    const cwd = join(project, "src");
    await fn({
      root,
      agentDir,
      project,
      cwd,
      options: { cwd, agentDir, home: join(root, "home"), env: {} },
      globalSettings: (value) => writeFile(join(agentDir, "settings.json"), JSON.stringify(value)),
      trust: (value) => writeFile(join(agentDir, "trust.json"), JSON.stringify(value)),
    });
  } finally {
    await removeDir(root);
  }
}

function test(name: string, fn: (c: Case) => Promise<void>) {
  Deno.test(`trust: ${name}`, () => withCase(fn));
}

const redirected = (c: Case) => join(c.root, "repos", "redirected-sessions");

test("an untrusted project (no decision, default ask) cannot redirect storage", async (c) => {
  const choice = await resolveStorageChoice(c.options);
  assertEquals(choice.kind, "sqlite");
  assertEquals(choice.source, "default");
  assertEquals((choice as { path: string }).path, join(c.agentDir, "sessions.db"));
  assertEquals(choice.trust?.trusted, false);
  assertEquals(choice.ignoredProjectSettings, join(c.project, ".pi", "settings.json"));
  const opened: string[] = [];
  const store = await resolveDefaultStore({
    ...c.options,
    openSqlite: async (path) => (opened.push(path), new MemorySessionStore()),
  });
  assertEquals(store.kind, "memory"); // the injected stand-in for SQLite
  assertEquals(opened, [join(c.agentDir, "sessions.db")]);
  assert(!(await stat(redirected(c)).catch(() => false)), "nothing created where it pointed");
});

test("defaultProjectTrust never ignores project settings; always honours them", async (c) => {
  await c.globalSettings({ defaultProjectTrust: "never" });
  assertEquals((await resolveStorageChoice(c.options)).kind, "sqlite");
  await c.globalSettings({ defaultProjectTrust: "always" });
  const choice = await resolveStorageChoice(c.options);
  assertEquals([choice.kind, choice.source], ["jsonl", "project-settings"]);
  assertEquals((choice as { dir: string }).dir, redirected(c));
  assertEquals(choice.trust?.source, "default");
});

test("a saved decision on a parent path trusts the project; the closest decision wins", async (c) => {
  await c.trust({ [join(c.root, "repos")]: true });
  const trusted = await resolveStorageChoice(c.options);
  assertEquals((trusted as { dir: string }).dir, redirected(c));
  assertEquals(trusted.trust?.savedPath, join(c.root, "repos"));

  await c.trust({ [join(c.root, "repos")]: true, [c.project]: false });
  assertEquals((await resolveStorageChoice(c.options)).kind, "sqlite");

  await c.trust({ [join(c.root, "repos")]: false, [c.cwd]: true, [c.project]: null });
  assertEquals((await resolveStorageChoice(c.options)).kind, "jsonl");
});

test("the one-run override beats saved decisions and the default", async (c) => {
  await c.globalSettings({ defaultProjectTrust: "always" });
  await c.trust({ [c.project]: true });
  assertEquals((await resolveStorageChoice({ ...c.options, approve: false })).kind, "sqlite");
  await c.globalSettings({ defaultProjectTrust: "never" });
  await c.trust({ [c.project]: false });
  const choice = await resolveStorageChoice({ ...c.options, approve: true });
  assertEquals([choice.kind, choice.trust?.source], ["jsonl", "override"]);
});

test("decisions are keyed by canonical path: a symlinked checkout uses the real path's", async (c) => {
  const link = join(c.root, "link-to-project");
  await symlink(c.project, link);
  await c.trust({ [c.project]: true });
  const choice = await resolveStorageChoice({ ...c.options, cwd: join(link, "src") });
  assertEquals((choice as { dir: string }).dir, redirected(c), "relative to the real project");
});

test("global settings choose storage when the project is not trusted", async (c) => {
  await c.globalSettings({ sessions: { storage: { type: "jsonl", dir: "my-jsonl" } } });
  const choice = await resolveStorageChoice(c.options);
  assertEquals([choice.kind, choice.source], ["jsonl", "global-settings"]);
  assertEquals((choice as { dir: string }).dir, join(c.agentDir, "my-jsonl"));
});

test("an unreadable trust file trusts nothing, even with defaultProjectTrust always", async (c) => {
  await c.globalSettings({ defaultProjectTrust: "always" });
  await writeFile(join(c.agentDir, "trust.json"), "{ not json");
  const choice = await resolveStorageChoice(c.options);
  assertEquals([choice.kind, choice.trust?.source], ["sqlite", "unreadable-trust-file"]);
  await assertRejects(() => readTrustFile(c.agentDir), SessionStorageError);
});

test("saveTrustDecision writes pi's flat shape and clears with null", async (c) => {
  await saveTrustDecision(c.agentDir, c.project, true);
  await saveTrustDecision(c.agentDir, c.root, false);
  const text = await readFile(join(c.agentDir, "trust.json"), "utf8");
  assertEquals(JSON.parse(text), { [c.project]: true, [c.root]: false });
  assertEquals((await resolveProjectTrust({ cwd: c.cwd, agentDir: c.agentDir })).trusted, true);
  await saveTrustDecision(c.agentDir, c.project, null);
  assertEquals(await readTrustFile(c.agentDir), { [c.root]: false });
  const decision = await resolveProjectTrust({ cwd: c.cwd, agentDir: c.agentDir });
  assertEquals([decision.trusted, decision.savedPath], [false, c.root]);
});
