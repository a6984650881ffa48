/**
 * The SessionManager factories that take file paths and directories, over real files:
 * forkFrom (source upgraded first), importFromJsonl (id kept, bytes kept, duplicates
 * refused), continueRecent(cwd, dir) and setSessionFile.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import "../../stores/default/mod.ts";
import {
  exportSessionJsonl,
  parseSessionJsonlSync,
  SessionExistsError,
  SessionFormatError,
  SessionManager,
} from "../../core.ts";
import { assert, assertEquals, assertNotEquals, assertRejects } from "../conformance/assert.ts";
import { removeDir, tempDir } from "../jsonl/subjects.ts";
import { fixturePath } from "../unit/fixtures.ts";

function test(name: string, fn: (root: string) => Promise<void>) {
  Deno.test(`manager files: ${name}`, async () => {
    const root = await tempDir("mu-manager-files-");
    try {
      await fn(root);
    } finally {
      await removeDir(root);
    }
  });
}

test("forkFrom upgrades a v1 source before copying it (ids, chain, compaction target)", async (root) => {
  const source = fixturePath("codec/v1.jsonl");
  const before = await readFile(source, "utf8");
  const fork = await SessionManager.forkFrom(source, "/work/fork", join(root, "forks"));
  assertEquals(fork.getHeader().parentSessionId, "v1s");
  assertEquals(fork.getCwd(), "/work/fork");
  assertNotEquals(fork.getSessionId(), "v1s");
  const entries = fork.getEntries();
  assertEquals(entries.length, 5);
  for (const entry of entries) assert(/^[0-9a-f]{8}$/.test(entry.id), `entry id ${entry.id}`);
  assertEquals(entries.map((e) => e.parentId), [null, ...entries.slice(0, -1).map((e) => e.id)]);
  const compaction = entries[3] as { firstKeptEntryId?: string };
  assertEquals(compaction.firstKeptEntryId, entries[2].id);
  assertEquals(fork.getTree().length, 1, "one root: the older readers' unmigrated copy had five");
  assertEquals(await readFile(source, "utf8"), before, "the source file is never touched");
  const reopened = await SessionManager.open(fork.getSessionStore(), fork.getSessionId());
  assertEquals(reopened.getEntries(), entries);
});

test("importFromJsonl keeps the id and the bytes, and refuses a second import", async (root) => {
  const file = fixturePath("codec/unknown-fields.jsonl");
  const dir = join(root, "imported");
  const manager = await SessionManager.importFromJsonl(file, "/p", dir);
  assertEquals(manager.getSessionId(), "uf");
  assertEquals(
    await exportSessionJsonl(manager.getSessionStore(), "uf"),
    await readFile(file, "utf8"),
  );
  await assertRejects(() => SessionManager.importFromJsonl(file, "/p", dir), SessionExistsError);
  const listed = await SessionManager.listAll(dir);
  assertEquals(listed.map((row) => row.id), ["uf"]);
  assertEquals((await SessionManager.open(manager.getSessionStore(), "uf")).getEntries().length, 2);
});

test("continueRecent(cwd, dir) reopens the newest session of that cwd, else creates one", async (root) => {
  const dir = join(root, "sessions");
  const first = await SessionManager.continueRecent("/work/a", dir);
  await first.appendMessage({ role: "user", content: "first", timestamp: 1_000 });
  const other = await SessionManager.create("/work/b", dir);
  await other.appendMessage({ role: "user", content: "other cwd", timestamp: 9_000 });
  const again = await SessionManager.continueRecent("/work/a", dir);
  assertEquals(again.getSessionId(), first.getSessionId());
  assertEquals(again.getEntries().length, 1);
});

test("setSessionFile switches the manager to another file", async (root) => {
  const dir = join(root, "sessions");
  const manager = await SessionManager.create("/work/a", dir);
  await manager.appendMessage({ role: "user", content: "in the first", timestamp: 1 });
  const target = join(root, "elsewhere", "second.jsonl");
  await manager.setSessionFile(target);
  assertEquals(manager.getSessionFile(), target);
  assertEquals(manager.getEntries(), []);
  await manager.appendMessage({ role: "user", content: "in the second", timestamp: 2 });
  const lines = (await readFile(target, "utf8")).trim().split("\n");
  assertEquals(lines.length, 2);
  assertEquals(JSON.parse(lines[1]).message.content, "in the second");
});

test("open(path) of an existing 0-byte file starts a session in it, as for a missing file; the parser still refuses it", async (root) => {
  const path = join(root, "empty.jsonl"); // as a script that runs `mktemp` first leaves it
  await Deno.writeFile(path, new Uint8Array(0));
  const parserError = await assertRejects(
    async () => parseSessionJsonlSync(await Deno.readFile(path)),
    SessionFormatError,
  );
  assertEquals(parserError.reason, "empty source: no session header");
  const manager = await SessionManager.open(path, undefined, "/w");
  assertEquals(manager.getEntries(), []);
  assertEquals(manager.getCwd(), "/w");
  await manager.appendMessage({ role: "user", content: "first", timestamp: 1 });
  const parsed = parseSessionJsonlSync(await Deno.readFile(path));
  assertEquals(parsed.header.id, manager.getSessionId());
  assertEquals(parsed.entries.length, 1);
  // setSessionFile onto another empty file does the same.
  const second = join(root, "second.jsonl");
  await Deno.writeFile(second, new Uint8Array(0));
  await manager.setSessionFile(second);
  assertEquals(manager.getEntries(), []);
  assertEquals(parseSessionJsonlSync(await Deno.readFile(second)).header.cwd, "/w");
});
