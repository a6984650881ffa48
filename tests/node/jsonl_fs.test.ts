/**
 * The JSONL stores under Node 20: the conformance suite over the file system and over the
 * File System Access fake (no Web Locks in Node: the in-page lock is used), plus the
 * storage resolution and trust rules.
 */
import { test } from "node:test";
import { appendFile, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { conformance } from "../conformance/mod.ts";
import { assertEquals, assertRejects } from "../conformance/assert.ts";
import { jsonlFsaFakeSubject, jsonlFsSubject, removeDir, tempDir } from "../jsonl/subjects.ts";
import { chain, copyFixture, v4Header } from "../jsonl/helpers.ts";
import { NodeJsonlFolderFs, openJsonlFsStore, TornTailError } from "../../stores/jsonl/fs.ts";
import { resolveDefaultStore, resolveStorageChoice } from "../../stores/default/mod.ts";
import { canonicalDir } from "../../stores/default/trust.ts";
import { SessionManager } from "../../core.ts";

conformance((name, fn) => test(name, fn), jsonlFsSubject("jsonl (node fs)"));
conformance((name, fn) => test(name, fn), jsonlFsaFakeSubject("jsonl (fsa fake, node)"));

test("jsonl (node fs): torn tail refused, pi layout listed", async () => {
  const dir = await tempDir();
  try {
    await copyFixture("pi-layout", dir);
    const store = await openJsonlFsStore(dir);
    const skipped: string[] = [];
    const rows = await store.list({ onSkipped: (s) => skipped.push(s.path) });
    assertEquals(rows.length, 5);
    assertEquals(skipped.length, 1);
    const { path } = await store.create(v4Header("node-torn"), chain("n", 1));
    await appendFile(path!, '{"type":"mess');
    await assertRejects(() => store.append("node-torn", chain("m", 1)), TornTailError);
  } finally {
    await removeDir(dir);
  }
});

test("default store (node): trust gates project settings; the default SQLite opens on Node 20", async () => {
  const root = await canonicalDir(await tempDir("mu-node-trust-"));
  try {
    const agentDir = join(root, "agent");
    const project = join(root, "project");
    await mkdir(agentDir, { recursive: true });
    await copyFixture("trust/project", project);
    const options = { cwd: project, agentDir, env: {}, home: join(root, "home") };
    assertEquals((await resolveStorageChoice(options)).kind, "sqlite");
    await writeFile(join(agentDir, "trust.json"), JSON.stringify({ [root]: true }));
    const trusted = await resolveStorageChoice(options);
    assertEquals((trusted as { dir: string }).dir, join(root, "redirected-sessions"));
    assertEquals((await resolveStorageChoice({ ...options, approve: false })).kind, "sqlite");

    const store = await resolveDefaultStore({ ...options, approve: false });
    try {
      assertEquals(store.kind, "sqlite");
      await store.create(v4Header("node-sqlite"), chain("q", 1));
      assertEquals((await store.load("node-sqlite")).entries.length, 1);
    } finally {
      await store.close();
    }
    const manager = await SessionManager.create("/work/node", join(root, "jsonl"));
    await manager.appendMessage({ role: "user", content: "from node", timestamp: 1 });
    assertEquals((await SessionManager.list("/work/node", join(root, "jsonl"))).length, 1);
  } finally {
    await removeDir(root);
  }
});

test("jsonl (node fs): stat mtimes are whole ms, as in Deno, so both share the listing cache", async () => {
  const dir = await tempDir();
  try {
    const store = await openJsonlFsStore(dir);
    const { path } = await store.create(v4Header("node-mtime"), chain("m", 2));
    const fs = new NodeJsonlFolderFs(dir);
    const stat = await fs.stat(path!.split("/").pop()!);
    assertEquals(Number.isInteger(stat!.mtimeMs), true);
  } finally {
    await removeDir(dir);
  }
});
