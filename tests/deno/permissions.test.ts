/**
 * Sessions hold secrets: whatever the umask, the folders the stores create are 0700 and the
 * files (sessions, lock files, the trust file, the SQLite database) 0600, and a dangling
 * `sessions.db` symlink gets a 0600 target, not SQLite's 0644 (issue 11, finding 9).
 * Runs under umask 000, where anything left to the defaults comes out 0777/0666.
 */
import { readdir, readFile, stat, symlink } from "node:fs/promises";
import { join } from "node:path";
import { assertEquals } from "../conformance/assert.ts";
import { removeDir, tempDir } from "../jsonl/subjects.ts";
import { user, v4Header } from "../jsonl/helpers.ts";
import { NodeJsonlFolderFs, openJsonlFile, openJsonlFsStore } from "../../stores/jsonl/fs.ts";
import { openSqliteStore } from "../../stores/sqlite/file.ts";
import { saveTrustDecision } from "../../stores/default/trust.ts";

const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

function test(name: string, fn: (dir: string) => Promise<void>) {
  Deno.test({
    name: `permissions under umask 000: ${name}`,
    ignore: Deno.build.os === "windows",
    fn: async () => {
      const dir = await tempDir("mu-perm-");
      const previous = Deno.umask(0);
      try {
        await fn(dir);
      } finally {
        Deno.umask(previous);
        await removeDir(dir);
      }
    },
  });
}

test("JSONL session folders are 0700, session and lock files 0600", async (dir) => {
  const root = join(dir, "a", "sessions");
  const store = await openJsonlFsStore(root);
  const { path } = await store.create(v4Header("perm"), [user("p1", null)]);
  assertEquals(await modeOf(join(dir, "a")), 0o700);
  assertEquals(await modeOf(root), 0o700);
  assertEquals(await modeOf(path!), 0o600);
  // The lock file while it is held.
  const fs = new NodeJsonlFolderFs(root);
  const name = (await readdir(root)).find((n) => n.endsWith(".jsonl"))!;
  const release = await fs.lock(name);
  try {
    assertEquals(await modeOf(join(root, `${name}.lock`)), 0o600);
    assertEquals(JSON.parse(await readFile(join(root, `${name}.lock`), "utf8")).pid, Deno.pid);
  } finally {
    await release();
  }
});

test("open(path) creates its folders 0700 and the file 0600", async (dir) => {
  const file = join(dir, "x", "y", "s.jsonl");
  await openJsonlFile(file, { cwd: "/work" });
  assertEquals(await modeOf(join(dir, "x")), 0o700);
  assertEquals(await modeOf(join(dir, "x", "y")), 0o700);
  assertEquals(await modeOf(file), 0o600);
});

test("the trust file's folder is 0700 and the file 0600", async (dir) => {
  const agentDir = join(dir, "home", ".pi", "agent");
  await saveTrustDecision(agentDir, dir, true);
  assertEquals(await modeOf(join(dir, "home")), 0o700);
  assertEquals(await modeOf(agentDir), 0o700);
  assertEquals(await modeOf(join(agentDir, "trust.json")), 0o600);
});

test("a dangling sessions.db symlink gets a 0600 target", async (dir) => {
  const link = join(dir, "sessions.db");
  await symlink(join(dir, "elsewhere.db"), link);
  const store = await openSqliteStore(link);
  try {
    await store.create(v4Header("perm"), [user("p1", null)]);
  } finally {
    await store.close();
  }
  assertEquals(await modeOf(join(dir, "elsewhere.db")), 0o600);
});
