/**
 * `mu` as the README's pi user meets it after `mu migrate`: every session then has two
 * copies (pi keeps its files), and `ls`, `rm`, `check` and the usage messages must still say
 * what is true in a few lines: a file named once, copies counted rather than listed one line
 * each, a database row never blamed on a missing trash, the torn-file advice naming the
 * command that repairs it.
 */
import { appendFile, mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";
import { assert, assertEquals } from "../conformance/assert.ts";
import { copyFixture } from "../jsonl/helpers.ts";
import { cliTest, type CliWorld } from "../cli/harness.ts";

const FLAKY_ID = "11111111-1111-4111-8111-111111111111";
const TORN = "--home-u-gamma--/2025-02-02T02-00-00-000Z_55555555-5555-4555-8555-555555555555.jsonl";
/** The sessions of fixtures/pi-layout that migrate (one file there is torn on purpose). */
const MIGRATED = 5;

/** pi's folder in the agent directory, migrated into the default SQLite store. */
async function migrated(world: CliWorld): Promise<string> {
  const sessions = join(world.agentDir, "sessions");
  await mkdir(sessions, { recursive: true });
  await copyFixture("pi-layout", sessions);
  const migrate = await world.mu(["migrate", sessions]);
  assertEquals(migrate.code, 1, "the torn file is not copied: " + migrate.stdout);
  return sessions;
}

cliTest(
  "ls after migrate counts the second copies in one line and names a torn file once",
  async (world) => {
    const sessions = await migrated(world);
    const listed = await world.mu(["ls", "--all"]);
    assertEquals(listed.code, 0, listed.stderr);
    const lines = listed.stderr.trimEnd().split("\n");
    assertEquals(lines.length, 2, listed.stderr);
    const torn = join(sessions, TORN);
    assertEquals(lines[0].split(torn).length, 2, `the path once: ${lines[0]}`);
    assert(lines[0].includes("mu repair"), lines[0]);
    assert(
      lines[1].startsWith(`${MIGRATED} sessions of pi sessions folder (${sessions})`),
      lines[1],
    );
    assert(lines[1].includes(`mu migrate ${sessions}`), lines[1]);
    // --json still names each skipped file, the path once.
    const json = JSON.parse((await world.mu(["ls", "--all", "--json"])).stdout);
    assertEquals(json.skipped.length, MIGRATED + 1);
    for (const line of json.skipped as string[]) {
      const path = line.slice(0, line.indexOf(": "));
      assert(path.startsWith(sessions) && !line.slice(path.length).includes(path), line);
    }
  },
);

cliTest(
  "after migrate, what pi writes on shows: show, export and ls read the newer file",
  async (world) => {
    const sessions = await migrated(world);
    const file = join(sessions, "--home-u-alpha--", `2025-01-10T09-00-00-000Z_${FLAKY_ID}.jsonl`);
    await appendFile(
      file,
      JSON.stringify({
        type: "message",
        id: "a0000004",
        parentId: "a0000003",
        timestamp: "2025-01-10T10:00:00.000Z",
        message: {
          role: "user",
          content: "one more thing after the migrate",
          timestamp: 1736503200000,
        },
      }) + "\n",
    );
    const shown = await world.mu(["show", FLAKY_ID]);
    assertEquals(shown.code, 0, shown.stderr);
    assert(shown.stdout.includes("one more thing after the migrate"), shown.stdout);
    const exported = await world.mu(["export", FLAKY_ID]);
    assert(exported.stdout.includes("one more thing after the migrate"), exported.stdout);
    const listed = await world.mu(["ls", "--all"]);
    const store = join(world.agentDir, "sessions.db");
    const newer = listed.stderr.split("\n").find((line) =>
      line.startsWith("1 session of default store")
    );
    assert(
      newer?.includes(`also in pi sessions folder (${sessions}), whose newer copies are shown`),
      listed.stderr,
    );
    assert(newer?.includes(`mu migrate ${sessions}`), listed.stderr);
    assert(listed.stderr.includes(`${MIGRATED - 1} sessions of pi sessions folder`), listed.stderr);
    // The advised migrate brings the store's copy up to date; then it is shown again.
    await world.mu(["migrate", sessions]);
    const after = await world.mu(["ls", "--all", "--json"]);
    const row = JSON.parse(after.stdout).sessions.find((row: { id: string }) =>
      row.id === FLAKY_ID
    );
    assertEquals([row.source.location, row.messageCount], [store, 3]);
  },
);

cliTest("rm of a migrated session blames no trash and says the pi copy remains", async (world) => {
  const sessions = await migrated(world);
  const declined = await world.mu(["rm", FLAKY_ID]);
  assertEquals(declined.code, 1);
  assert(declined.stderr.includes("permanently"), declined.stderr);
  assert(!declined.stderr.includes("system has no trash"), declined.stderr);
  assert(declined.stderr.includes(join(world.agentDir, "sessions.db")), declined.stderr);
  const gone = await world.mu(["rm", FLAKY_ID, "--yes"]);
  assertEquals(gone.code, 0, gone.stderr);
  assertEquals(gone.stdout, `deleted ${FLAKY_ID} permanently\n`);
  assert(gone.stderr.includes(`remains in pi sessions folder (${sessions})`), gone.stderr);
  const listed = JSON.parse((await world.mu(["ls", "--all", "--json"])).stdout);
  const row = listed.sessions.find((info: { id: string }) => info.id === FLAKY_ID);
  assertEquals(row?.source.location, sessions, "the pi copy is what lists now");
});

cliTest("check and migrate count in words: 1 entry, +1 entry", async (world) => {
  const sessions = await migrated(world);
  const beta = join(sessions, "--home-u-beta--");
  const checked = await world.mu(["check", beta]);
  assert(checked.stdout.includes("(1 entry)"), checked.stdout);
  assert(checked.stdout.includes("(2 entries)"), checked.stdout);
  // pi appends to its file after the copy; migrating again brings the entry in.
  const [file] = (await readdir(join(sessions, "--home-u-alpha--"))).filter((name) =>
    name.includes(FLAKY_ID)
  );
  await appendFile(
    join(sessions, "--home-u-alpha--", file),
    JSON.stringify({
      type: "message",
      id: "a0000004",
      parentId: "a0000003",
      timestamp: "2025-01-11T09:00:00.000Z",
      message: { role: "user", content: "later", timestamp: 1736586000000 },
    }) + "\n",
  );
  const again = await world.mu(["migrate", sessions]);
  assert(again.stdout.includes(`updated ${FLAKY_ID} (+1 entry)\n`), again.stdout);
  const torn = await world.mu(["check", join(sessions, TORN)]);
  assert(torn.stdout.includes("mu repair <file> drops it"), torn.stdout);
});

cliTest("an unknown option of a command without arguments gets no `--` hint", async (world) => {
  const ls = await world.mu(["ls", "--bogus"]);
  assertEquals(ls.code, 2);
  assert(ls.stderr.startsWith("mu ls: unknown option --bogus\n"), ls.stderr);
  // Where arguments are taken, "-draft" may be one: the hint stays.
  const search = await world.mu(["search", "-draft"]);
  assertEquals(search.code, 2);
  assert(search.stderr.includes('goes after "--"'), search.stderr);
});

cliTest(
  "ls with no session anywhere says where it looked and which folder is missing",
  async (world) => {
    const listed = await world.mu(["ls", "--all"]);
    assertEquals(listed.code, 0, listed.stderr);
    assertEquals(
      listed.stdout,
      "no sessions\n" +
        `  looked in: ${join(world.agentDir, "sessions.db")}  (default store)\n` +
        `  not found: ${join(world.agentDir, "sessions")}  (pi sessions folder)\n`,
    );
  },
);

cliTest("mu help <command> prints that command's help", async (world) => {
  const asked = await world.mu(["help", "migrate"]);
  assertEquals(asked.code, 0);
  assertEquals(asked.stdout, (await world.mu(["migrate", "--help"])).stdout);
  assert(asked.stdout.startsWith("usage: mu migrate <jsonl-folder>"), asked.stdout);
});
