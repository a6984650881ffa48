/**
 * `mu` as a new user meets it: repair touches nothing it refuses, sessions are named by
 * file path everywhere, `rm` says where a session goes, `check` separates warnings from
 * defects, and the small words (`--version`, `ls` elsewhere, `migrate` copies, stats
 * numbers, option messages, `npm run --silent mu`) say what is true.
 */
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { SessionManager } from "../../core.ts";
import { openJsonlFsStore } from "../../stores/jsonl/fs.ts";
import { assert, assertEquals } from "../conformance/assert.ts";
import { fixturePath } from "../unit/fixtures.ts";
import { cliTest, type CliWorld, muProcess } from "../cli/harness.ts";

const V4 = fixturePath("codec/v4.jsonl");
const V4_ID = "0b7c3f5e-4d2a-4c61-9e57-1f7a2b3c4d5e";
const REPO = new URL("../../", import.meta.url).pathname;

/** A copy of the v4 fixture as a loose file in the caller's folder. */
async function looseSession(world: CliWorld, name = "pi-file.jsonl"): Promise<string> {
  await Deno.mkdir(join(world.cwd, "loose"), { recursive: true });
  const file = join(world.cwd, "loose", name);
  await writeFile(file, await readFile(V4));
  return file;
}

cliTest("repair leaves a file that is no session byte-identical, with no backup", async (world) => {
  await Deno.mkdir(world.cwd, { recursive: true });
  const notes = join(world.cwd, "notes.txt");
  await writeFile(notes, "hello\nworld");
  const result = await world.mu(["repair", "notes.txt"]);
  assertEquals(result.code, 1);
  assertEquals(await readFile(notes, "utf8"), "hello\nworld");
  assertEquals(await readdir(world.cwd), ["notes.txt"], "no backup written");
  assert(result.stderr.includes("nothing was changed"), result.stderr);
  assertEquals(result.stdout, "");
});

cliTest("repair of an empty file prints one verdict", async (world) => {
  await Deno.mkdir(world.cwd, { recursive: true });
  await writeFile(join(world.cwd, "empty.jsonl"), "");
  const result = await world.mu(["repair", "empty.jsonl"]);
  assertEquals(result.code, 1);
  const verdicts = (result.stdout + result.stderr).split("\n").filter((l) => l.trim() !== "");
  assertEquals(verdicts.length, 1, result.stdout + result.stderr);
  assert(!result.stdout.includes("nothing to repair"), result.stdout);
});

cliTest("export, fork and rm take a JSONL file path, without an import", async (world) => {
  const file = await looseSession(world);
  const html = await world.mu(["export", "loose/pi-file.jsonl", "--html"]);
  assertEquals(html.code, 0, html.stderr);
  assert(html.stdout.includes("<html") && html.stdout.includes("Hello"), "the HTML export");
  const jsonl = await world.mu(["export", file]);
  assertEquals(jsonl.stdout, await readFile(V4, "utf8"));
  const forked = await world.mu(["fork", "loose/pi-file.jsonl", "--json"]);
  assertEquals(forked.code, 0, forked.stderr);
  assertEquals(JSON.parse(forked.stdout).parentSessionId, V4_ID);
  assertEquals((await readdir(join(world.cwd, "loose"))).length, 2, "the fork lives beside it");
  // As a process, so the trash it uses is this test's own.
  const trash = { XDG_DATA_HOME: join(world.root, "data"), PATH: "/nonexistent" };
  const removed = await muProcess(world, ["rm", "loose/pi-file.jsonl", "--yes"], "", trash);
  assertEquals(removed.code, 0, removed.stderr);
  assert(!(await readdir(join(world.cwd, "loose"))).includes("pi-file.jsonl"));
});

cliTest("a folder or a missing path is named as such, not 'Session not found'", async (world) => {
  await looseSession(world);
  for (const command of ["export", "fork", "rm", "show"]) {
    const folder = await world.mu([command, "loose", "--yes"].slice(0, command === "rm" ? 3 : 2));
    assertEquals(folder.code, 1, `${command}: ${folder.stderr}`);
    assert(folder.stderr.includes("is a folder"), `${command}: ${folder.stderr}`);
    const missing = await world.mu([command, "loose/nope.jsonl"]);
    assertEquals(missing.code, 1);
    assert(missing.stderr.includes("no such file"), `${command}: ${missing.stderr}`);
  }
});

cliTest(
  "rm of a JSONL session moves it to the freedesktop trash; where none exists it says permanently",
  async (world) => {
    const file = await looseSession(world);
    const dataHome = join(world.root, "data");
    const noTrashPath = { PATH: "/nonexistent", XDG_DATA_HOME: dataHome };
    const moved = await muProcess(world, ["rm", file], "y\n", noTrashPath);
    assertEquals(moved.code, 0, moved.stderr);
    assert(moved.stderr.includes("Move session") && moved.stdout.includes("to the trash"));
    assertEquals(await readdir(join(dataHome, "Trash", "files")), ["pi-file.jsonl"]);
    const info = await readFile(join(dataHome, "Trash", "info", "pi-file.jsonl.trashinfo"), "utf8");
    assert(info.startsWith("[Trash Info]\nPath=" + file + "\nDeletionDate="), info);
    assertEquals(
      await readFile(join(dataHome, "Trash", "files", "pi-file.jsonl"), "utf8"),
      await readFile(V4, "utf8"),
    );
    // A SQLite session has no trash: the prompt and the output say "permanently".
    assertEquals((await world.mu(["import", V4])).code, 0);
    const declined = await world.mu(["rm", V4_ID]);
    assert(declined.stderr.includes("permanently"), declined.stderr);
    const gone = await world.mu(["rm", V4_ID, "--yes"]);
    assert(gone.stdout.includes("permanently"), gone.stdout);
  },
);

