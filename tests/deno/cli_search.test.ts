/**
 * `mu search`: hits as `session  entry  role  snippet` from the default SQLite store (its
 * index) and from a JSONL folder (the scan); roles and cwd filter; bad flags exit 2.
 */
import { join } from "node:path";
import { SessionManager } from "../../core.ts";
import { openJsonlFsStore } from "../../stores/jsonl/fs.ts";
import { assert, assertEquals } from "../conformance/assert.ts";
import { fixturePath } from "../unit/fixtures.ts";
import { cliTest } from "../cli/harness.ts";

const V4 = fixturePath("codec/v4.jsonl");
const V4_ID = "0b7c3f5e-4d2a-4c61-9e57-1f7a2b3c4d5e";

cliTest(
  "search prints hits from the default store; --json gives ranges; --cwd filters",
  async (world) => {
    assertEquals((await world.mu(["import", V4])).code, 0);
    const found = await world.mu(["search", "hel"]);
    assertEquals(found.code, 0, found.stderr);
    const [head, row] = found.stdout.split("\n");
    assertEquals(head.split(/\s+/), ["session", "entry", "role", "snippet"]);
    assertEquals(row.split(/\s+/).slice(0, 4), [V4_ID, "a1b2c3d4", "user", "Hello"]);
    const json = JSON.parse((await world.mu(["search", "hello", "--json"])).stdout);
    assertEquals(json.hits[0].ranges, [[0, 5]]);
    assertEquals((await world.mu(["search", "hello", "--cwd", world.cwd])).stdout, "no hits\n");
    assertEquals((await world.mu(["search", "hello", "--role", "assistant"])).stdout, "no hits\n");
  },
);

cliTest("search scans a JSONL folder; several operands are one query", async (world) => {
  const dir = join(world.root, "jsonl");
  const store = await openJsonlFsStore(dir);
  const manager = await SessionManager.create(store, world.cwd);
  const id = await manager.appendMessage({
    role: "user",
    content: "fix the flaky bug",
    timestamp: 0,
  });
  await store.close();
  const result = await world.mu([
    "search",
    "flaky",
    "bug",
    "--session-dir",
    dir,
    "--role",
    "user,assistant",
  ]);
  assertEquals(result.code, 0, result.stderr);
  assert(result.stdout.includes(`${id}  user  fix the flaky bug`), result.stdout);
  assertEquals((await world.mu(["search", "--session-dir", dir, "--", "-flaky"])).code, 1);
});

cliTest("search rejects an unknown role and a bad limit as usage errors", async (world) => {
  assertEquals((await world.mu(["search", "x", "--role", "robot"])).code, 2);
  assertEquals((await world.mu(["search", "x", "--limit", "0"])).code, 2);
  assertEquals((await world.mu(["search"])).code, 2);
});
