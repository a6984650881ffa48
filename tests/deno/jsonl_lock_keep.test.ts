/**
 * Appends keep their session file's lock across a burst (`stores/jsonl/_park.ts`, issue 12):
 * appends awaited back to back take the lock file once instead of once per append (four
 * directory changes each, which a durable append's fsync then also paid for), and the lock
 * is given up as soon as the writer goes idle, at the hold bound, when another operation
 * than an append releases it, and when the store closes, so other processes get their turn.
 */
import { readdirSync, readFileSync, utimesSync } from "node:fs";
import { assert, assertEquals } from "../conformance/assert.ts";
import { removeDir, tempDir } from "../jsonl/subjects.ts";
import { appendChildCommand, chain, v4Header } from "../jsonl/helpers.ts";
import { openJsonlFsStore } from "../../stores/jsonl/fs.ts";
import { maxHoldMs } from "../../stores/jsonl/_park.ts";

/** Spawning processes needs --allow-run; without it the cross-process test is ignored. */
const canRun = Deno.permissions.querySync({ name: "run" }).state === "granted";

/**
 * The lock's owner token, or undefined when there is no lock file. Synchronous, as are the
 * other looks at the folder: an awaited read would let the writer go idle.
 */
function lockToken(path: string): string | undefined {
  try {
    return JSON.parse(readFileSync(`${path}.lock`, "utf8")).token;
  } catch {
    return undefined;
  }
}

const locks = (dir: string) => readdirSync(dir).filter((name) => name.endsWith(".lock"));
/** Let the event loop reach its timers: the writer is idle. */
const idle = () => new Promise((resolve) => setTimeout(resolve, 20));

Deno.test("jsonl lock keep: appends awaited back to back take the lock file once; idle, another operation or close gives it up", async () => {
  const dir = await tempDir();
  try {
    const store = await openJsonlFsStore(dir, { trashCommand: false });
    const [a, b, c, d] = chain("k", 4);
    const { path } = await store.create(v4Header("kept"));
    assertEquals(locks(dir), [], "a create gives its lock up at once");
    await store.append("kept", [a]);
    const first = lockToken(path!);
    assert(first !== undefined, "the lock is kept after the append");
    await store.append("kept", [b]);
    await store.append("kept", [c]);
    assertEquals(lockToken(path!), first, "the same lock file served the next appends");
    await idle();
    assertEquals(locks(dir), [], "gone once the writer is idle");

    await store.append("kept", [d]);
    const second = lockToken(path!);
    assert(second !== undefined && second !== first, "a new burst takes a new lock");
    await store.close();
    assertEquals(locks(dir), [], "close gives it up");
    assertEquals((await (await openJsonlFsStore(dir)).load("kept")).entries, [a, b, c, d]);

    const other = await openJsonlFsStore(dir, { trashCommand: false });
    await other.append("kept", chain("m", 1, d.id));
    await other.delete("kept");
    assertEquals(locks(dir), [], "a delete after an append leaves no lock");
  } finally {
    await removeDir(dir);
  }
});

Deno.test("jsonl lock keep: a burst longer than the hold bound gives the lock up, then takes a fresh one", async () => {
  const dir = await tempDir();
  try {
    const staleLockMs = 2_000;
    const store = await openJsonlFsStore(dir, { trashCommand: false, staleLockMs });
    const { path } = await store.create(v4Header("bounded"));
    const [a, b, c] = chain("h", 3);
    await store.append("bounded", [a]);
    const first = lockToken(path!);
    assert(first !== undefined, "kept");
    // No timer turn in between: only the bound can end the hold.
    const until = Date.now() + maxHoldMs(staleLockMs) + 5;
    while (Date.now() < until) { /* the writer is busy, not idle */ }
    await store.append("bounded", [b]);
    assertEquals(locks(dir), [], "given up at the bound, though the writer is not idle");
    await store.append("bounded", [c]);
    const second = lockToken(path!);
    assert(second !== undefined && second !== first, "the next append takes a fresh lock");
    await store.close();
    assertEquals((await (await openJsonlFsStore(dir)).load("bounded")).entries, [a, b, c]);
  } finally {
    await removeDir(dir);
  }
});

Deno.test("jsonl lock keep: a kept lock whose mtime someone touched is still known as this process's own (by its token), never waited on", async () => {
  const dir = await tempDir();
  try {
    // A wait far shorter than the stale bound: waiting on its own lock would time out.
    const store = await openJsonlFsStore(dir, { trashCommand: false, lockTimeoutMs: 1_000 });
    const { path } = await store.create(v4Header("touched"));
    const [a, b] = chain("t", 2);
    await store.append("touched", [a]);
    const first = lockToken(path!);
    const earlier = new Date(Date.now() - 5_000);
    utimesSync(`${path}.lock`, earlier, earlier); // a backup tool, a platform's own idea of time
    await store.append("touched", [b]);
    assertEquals(lockToken(path!), first, "the same lock, taken over");
    await store.close();
    assertEquals((await (await openJsonlFsStore(dir)).load("touched")).entries, [a, b]);
  } finally {
    await removeDir(dir);
  }
});

Deno.test({
  name: "jsonl lock keep: another process gets the lock as soon as this writer is idle",
  ignore: !canRun,
  fn: async () => {
    const dir = await tempDir();
    try {
      const store = await openJsonlFsStore(dir, { trashCommand: false });
      const { path } = await store.create(v4Header("shared"));
      const [a] = chain("p", 1);
      await store.append("shared", [a]);
      assert(lockToken(path!) !== undefined, "kept");
      // The child's own wait (60 s) is far longer than the test's: it must not need it.
      const child = await appendChildCommand(dir, "shared", "c", 3).output();
      assertEquals(child.code, 0, new TextDecoder().decode(child.stderr));
      assertEquals((await store.load("shared")).entries.length, 4);
      assertEquals(locks(dir), [], "the child closed its store: no lock left");
    } finally {
      await removeDir(dir);
    }
  },
});
