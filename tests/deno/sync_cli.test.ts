/**
 * `mu sync` as users run it: real `mu` processes, one agent folder per "machine" (one with
 * the default SQLite store, one with JSONL storage), and a real PostgreSQL cluster this file
 * starts. Covers the union after `--both` from each machine, byte-identical exports, the
 * machine column of `mu ls --store postgres`, conflicts (exit 1, nothing changed), the
 * saved cursor (a rerun reads nothing; a torn one is never trusted), the trust rule and
 * masked credentials. `--watch` is in sync_watch.test.ts.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { loadSessionProjection } from "../../core.ts";
import type { SessionEntry } from "../../schema.ts";
import type { SessionStore } from "../../src/store.ts";
import { openPostgresStore } from "../../stores/postgres/store.ts";
import { assert, assertEquals } from "../conformance/assert.ts";
import { header, userEntry } from "../conformance/store_suite.ts";
import { removeDir, tempDir } from "../jsonl/subjects.ts";
import { freshSchema, sharedCluster, stopSharedCluster } from "../postgres/subject.ts";
import { chain } from "../conformance/sync_chain.ts";
import { type Machine, machine } from "./sync_machines.ts";

/** A test with a fresh schema on the file's cluster and a temporary root for machines. */
function syncTest(
  name: string,
  fn: (world: { root: string; url: string; schema: string }) => Promise<void>,
) {
  Deno.test(`mu sync: ${name}`, async () => {
    const { url } = await sharedCluster();
    const root = await tempDir("mu-sync-cli-");
    try {
      await fn({ root, url, schema: freshSchema() });
    } finally {
      await removeDir(root);
    }
  });
}