cliTest("mu --version prints the manifests' version", async (world) => {
  const result = await world.mu(["--version"]);
  assertEquals(result.code, 0);
  const deno = JSON.parse(await readFile(join(REPO, "deno.json"), "utf8")).version;
  const npm = JSON.parse(await readFile(join(REPO, "package.json"), "utf8")).version;
  assertEquals(result.stdout, `mu ${deno}\n`);
  assertEquals(npm, deno);
});

cliTest("ls with nothing here says how many sessions are elsewhere", async (world) => {
  assertEquals((await world.mu(["import", V4])).code, 0);
  const here = await world.mu(["ls"]);
  assert(here.stdout.includes("1 in other folders") && here.stdout.includes("--all"), here.stdout);
});

cliTest(
  "migrate says copy, and --to jsonl alone names only flags the user typed",
  async (world) => {
    const help = await world.mu(["migrate", "--help"]);
    assert(help.stdout.includes("Copy") && !help.stdout.includes("Move"), help.stdout);
    const alone = await world.mu(["migrate", world.root, "--to", "jsonl"]);
    assertEquals(alone.code, 2);
    const firstLine = alone.stderr.split("\n")[0];
    assert(firstLine.includes("--to jsonl") && !firstLine.includes("--store"), firstLine);
  },
);

cliTest("the unknown-option message has balanced quotes", async (world) => {
  const result = await world.mu(["ls", "--bogus"]);
  assertEquals(result.code, 2);
  const firstLine = result.stderr.split("\n")[0];
  assert(firstLine.includes("--bogus"), firstLine);
  assertEquals((firstLine.match(/'/g) ?? []).length % 2, 0, firstLine);
  assertEquals((firstLine.match(/"/g) ?? []).length % 2, 0, firstLine);
});

cliTest(
  "stats: thousands separators, assistant turns vs entries, cost without noise",
  async (world) => {
    const dir = join(world.root, "jsonl");
    const store = await openJsonlFsStore(dir);
    const manager = await SessionManager.create(store, world.cwd);
    await manager.appendMessage({ role: "user", content: "hi", timestamp: Date.now() });
    for (const cost of [0.1, 0.2]) {
      await manager.appendMessage({
        role: "assistant",
        content: [{ type: "text", text: "ok" }],
        provider: "p",
        model: "m",
        api: "a",
        usage: {
          input: 600_000,
          output: 1,
          cacheRead: 0,
          cacheWrite: 0,
          totalTokens: 600_001,
          cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: cost },
        },
        stopReason: "stop",
        timestamp: Date.now(),
      } as never);
    }
    await store.close();
    const text = await world.mu(["stats", "--session-dir", dir]);
    assertEquals(text.code, 0, text.stderr);
    assert(text.stdout.includes("1,200,002 tokens"), text.stdout);
    assert(text.stdout.includes("assistant turns"), text.stdout);
    const json = JSON.parse((await world.mu(["stats", "--session-dir", dir, "--json"])).stdout);
    assertEquals(json.usage.cost, 0.3);
    assertEquals(json.byModel["p/m"].cost, 0.3);
  },
);

Deno.test("npm run --silent mu prints no Task line", async () => {
  const child = new Deno.Command("npm", {
    args: ["run", "--silent", "mu", "--", "--version"],
    cwd: REPO,
    env: { NO_COLOR: "" },
    stdout: "piped",
    stderr: "piped",
  });
  const { code, stdout, stderr } = await child.output();
  const text = new TextDecoder();
  assertEquals(code, 0, text.decode(stderr));
  assertEquals(text.decode(stdout), "mu 0.1.0\n");
  assert(!text.decode(stderr).includes("Task"), text.decode(stderr));
});

cliTest("check: an interrupted turn's unanswered tool call is a warning, exit 0", async (world) => {
  const base = (await readFile(V4, "utf8")).trimEnd().split("\n");
  const call = {
    type: "message",
    id: "c1",
    parentId: "b2c3d4e5",
    timestamp: "2026-03-01T10:02:00.000Z",
    message: {
      role: "assistant",
      content: [{ type: "toolCall", id: "call-1", name: "bash", arguments: {} }],
      stopReason: "toolUse",
      timestamp: 1,
    },
  };
  const file = join(world.root, "interrupted.jsonl");
  await writeFile(file, [...base, JSON.stringify(call)].join("\n") + "\n");
  const result = await world.mu(["check", file]);
  assertEquals(result.code, 0, result.stdout);
  assert(/warning\s+unanswered-tool-call/.test(result.stdout), result.stdout);
  assert(result.stdout.includes("0 with defects, 1 with warnings"), result.stdout);
});

cliTest(
  "show and context close the store they open, also when the id is not there",
  async (world) => {
    assertEquals((await world.mu(["import", V4])).code, 0);
    const wal = join(world.agentDir, "sessions.db-wal");
    // SQLite removes the write-ahead log when its last connection closes: a store left open
    // by a command keeps it, and the database locked for whoever comes next.
    const walLeft = () => Deno.stat(wal).then(() => true, () => false);
    assertEquals(await walLeft(), false, "the import closed its store");
    for (const command of ["show", "context"]) {
      for (const operand of [V4_ID.slice(0, 8), "no-such-session"]) {
        const run = await world.mu([command, operand, "--store", "sqlite"]);
        assertEquals(run.code === 0, operand !== "no-such-session", run.stderr);
        assertEquals(await walLeft(), false, `${command} ${operand} left the database open`);
      }
    }
  },
);
