/**
 * Sync survives being killed: a push from a SQLite store into a real PostgreSQL, run as a
 * child process (tests/sync/push_child.ts), is SIGKILLed at 20+ random points; after each
 * kill every session on the server is a prefix of its source (nothing duplicated, parents
 * before children) and the next run carries on, until a run completes and every session is
 * byte-identical. Then the server itself is killed under a push from a JSONL folder: the
 * push fails with a typed error, and after a restart the rerun converges.
 */
import { type SessionEntry, SessionStorageError, type SessionStore } from "../../core.ts";
import { syncStores } from "../../sync.ts";
import { openJsonlFsStore } from "../../stores/jsonl/fs.ts";
import { openPostgresStore } from "../../stores/postgres/store.ts";
import { openSqliteStore } from "../../stores/sqlite/file.ts";
import { assert, assertEquals } from "../conformance/assert.ts";
import { header } from "../conformance/store_suite.ts";
import { chain } from "../conformance/sync_chain.ts";
import { closeAdmin, freshSchema, sharedCluster, stopSharedCluster } from "../postgres/subject.ts";
import type { PushArgs } from "../sync/push_child.ts";

const child = new URL("../sync/push_child.ts", import.meta.url).pathname;
const SESSIONS = 100;
const LONG_ID = "long";

/** Messages with some bulk, so a push takes long enough to be killed in many places. */
function bulkyChain(count: number, prefix: string): SessionEntry[] {
  const filler = "x".repeat(400);
  return chain(count, prefix).map((entry) => {
    const message = (entry as { message: Record<string, unknown> }).message;
    return { ...entry, message: { ...message, content: `${message.content} ${filler}` } };
  }) as SessionEntry[];
}

/**
 * Many short sessions and one long one (several store calls). The long one is the newest,
 * so a push copies it first and the first kills of a push land between its store calls.
 */
async function fill(store: SessionStore): Promise<void> {
  for (let s = 0; s < SESSIONS; s++) await store.create(header(`s${s}`), bulkyChain(20, `s${s}`));
  await store.create(header(LONG_ID), bulkyChain(7_000, LONG_ID));
}

/**
 * Every session on the target is its source's export cut after some entry: none out of
 * order, none twice, no torn session. Returns how many are complete, and whether the long
 * one is there only in part.
 */
async function checkPrefixes(
  source: SessionStore,
  target: SessionStore,
): Promise<{ complete: number; longInPart: boolean }> {
  let complete = 0;
  let longInPart = false;
  for (const { id } of await source.list({ includeInternal: true })) {
    if (!(await target.has(id))) continue;
    const [whole, copied] = [await source.exportJsonl!(id), await target.exportJsonl!(id)];
    assert(whole.startsWith(copied), `${id} on the target is a prefix of its source`);
    if (whole === copied) complete++;
    else if (id === LONG_ID) longInPart = true;
  }
  return { complete, longInPart };
}

/**
 * Run a push child and SIGKILL it `after` acknowledged writes plus a few milliseconds (so
 * some kills land inside a store call); resolves with how it ended.
 */
async function killedPush(args: PushArgs, after: number) {
  const process = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      "--allow-net",
      child,
      JSON.stringify(args),
    ],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(process.stderr).text();
  let writes = 0;
  for await (const chunk of process.stdout) {
    writes += chunk.filter((byte) => byte === 0x0a).length;
    if (writes >= after) {
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 15));
      try {
        process.kill("SIGKILL");
      } catch { /* it had already exited */ }
      break;
    }
  }
  const status = await process.status;
  return { killed: status.signal === "SIGKILL", code: status.code, stderr: await stderr };
}

Deno.test("sync: a push SIGKILLed at 20+ random points leaves prefixes, and the rerun converges", async () => {
  const { url } = await sharedCluster();
  const dir = await Deno.makeTempDir({ prefix: "mu-sync-kill-" });
  const path = `${dir}/sessions.db`;
  const source = await openSqliteStore(path);
  try {
    await fill(source);
    const sessionCount = SESSIONS + 1;
    let schema = freshSchema();
    let kills = 0;
    let longSeenInPart = false;
    let completedRuns = 0;
    let fresh = true;
    while (kills < 22) {
      // The first kill of a fresh target lands within the long session's first three calls.
      const after = fresh ? 1 + Math.random() * 2 : 1 + Math.random() * 8;
      fresh = false;
      const push = await killedPush({ kind: "sqlite", path, url, schema }, after);
      const target = await openPostgresStore({ url, schema, max: 2 });
      try {
        const { complete, longInPart } = await checkPrefixes(source, target);
        if (push.killed) {
          kills++;
          longSeenInPart ||= longInPart;
        } else {
          assertEquals(push.code, 0, push.stderr);
          assertEquals(complete, sessionCount, "a finished run copied every session whole");
          completedRuns++;
          schema = freshSchema(); // start over, to kill more pushes in their middle
          fresh = true;
        }
      } finally {
        await target.close();
      }
    }
    assert(longSeenInPart, "some kill landed between the store calls of the long session");
    // The last killed schema converges on a run that is left alone.
    const final = await killedPush({ kind: "sqlite", path, url, schema }, Infinity);
    assertEquals([final.killed, final.code], [false, 0], final.stderr);
    const target = await openPostgresStore({ url, schema, max: 2 });
    try {
      assertEquals((await checkPrefixes(source, target)).complete, sessionCount);
      const counts = await syncStores(source, target);
      assertEquals([counts.sessionsCreated, counts.entriesCopied], [0, 0], "nothing left over");
    } finally {
      await target.close();
    }
    console.log(`kills: ${kills}, runs completed between them: ${completedRuns}`);
  } finally {
    await source.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("sync: the server killed during a push fails it with a typed error; after a restart the rerun converges", async () => {
  const cluster = await sharedCluster();
  await closeAdmin();
  const dir = await Deno.makeTempDir({ prefix: "mu-sync-crash-" });
  const source = await openJsonlFsStore(dir);
  const schema = freshSchema();
  let target = await openPostgresStore({ url: cluster.url, schema, max: 2 });
  try {
    await fill(source);
    let crashing: Promise<void> | undefined;
    const failure = await syncStores(source, target, {
      onProgress: (done) => {
        if (done === 30) crashing = cluster.crash();
      },
    }).then(() => undefined, (error) => error);
    await crashing;
    assert(failure instanceof SessionStorageError, `typed failure: ${failure}`);
    assert((failure as Error).message.includes(`127.0.0.1:${cluster.port}`), "names the server");
    await cluster.start();
    await target.close();
    target = await openPostgresStore({ url: cluster.url, schema, max: 2 });
    const before = await checkPrefixes(source, target);
    assert(before.complete >= 30 && before.complete < SESSIONS + 1, `${before.complete} whole`);
    const rerun = await syncStores(source, target);
    assertEquals(rerun.conflicts, []);
    assertEquals((await checkPrefixes(source, target)).complete, SESSIONS + 1);
  } finally {
    await target.close();
    await source.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("sync crash: stop the test cluster", stopSharedCluster);
