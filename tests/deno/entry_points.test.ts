/**
 * The entry points as a fresh script sees them: each case runs a child `deno run` of a tiny
 * script that imports a single entry, so no other test's import has registered storage.
 * `@mu/sessions` alone makes `SessionManager.create(cwd, dir)` (JSONL in `dir`) and
 * `SessionManager.create(cwd)` (the default SQLite store under `$PI_CODING_AGENT_DIR`) work;
 * `@mu/sessions/core` alone rejects them with a typed error naming the import that does.
 */
import { join } from "node:path";
import { assert, assertEquals } from "../conformance/assert.ts";
import { removeDir, tempDir } from "../jsonl/subjects.ts";

const here = new URL("./entry/", import.meta.url).pathname;

async function runChild(script: string, root: string, args: string[]): Promise<unknown> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      "--allow-ffi",
      `${here}${script}`,
      ...args,
    ],
    cwd: root,
    env: { PI_CODING_AGENT_DIR: join(root, "agent"), HOME: join(root, "home") },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  assert(output.success, `${script} failed:\n${stderr}`);
  return JSON.parse(new TextDecoder().decode(output.stdout));
}

function withRoot(name: string, fn: (root: string) => Promise<void>) {
  Deno.test(`entry points: ${name}`, async () => {
    const root = await tempDir("mu-entry-");
    try {
      await fn(root);
    } finally {
      await removeDir(root);
    }
  });
}

withRoot(
  "@mu/sessions alone: create(cwd, dir) writes JSONL, create(cwd) the default SQLite store",
  async (root) => {
    const cwd = join(root, "project");
    const dir = join(root, "sessions");
    await Deno.mkdir(cwd);
    const seen = await runChild("main_only.ts", root, [cwd, dir]) as Record<string, unknown>;
    assert(String(seen.dirFile).startsWith(`${dir}/`) && String(seen.dirFile).endsWith(".jsonl"));
    assertEquals(seen.dirEntries, 1);
    assertEquals(seen.dirListed, [seen.dirId]);
    assertEquals(seen.defaultKind, "sqlite");
    assertEquals(seen.defaultListed, [seen.defaultId]);
    assert(
      (await Deno.stat(join(root, "agent", "sessions.db"))).isFile,
      "sessions.db in the agent dir",
    );
  },
);

withRoot(
  "@mu/sessions/core alone: path factories reject, naming the entry that registers storage",
  async (root) => {
    const seen = await runChild("core_only.ts", root, [root, join(root, "sessions")]) as {
      name: string;
      message: string;
    };
    assertEquals(seen.name, "SessionStorageError");
    const named = [...seen.message.matchAll(/"(@mu\/sessions[^"]*)"/g)].map((m) => m[1]);
    assertEquals(named[0], "@mu/sessions", seen.message);
    const config = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));
    assertEquals(config.name, "@mu/sessions");
    assertEquals(
      config.exports["."],
      "./mod.ts",
      "the named import resolves to the entry tested above",
    );
  },
);
