/**
 * A resume index written by Deno is honoured by Node, and the reverse: both read the same
 * per-user key (`<agentDir>/mu-index.key`) and name a file's identity at the resolution both
 * report (Deno: modification time in milliseconds, change time in seconds). The second open,
 * in the other runtime, streams none of the session's bytes and hashes none again.
 */
import { assert, assertEquals } from "../conformance/assert.ts";
import { removeDir, tempDir } from "../jsonl/subjects.ts";
import { repoRoot, user, v4Header } from "../jsonl/helpers.ts";
import { NodeJsonlFolderFs } from "../../stores/jsonl/fs.ts";
import { JsonlSessionStore } from "../../stores/jsonl/store.ts";
import { RACY_MS } from "../../stores/jsonl/scan/_resume_index.ts";
import type { SessionEntry } from "../../core.ts";

const canRun = Deno.permissions.querySync({ name: "run" }).state === "granted";
const CHILD = `${repoRoot}tests/jsonl/resume_child.ts`;
const BUNDLE = `${repoRoot}dist/resume_child/child.mjs`;

/** About 9.6 MB: over the size below which files get no index. */
function bigEntries(prefix: string): SessionEntry[] {
  const text = "lorem ipsum dolor sit amet ".repeat(1_100);
  const entries: SessionEntry[] = [];
  let parentId: string | null = null;
  for (let i = 0; i < 350; i++) {
    const entry = user(`${prefix}${i}`, parentId, `${i} ${text}`);
    entries.push(entry);
    parentId = entry.id;
  }
  return entries;
}

async function open(runtime: "deno" | "node", dir: string, id: string, agent: string) {
  const env = { PI_CODING_AGENT_DIR: agent };
  const command = runtime === "deno"
    ? new Deno.Command(Deno.execPath(), {
      args: ["run", "--quiet", `--config=${repoRoot}deno.json`, "--allow-read", "--allow-write"]
        .concat(["--allow-env", CHILD, dir, id]),
      env,
    })
    : new Deno.Command(Deno.env.get("NODE_BINARY") ?? "node", { args: [BUNDLE, dir, id], env });
  const output = await command.output();
  const stderr = new TextDecoder().decode(output.stderr);
  assertEquals(output.code, 0, stderr);
  return JSON.parse(new TextDecoder().decode(output.stdout)) as {
    streamed: number;
    ranged: number;
    messages: number;
  };
}

Deno.test({
  name: "jsonl resume index: written by Deno, honoured by Node; written by Node, honoured by Deno",
  ignore: !canRun,
  fn: async () => {
    const built = await new Deno.Command(`${repoRoot}node_modules/.bin/esbuild`, {
      args: [CHILD, "--bundle", "--platform=node", "--format=esm", "--packages=external"]
        .concat(["--target=node20", "--log-level=error", `--outfile=${BUNDLE}`]),
      cwd: repoRoot,
    }).output();
    assertEquals(built.code, 0, new TextDecoder().decode(built.stderr));
    const dir = await tempDir();
    const agent = await tempDir();
    try {
      const store = new JsonlSessionStore(new NodeJsonlFolderFs(dir, { trashCommand: false }));
      for (const id of ["by-deno", "by-node"]) await store.create(v4Header(id), bigEntries(id));
      await store.close();
      await new Promise((resolve) => setTimeout(resolve, RACY_MS + 100));
      for (const [writer, reader] of [["deno", "node"], ["node", "deno"]] as const) {
        const id = `by-${writer}`;
        const first = await open(writer, dir, id, agent);
        assertEquals(first.messages, 350);
        const again = await open(reader, dir, id, agent);
        const what = `${writer}'s index, opened by ${reader}`;
        assertEquals([again.streamed, again.messages], [0, 350], what);
        // The identity matched: the 9.6 MB the index covers were not read to be hashed again.
        assert(again.ranged < 65_536, `${what}: ${again.ranged} bytes read`);
      }
    } finally {
      await removeDir(dir);
      await removeDir(agent);
    }
  },
});
