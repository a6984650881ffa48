/**
 * Every command's `--help` lists the shared flags it honours and no other: each command is
 * run once as a user would, and the shared settings it read (the storage flags, `--json`)
 * must be the ones its help lists; a shared flag it does not list is refused as unknown
 * rather than accepted and ignored.
 */
import process from "node:process";
import { copyFile, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { assert, assertEquals } from "../conformance/assert.ts";
import { type Command, type Invocation, parseInvocation } from "../../cli/args.ts";
import type { CliContext } from "../../cli/context.ts";
import { COMMANDS } from "../../cli/main.ts";
import { cliTest, type CliWorld } from "../cli/harness.ts";
import { fixturePath } from "../unit/fixtures.ts";

const V4_ID = "0b7c3f5e-4d2a-4c61-9e57-1f7a2b3c4d5e";
const FLAKY_ID = "11111111-1111-4111-8111-111111111111";
const FLAKY_FILE = `pi-layout/--home-u-alpha--/2025-01-10T09-00-00-000Z_${FLAKY_ID}.jsonl`;

/** The shared flags by what a command reads to honour them. */
const SHARED: Record<string, { flags: string[]; reads: (keyof Invocation)[] }> = {
  storage: {
    flags: ["--store", "--session-dir", "--approve", "--no-approve"],
    reads: ["store", "sessionDir", "approve"],
  },
  json: { flags: ["--json"], reads: ["json"] },
};

/** A command line that runs `command` to its end in `world` (set up by the test). */
function argumentsOf(command: string, world: CliWorld, root: string): string[] {
  const cases: Record<string, string[]> = {
    ls: ["--all"],
    search: ["hello"],
    show: [V4_ID],
    context: [V4_ID],
    import: [fixturePath("codec/v4.jsonl")],
    export: [V4_ID],
    fork: [V4_ID],
    rm: [FLAKY_ID, "--yes"],
    check: [V4_ID],
    repair: [join(world.cwd, "torn.jsonl")],
    migrate: [join(root, "pi")],
    stats: [],
    serve: ["--port", "0", "--root", join(root, "viewer")],
    sync: ["--to", join(root, "backup")],
  };
  const args = cases[command];
  if (!args) throw new Error(`no command line for mu ${command}: add one here`);
  return args;
}

/** Run `command` with `args`; returns the shared groups whose settings it read. */
async function groupsRead(command: Command, args: string[], world: CliWorld): Promise<string[]> {
  const read = new Set<string>();
  const invocation = new Proxy(parseInvocation(command, args), {
    get(target, key, receiver) {
      if (typeof key === "string") read.add(key);
      return Reflect.get(target, key, receiver);
    },
  });
  let out = "";
  const context: CliContext = {
    out: (text) => void (out += text),
    err: () => {},
    cwd: world.cwd,
    env: { PI_CODING_AGENT_DIR: world.agentDir, HOME: world.root },
    stderrIsTTY: false,
    ask: () => Promise.resolve(""),
  };
  const running = command.run(invocation, context);
  if (command.name === "serve") {
    // It serves until a signal; send it one once it says where it serves.
    while (!out.includes("mu serve:")) await new Promise((resolve) => setTimeout(resolve, 20));
    process.emit("SIGINT");
    process.emit("SIGTERM");
  }
  assertEquals(await running, 0, `mu ${command.name} ${args.join(" ")}: ${out}`);
  return Object.entries(SHARED)
    .filter(([, { reads }]) => reads.some((key) => read.has(key)))
    .map(([group]) => group);
}

cliTest("each command's help lists the shared flags it honours, and only those", async (world) => {
  const root = world.root;
  const imported = await world.mu([
    "import",
    fixturePath("codec/v4.jsonl"),
    fixturePath(FLAKY_FILE),
  ]);
  assertEquals(imported.code, 0, imported.stdout);
  await mkdir(world.cwd, { recursive: true });
  await copyFile(fixturePath("codec/torn-tail.jsonl"), join(world.cwd, "torn.jsonl"));
  await mkdir(join(root, "pi"));
  await copyFile(fixturePath("codec/v4.jsonl"), join(root, "pi", "s.jsonl"));
  await mkdir(join(root, "viewer"));
  await writeFile(join(root, "viewer", "index.html"), "<!doctype html>");
  for (const command of COMMANDS) {
    const help = (await world.mu([command.name, "--help"])).stdout;
    const listed = Object.keys(SHARED).filter((group) =>
      SHARED[group].flags.every((flag) => help.includes(`  ${flag}`))
    );
    const read = await groupsRead(command, argumentsOf(command.name, world, root), world);
    assertEquals(listed, read, `mu ${command.name}: help lists ${listed}, it reads ${read}`);
    for (const group of Object.keys(SHARED).filter((group) => !read.includes(group))) {
      for (const flag of SHARED[group].flags) {
        assert(!help.includes(`  ${flag}`), `mu ${command.name} --help lists ${flag}`);
        const refused = await world.mu([
          command.name,
          flag,
          ...(flag === "--store" ? ["sqlite"] : []),
        ]);
        assertEquals(refused.code, 2, `mu ${command.name} ${flag}: ${refused.stderr}`);
        assert(refused.stderr.includes(`unknown option ${flag}`), refused.stderr);
      }
    }
    // The command's own flags are listed too.
    for (const flag of Object.keys(command.flags)) assert(help.includes(`--${flag}`), flag);
  }
});
