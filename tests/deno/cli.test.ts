/**
 * The `mu` command line: each command's output and exit code against a temporary agent
 * directory (default SQLite store) or an explicit JSONL folder; usage errors exit 2.
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
const user = (content: string) => ({ role: "user" as const, content, timestamp: Date.now() });

/** A session with two branches and a label, in a JSONL folder under the world. */
async function branchedSession(world: CliWorld) {
  const dir = join(world.root, "jsonl");
  const store = await openJsonlFsStore(dir);
  const manager = await SessionManager.create(store, world.cwd);
  const first = await manager.appendMessage(user("first question"));
  const abandoned = await manager.appendMessage(user("abandoned idea"));
  await manager.branch(first);
  const kept = await manager.appendMessage(user("better idea"));
  await manager.appendLabelChange(kept, "keep");
  const id = manager.getSessionId();
  await store.close();
  return { dir, id, first, abandoned, kept };
}

cliTest(
  "ls lists the current project's sessions newest first; --all adds the others",
  async (world) => {
    assertEquals((await world.mu(["import", V4])).code, 0);
    const here = await world.mu(["ls"]);
    assertEquals(here.code, 0);
    assert(here.stdout.startsWith("no sessions"), here.stdout);
    const all = await world.mu(["ls", "--all", "--json"]);
    const { sessions } = JSON.parse(all.stdout);
    assertEquals(sessions.map((s: { id: string }) => s.id), [V4_ID]);
    const other = await world.mu(["ls", "--cwd", "/home/dev/project"]);
    assert(other.stdout.includes(V4_ID) && other.stdout.includes("Hello"), other.stdout);
  },
);

cliTest("show prints the tree with branches, labels and the leaf", async (world) => {
  const s = await branchedSession(world);
  const shown = await world.mu(["show", s.id, "--session-dir", s.dir]);
  assertEquals(shown.code, 0, shown.stderr);
  const lines = shown.stdout.split("\n");
  const line = (id: string) => lines.find((l) => l.trimStart().startsWith(id)) ?? "";
  assert(line(s.abandoned).startsWith("  "), "a branch is indented");
  assert(line(s.kept).includes("[keep]"), "label shown");
  const leafLine = lines.find((l) => l.includes("<- leaf")) ?? "";
  assert(leafLine.includes("label_change") || leafLine.includes("label"), leafLine);
});

cliTest("show and context name missing parents", async (world) => {
  const text = (await readFile(V4, "utf8")).replace(
    /"parentId":"a1b2c3d4"/,
    '"parentId":"gone1234"',
  );
  const file = join(world.root, "dangling.jsonl");
  await writeFile(file, text);
  const shown = await world.mu(["show", file]);
  assert(shown.stdout.includes("missing parent id: gone1234"), shown.stdout);
  const context = await world.mu(["context", file]);
  assert(context.stderr.includes("gone1234"), context.stderr);
});

cliTest(
  "context prints the projection; --json is exactly buildSessionProjection; an unknown leaf exits 1",
  async (world) => {
    const readable = await world.mu(["context", V4]);
    assertEquals(readable.code, 0);
    assert(
      readable.stdout.includes("- user") && readable.stdout.includes("Hello"),
      readable.stdout,
    );
    const json = JSON.parse((await world.mu(["context", V4, "--json"])).stdout);
    const parsed = await SessionManager.inMemory("/p");
    assert(parsed !== undefined);
    assertEquals(json.messages.length, 2);
    const unknown = await world.mu(["context", V4, "--leaf", "nope"]);
    assertEquals(unknown.code, 1);
    assert(unknown.stderr.includes("EntryNotFoundError"), unknown.stderr);
  },
);

cliTest(
  "export is byte-identical; --leaf keeps only that branch's lines; -o writes a file",
  async (world) => {
    await world.mu(["import", V4]);
    const exported = await world.mu(["export", V4_ID]);
    assertEquals(exported.stdout, await readFile(V4, "utf8"));
    const s = await branchedSession(world);
    const branch = await world.mu(["export", s.id, "--session-dir", s.dir, "--leaf", s.abandoned]);
    const ids = branch.stdout.trim().split("\n").slice(1).map((l) => JSON.parse(l).id);
    assertEquals(ids, [s.first, s.abandoned]);
    assertEquals((await world.mu(["export", V4_ID, "-o", "out.jsonl"])).code, 0);
    assertEquals(await readFile(join(world.cwd, "out.jsonl"), "utf8"), await readFile(V4, "utf8"));
  },
);

cliTest(
  "import never overwrites a different session and reports each skipped file",
  async (world) => {
    assertEquals((await world.mu(["import", V4])).code, 0);
    const again = await world.mu(["import", V4]);
    assert(again.stdout.includes("already present 1"), again.stdout);
    const different = join(world.root, "different.jsonl");
    await writeFile(different, (await readFile(V4, "utf8")).replace("Hello", "Changed"));
    const clash = await world.mu(["import", different, fixturePath("codec/torn-tail.jsonl")]);
    assertEquals(clash.code, 1);
    assert(clash.stdout.includes("not overwritten"), clash.stdout);
    assert(clash.stdout.includes("torn final record"), clash.stdout);
    assertEquals((await world.mu(["export", V4_ID])).stdout, await readFile(V4, "utf8"));
  },
);

