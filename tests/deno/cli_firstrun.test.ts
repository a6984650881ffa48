/**
 * A pi user's first run: with pi's folder layout in the agent directory (and nothing
 * imported), `mu ls`, `mu search`, `mu stats` and `mu export` show those sessions beside the
 * configured store's, saying where each lives; `--store sqlite` still selects one store.
 */
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { assert, assertEquals } from "../conformance/assert.ts";
import { copyFixture } from "../jsonl/helpers.ts";
import { cliTest, type CliWorld } from "../cli/harness.ts";
import { fixturePath } from "../unit/fixtures.ts";

const FLAKY_ID = "11111111-1111-4111-8111-111111111111";

async function piLayout(world: CliWorld): Promise<string> {
  const sessions = join(world.agentDir, "sessions");
  await mkdir(sessions, { recursive: true });
  await copyFixture("pi-layout", sessions);
  return sessions;
}

cliTest("ls, search, stats and export read pi's session folder with no import", async (world) => {
  const sessions = await piLayout(world);
  assertEquals((await world.mu(["import", fixturePath("codec/v4.jsonl")])).code, 0);
  const listed = await world.mu(["ls", "--all", "--json"]);
  assertEquals(listed.code, 0, listed.stderr);
  const rows = JSON.parse(listed.stdout).sessions as {
    id: string;
    path: string;
    source: { kind: string; location: string };
  }[];
  assertEquals(rows.length, 6, listed.stdout);
  const flaky = rows.find((row) => row.id === FLAKY_ID)!;
  assertEquals(flaky.source.location, sessions);
  assert(flaky.path.startsWith(join(sessions, "--home-u-alpha--")), flaky.path);
  const table = await world.mu(["ls", "--all"]);
  assert(table.stdout.split("\n")[0].includes("where"), table.stdout);
  assert(table.stdout.includes(join(world.agentDir, "sessions.db")), table.stdout);

  const found = await world.mu(["search", "flaky", "--json"]);
  assert(found.stdout.includes(FLAKY_ID), found.stdout);
  const stats = await world.mu(["stats", "--json"]);
  assertEquals(JSON.parse(stats.stdout).sessions, 6);
  const exported = await world.mu(["export", FLAKY_ID.slice(0, 8)]);
  assertEquals(exported.code, 0, exported.stderr);
  assert(exported.stdout.includes("Flaky test"));

  // One store alone when asked: only the SQLite session.
  const alone = await world.mu(["ls", "--all", "--json", "--store", "sqlite"]);
  assertEquals(JSON.parse(alone.stdout).sessions.length, 1);
  // Nothing was copied: pi's files are as they were.
  assertEquals(
    await readFile(
      join(sessions, "--home-u-alpha--", `2025-01-10T09-00-00-000Z_${FLAKY_ID}.jsonl`),
    ),
    await readFile(
      fixturePath(`pi-layout/--home-u-alpha--/2025-01-10T09-00-00-000Z_${FLAKY_ID}.jsonl`),
    ),
  );
});