/** Open a store, run `fn`, close it (a machine's CLI runs in between, in another process). */
async function using<T>(
  open: () => Promise<SessionStore>,
  fn: (store: SessionStore) => Promise<T>,
): Promise<T> {
  const store = await open();
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

function ids(entries: readonly SessionEntry[]): string[] {
  return entries.map((entry) => entry.id).sort();
}

syncTest(
  "two machines, --both from each: the union everywhere, exports byte-identical",
  async (world) => {
    const server = { url: world.url, schema: world.schema };
    const laptop = await machine(world.root, "laptop", "sqlite", server);
    const ci = await machine(world.root, "ci", "jsonl", server);
    const postgres = () => openPostgresStore({ url: world.url, schema: world.schema, max: 2 });
    const base = chain(3, "shared");
    await using(laptop.open, async (store) => {
      await store.create(header("laptop-1"), chain(4, "laptop-1"));
      await store.create(header("laptop-2"), chain(2, "laptop-2"));
      await store.create(header("shared"), base);
    });
    await using(ci.open, (store) => store.create(header("ci-1"), chain(5, "ci-1")));
    // Never synced: created on the server directly, so no machine is recorded for it.
    await using(postgres, (store) => store.create(header("direct"), chain(1, "direct")));

    const first = await laptop.sync(["--both", "--to", "postgres"]);
    assertEquals(first.code, 0, first.stderr);
    assert(first.stdout.includes("3 sessions created, 9 entries copied"), first.stdout);
    assertEquals((await ci.sync(["--both", "--to", "postgres"])).code, 0);

    // Both append to the shared session at once, on top of its last entry: two branches.
    const fromLaptop = [
      userEntry("laptop says", "shared-2", "laptop-x"),
      userEntry("more", "laptop-x", "laptop-y"),
    ];
    const fromCi = [userEntry("ci says", "shared-2", "ci-x")];
    await using(laptop.open, (store) => store.append("shared", fromLaptop));
    await using(ci.open, (store) => store.append("shared", fromCi));
    for (const side of [laptop, ci, laptop]) {
      const run = await side.sync(["--both", "--to", "postgres"]);
      assertEquals(run.code, 0, `${side.name}: ${run.stdout}${run.stderr}`);
    }

    const everyId = ["ci-1", "direct", "laptop-1", "laptop-2", "shared"];
    const union = ids([...base, ...fromLaptop, ...fromCi]);
    const sides: [string, () => Promise<SessionStore>][] = [
      ["laptop", laptop.open],
      ["ci", ci.open],
      ["postgres", postgres],
    ];
    const projections = new Map<string, string>();
    for (const [name, open] of sides) {
      await using(open, async (store) => {
        const listed = (await store.list({ includeInternal: true })).map((info) => info.id).sort();
        assertEquals(listed, everyId, `${name} holds the union`);
        assertEquals(ids((await store.load("shared")).entries), union, `${name}: shared`);
        for (const leaf of ["laptop-y", "ci-x"]) {
          const projection = JSON.stringify(await loadSessionProjection(store, "shared", leaf));
          const key = `leaf ${leaf}`;
          if (!projections.has(key)) projections.set(key, projection);
          assertEquals(projection, projections.get(key), `${name}: projection at ${leaf}`);
        }
      });
    }

    // Settled: a rerun with nothing new reads no session on either side, the laptop's
    // shared session included although its last run pulled into it.
    for (const side of [laptop, ci]) {
      const rerun = await side.sync(["--both", "--to", "postgres", "--json"]);
      const { push, pull } = JSON.parse(rerun.stdout);
      assertEquals(
        [push.sessionsUnchanged, push.alreadyPresent, pull.sessionsUnchanged, pull.alreadyPresent],
        [5, 0, 5, 0],
        `${side.name}: ${rerun.stdout}`,
      );
    }

    // Exports of the unshared sessions are the same bytes on every side.
    for (const id of ["laptop-1", "ci-1", "direct"]) {
      const onLaptop = await laptop.mu(["export", id]);
      const onCi = await ci.mu(["export", id]);
      const onServer = await laptop.mu(["export", id, "--store", "postgres"], laptop.serverEnv);
      assertEquals(onLaptop.code, 0, onLaptop.stderr);
      assertEquals(onCi.stdout, onLaptop.stdout, `${id}: ci`);
      assertEquals(onServer.stdout, onLaptop.stdout, `${id}: postgres`);
    }

    // The server says where each session came from; "direct" was never synced.
    const listed = await ci.mu(["ls", "--all", "--json", "--store", "postgres"], ci.serverEnv);
    const rows = JSON.parse(listed.stdout).sessions as { id: string; machine?: string }[];
    const machineOf = Object.fromEntries(rows.map((row) => [row.id, row.machine]));
    assert(machineOf["laptop-1"]?.endsWith(":~/laptop/agent"), JSON.stringify(machineOf));
    assertEquals(machineOf["shared"], machineOf["laptop-1"], "the laptop pushed it first");
    assert(machineOf["ci-1"]?.endsWith(":~/ci/agent"), JSON.stringify(machineOf));
    assertEquals(machineOf["direct"], undefined);
    const table = await ci.mu(["ls", "--all", "--store", "postgres"], ci.serverEnv);
    assert(table.stdout.split("\n")[0].includes("machine"), table.stdout);
    assert(table.stdout.includes(":~/ci/agent"), table.stdout);
  },
);

syncTest("a second run reads nothing; a torn cursor is ignored, never trusted", async (world) => {
  const laptop = await machine(world.root, "laptop", "sqlite", world);
  await using(laptop.open, async (store) => {
    for (let s = 0; s < 4; s++) await store.create(header(`s${s}`), chain(3, `s${s}`));
  });
  const push = async () => {
    const run = await laptop.sync(["--to", "postgres", "--json"]);
    assertEquals(run.code, 0, run.stderr);
    return { ...JSON.parse(run.stdout).push, stderr: run.stderr };
  };
  assertEquals((await push()).entriesCopied, 12);
  const again = await push();
  assertEquals([again.sessionsUnchanged, again.alreadyPresent], [4, 0], "nothing was read");

  await using(laptop.open, (store) => store.append("s1", [userEntry("new", "s1-2", "s1-3")]));
  const one = await push();
  assertEquals([one.sessionsUnchanged, one.entriesCopied], [3, 1]);

  const [file] = await laptop.cursorFiles();
  const text = await readFile(file, "utf8");
  await writeFile(file, text.slice(0, text.length >> 1));
  const torn = await push();
  assert(torn.stderr.includes("ignoring the saved cursor"), torn.stderr);
  assertEquals([torn.sessionsUnchanged, torn.alreadyPresent], [0, 13], "every session compared");
  const after = await push();
  assertEquals(after.sessionsUnchanged, 4, "the rewritten cursor is used again");
});

syncTest("conflicts: reported, exit 1, neither side changed", async (world) => {
  const laptop = await machine(world.root, "laptop", "sqlite", world);
  const postgres = () => openPostgresStore({ url: world.url, schema: world.schema, max: 2 });
  const entryClash = header("entry-clash");
  const mine = userEntry("mine", null, "e1");
  const theirs = JSON.parse(JSON.stringify(mine).replace('"mine"', '"theirs"')) as SessionEntry;
  const laptopHeader = header("header-clash", { cwd: "/work/laptop" });
  await using(laptop.open, async (store) => {
    await store.create(entryClash, [mine]);
    await store.create(laptopHeader, []);
    await store.create(header("clean"), chain(2, "clean"));
  });
  await using(postgres, async (store) => {
    await store.create(entryClash, [theirs]);
    await store.create({ ...laptopHeader, cwd: "/work/ci" }, []);
  });
  const exports = async (open: () => Promise<SessionStore>) =>
    await using(open, async (store) => [
      await store.exportJsonl!("entry-clash"),
      await store.exportJsonl!("header-clash"),
    ]);
  const before = [await exports(laptop.open), await exports(postgres)];

  const run = await laptop.sync(["--both", "--to", "postgres"]);
  assertEquals(run.code, 1, run.stdout + run.stderr);
  assert(
    run.stdout.includes("conflict: session entry-clash: entry e1 differs at message.content"),
    run.stdout,
  );
  assert(
    run.stdout.includes("conflict: session header-clash: the headers differ at cwd"),
    run.stdout,
  );
  assertEquals([await exports(laptop.open), await exports(postgres)], before, "nothing changed");
  assert(await using(postgres, (store) => store.has("clean")), "the clean session was pushed");

  const json = await laptop.sync(["--to", "postgres", "--json", "--full"]);
  assertEquals(json.code, 1);
  const conflicts = JSON.parse(json.stdout).push.conflicts;
  assertEquals(conflicts.length, 2, json.stdout);
});

syncTest("trust: a project's settings never choose the server; URLs are masked", async (world) => {
  const laptop = await machine(world.root, "laptop", "sqlite", world);
  await using(laptop.open, (store) => store.create(header("mine"), chain(1, "mine")));
  const secret = "pr0ject-s3cret";
  const projectServer = `postgres://thief:${secret}@127.0.0.1:1/stolen`;
  await mkdir(join(laptop.cwd, ".pi"), { recursive: true });
  await writeFile(
    join(laptop.cwd, ".pi", "settings.json"),
    JSON.stringify({ sessions: { sync: { url: projectServer } } }),
  );
  // No server of the user's own: refused as a configuration error, the project named.
  const refused = await laptop.mu(["sync", "--to", "postgres"]);
  assertEquals(refused.code, 2, refused.stderr);
  assert(refused.stderr.includes("ignored the server named in"), refused.stderr);
  assert(refused.stderr.includes("no PostgreSQL server configured"), refused.stderr);
  assert(!refused.stderr.includes(secret) && !refused.stdout.includes(secret));

  // The user's own server (the environment) is used, and the project's is still ignored.
  const pushed = await laptop.sync(["--to", "postgres"]);
  assertEquals(pushed.code, 0, pushed.stderr);
  assert(pushed.stderr.includes("ignored the server named in"), pushed.stderr);
  assert(pushed.stdout.includes(`127.0.0.1:${new URL(world.url).port}`), pushed.stdout);

  // A trusted project whose storage is a server is refused as the local side too.
  await writeFile(
    join(laptop.cwd, ".pi", "settings.json"),
    JSON.stringify({ sessions: { storage: { type: "postgres", url: projectServer } } }),
  );
  const trusted = await laptop.sync(["--to", "postgres", "--approve"]);
  assertEquals(trusted.code, 2, trusted.stderr);
  assert(trusted.stderr.includes("a project's settings cannot send sessions"), trusted.stderr);
  assert(!trusted.stderr.includes(secret));

  // A URL on the command line: its password appears in no message, even when it fails.
  const unreachable = await laptop.mu(["sync", "--to", `postgres://me:${secret}@127.0.0.1:1/db`]);
  assertEquals(unreachable.code, 1, unreachable.stderr);
  assert(unreachable.stderr.includes("me@127.0.0.1:1/db"), unreachable.stderr);
  assert(!unreachable.stderr.includes(secret) && !unreachable.stdout.includes(secret));
});

syncTest("usage: one of --to/--from, and not this machine's own store", async (world) => {
  const laptop: Machine = await machine(world.root, "laptop", "sqlite", world);
  assertEquals((await laptop.mu(["sync"])).code, 2);
  assertEquals((await laptop.mu(["sync", "--to", "sqlite"])).code, 2);
  assertEquals((await laptop.mu(["sync", "--to", "jsonl"])).code, 2);
  const help = await laptop.mu(["--help"]);
  assert(/^ {2}sync /m.test(help.stdout), help.stdout);
});

Deno.test("mu sync: stop the test cluster", stopSharedCluster);