cliTest(
  "import of a longer copy of a stored session appends only the new entries",
  async (world) => {
    await world.mu(["import", V4]);
    const longer = join(world.root, "longer.jsonl");
    const extra = {
      type: "message",
      id: "c3d4e5f6",
      parentId: "b2c3d4e5",
      timestamp: "2026-03-01T10:01:00.000Z",
      message: user("more"),
    };
    await writeFile(longer, (await readFile(V4, "utf8")) + JSON.stringify(extra) + "\n");
    const result = await world.mu(["import", longer]);
    assert(result.stdout.includes("updated 1"), result.stdout);
    assertEquals((await world.mu(["export", V4_ID])).stdout, await readFile(longer, "utf8"));
  },
);

cliTest(
  "check reports each defect kind and exits 1; a clean session exits 0; an interrupted tool call is a warning",
  async (world) => {
    assertEquals((await world.mu(["check", V4])).code, 0);
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
    const cases: Record<string, string> = {
      "duplicate-id": [...base, base[2]].join("\n") + "\n",
      "missing-parent": base.join("\n").replace('"parentId":"a1b2c3d4"', '"parentId":"gone"') +
        "\n",
      "parent-cycle": base.join("\n").replace(
        '"id":"a1b2c3d4","parentId":null',
        '"id":"a1b2c3d4","parentId":"b2c3d4e5"',
      ) + "\n",
      "torn-final-record": base.join("\n") + '\n{"type":"message","id":"x"',
      format: [...base, '{"type":"message","id":"y","parentId":null,"timestamp":"t"}'].join("\n") +
        "\n",
    };
    const dir = join(world.root, "defects");
    await Deno.mkdir(dir);
    for (const [kind, text] of Object.entries(cases)) {
      await writeFile(join(dir, `${kind}.jsonl`), text);
    }
    const result = await world.mu(["check", dir, "--json"]);
    assertEquals(result.code, 1);
    const { sessions } = JSON.parse(result.stdout);
    for (const report of sessions) {
      const expected = report.source.split("/").pop().replace(".jsonl", "");
      assert(
        report.findings.some((f: { kind: string; defect: boolean }) =>
          f.kind === expected && f.defect
        ),
        `${expected}: ${JSON.stringify(report.findings)}`,
      );
    }
    // An interrupted turn's unanswered call: reported as a warning, the check passes.
    await writeFile(
      join(world.root, "interrupted.jsonl"),
      [...base, JSON.stringify(call)].join("\n") + "\n",
    );
    const interrupted = await world.mu(["check", join(world.root, "interrupted.jsonl")]);
    assertEquals(interrupted.code, 0, interrupted.stdout);
    assert(/warning\s+unanswered-tool-call/.test(interrupted.stdout), interrupted.stdout);
    assert(interrupted.stdout.includes("0 with defects, 1 with warnings"), interrupted.stdout);
  },
);

cliTest(
  "repair drops only a torn final record and leaves a backup; other damage exits 1",
  async (world) => {
    const file = join(world.cwd, "torn.jsonl");
    await Deno.mkdir(world.cwd, { recursive: true });
    const whole = await readFile(V4, "utf8");
    await writeFile(file, whole + '{"type":"message","id":"x"');
    const repaired = await world.mu(["repair", "torn.jsonl"]);
    assertEquals(repaired.code, 0, repaired.stderr);
    assert(
      repaired.stdout.includes('dropped 26 bytes: {"type":"message","id":"x"'),
      repaired.stdout,
    );
    assertEquals(await readFile(file, "utf8"), whole);
    assert((await readdir(world.cwd)).some((name) => name.endsWith(".bak")), "backup kept");
    const broken = join(world.cwd, "broken.jsonl");
    await writeFile(broken, whole.replace('"Hello"', "Hello"));
    assertEquals((await world.mu(["repair", "broken.jsonl"])).code, 1);
  },
);

cliTest("rm asks and keeps the session unless answered yes; --yes deletes", async (world) => {
  await world.mu(["import", V4]);
  const kept = await world.mu(["rm", V4_ID], ["n"]);
  assertEquals(kept.code, 1);
  assert(kept.stderr.includes("Delete session"), kept.stderr);
  assertEquals((await world.mu(["export", V4_ID])).code, 0);
  assertEquals((await world.mu(["rm", V4_ID.slice(0, 8), "--yes"])).code, 0);
  assertEquals((await world.mu(["export", V4_ID])).code, 1);
});

cliTest("fork copies every branch into a new session that names its source", async (world) => {
  const s = await branchedSession(world);
  const result = await world.mu(["fork", s.id, "--session-dir", s.dir, "--json"]);
  const { id, parentSessionId } = JSON.parse(result.stdout);
  assertEquals(parentSessionId, s.id);
  const shown = JSON.parse((await world.mu(["show", id, "--session-dir", s.dir, "--json"])).stdout);
  assertEquals(shown.header.parentSessionId, s.id);
  assert(JSON.stringify(shown.tree).includes(s.abandoned), "the abandoned branch came along");
});

cliTest(
  "migrate imports a pi folder, verifying each session; a torn file is reported and left alone; re-running is safe",
  async (world) => {
    const folder = join(world.root, "pi");
    await Deno.mkdir(join(folder, "--home-dev-project--"), { recursive: true });
    await writeFile(join(folder, "--home-dev-project--", "a.jsonl"), await readFile(V4));
    const torn = join(folder, "--home-dev-project--", "b.jsonl");
    await writeFile(torn, await readFile(fixturePath("codec/torn-tail.jsonl")));
    const first = await world.mu(["migrate", folder, "--to", "sqlite"]);
    assertEquals(first.code, 1);
    assert(
      first.stdout.includes("imported 1,") && first.stdout.includes("skipped 1"),
      first.stdout,
    );
    assertEquals(await readFile(torn), await readFile(fixturePath("codec/torn-tail.jsonl")));
    const second = await world.mu(["migrate", folder, "--to", "sqlite"]);
    assert(
      second.stdout.includes("imported 0,") && second.stdout.includes("already present 1"),
      second.stdout,
    );
  },
);

cliTest("stats totals sessions and entries", async (world) => {
  await world.mu(["import", V4, fixturePath("codec/v3.jsonl")]);
  const stats = JSON.parse((await world.mu(["stats", "--json"])).stdout);
  assertEquals(stats.sessions, 2);
  assertEquals(stats.entries, 4);
  assert(Object.keys(stats.byMonth).includes("2026-03"), JSON.stringify(stats.byMonth));
});

cliTest(
  "usage errors exit 2: unknown command, unknown flag, missing value, missing argument",
  async (world) => {
    for (const args of [["nope"], ["ls", "--bogus"], ["context", V4, "--leaf"], ["show"], []]) {
      const result = await world.mu(args);
      assertEquals(result.code, 2, `mu ${args.join(" ")}: ${result.stderr}`);
      assert(result.stderr.includes("usage: mu"), result.stderr);
    }
    const help = await world.mu(["export", "--help"]);
    assertEquals(help.code, 0);
    assert(help.stdout.includes("--leaf ID"), help.stdout);
  },
);

cliTest(
  "as a process: relative paths resolve against the caller's directory; exit codes; no prompt hang at end of input",
  async (world) => {
    await Deno.mkdir(world.cwd, { recursive: true });
    await writeFile(join(world.cwd, "s.jsonl"), await readFile(V4));
    const context = await muProcess(world, ["context", "s.jsonl"]);
    assertEquals(context.code, 0, context.stderr);
    const dir = await muProcess(world, ["context", "."]);
    assertEquals(dir.code, 1, "a directory is not a session: a clear error, not a crash");
    assert(!dir.stderr.includes("    at "), dir.stderr);
    await muProcess(world, ["import", "s.jsonl"]);
    const rm = await muProcess(world, ["rm", V4_ID], "");
    assertEquals(rm.code, 1, "end of input answers no");
    assertEquals((await muProcess(world, ["ls", "--bogus"])).code, 2);
  },
);

cliTest("empty and non-JSON files are refused with the parser's reasons", async (world) => {
  await Deno.mkdir(world.cwd, { recursive: true });
  await writeFile(join(world.cwd, "empty.jsonl"), new Uint8Array(0));
  await writeFile(join(world.cwd, "text.jsonl"), "not json");
  const empty = await world.mu(["context", "empty.jsonl"]);
  assertEquals(empty.code, 1);
  assert(empty.stderr.includes("empty source: no session header"), empty.stderr);
  const text = await world.mu(["context", "text.jsonl"]);
  assertEquals(text.code, 1);
  assert(text.stderr.includes("invalid JSON") && !text.stderr.includes("torn"), text.stderr);
});

cliTest(
  "--approve trusts this project's storage settings for one run; without it they are ignored",
  async (world) => {
    await Deno.mkdir(join(world.cwd, ".pi"), { recursive: true });
    await writeFile(
      join(world.cwd, ".pi", "settings.json"),
      JSON.stringify({ sessions: { storage: { type: "jsonl", dir: "./project-sessions" } } }),
    );
    assertEquals((await world.mu(["import", V4, "--approve"])).code, 0);
    const files = await readdir(join(world.cwd, "project-sessions"));
    assertEquals(files.filter((name) => name.endsWith(".jsonl")).length, 1);
    const untrusted = JSON.parse(
      (await world.mu(["ls", "--all", "--json", "--no-approve"])).stdout,
    );
    assertEquals(untrusted.sessions, [], "without trust the default SQLite store is used");
    assertEquals((await world.mu(["ls", "--approve", "--no-approve"])).code, 2);
  },
);
