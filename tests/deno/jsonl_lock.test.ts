/**
 * One writer per session file across processes: two OS processes append 1,000 entries each
 * to one file; stale locks (dead owner, or not refreshed) are broken; a live lock makes a
 * writer wait, bounded, then fail with `SessionStorageError` having written nothing.
 */
import {
  lstat,
  mkdir,
  readdir,
  readFile,
  symlink,
  unlink,
  utimes,
  writeFile,
} from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { SessionStorageError } from "../../core.ts";
import { assert, assertEquals, assertRejects } from "../conformance/assert.ts";
import { removeDir, tempDir } from "../jsonl/subjects.ts";
import { appendChildCommand, chain, user, v4Header } from "../jsonl/helpers.ts";
import { openJsonlFsStore } from "../../stores/jsonl/fs.ts";
import { releaseParked } from "../../stores/jsonl/_park.ts";

/**
 * This process's writer goes idle: the lock its appends keep is given up (`_park.ts`). Tests
 * plant another party's lock only after that, as no other party can while it is kept.
 */
const writerIdle = () => releaseParked();

/** Spawning processes needs --allow-run; without it these tests show as ignored. */
const canRun = Deno.permissions.querySync({ name: "run" }).state === "granted";

function test(name: string, fn: () => Promise<void>) {
  Deno.test({ name: `jsonl lock: ${name}`, ignore: !canRun, fn });
}

const PER_PROCESS = 1_000;

/** The host a lock written now would name ("" when the test may not ask, as the store does). */
function lockHost(): string {
  try {
    return hostname();
  } catch {
    return "";
  }
}

test(`two processes append ${PER_PROCESS} entries each to one file: all load, none torn or interleaved`, async () => {
  const dir = await tempDir();
  try {
    const store = await openJsonlFsStore(dir);
    const { path } = await store.create(v4Header("shared"));
    const started = performance.now();
    const children = ["a", "b"].map((tag) =>
      appendChildCommand(dir, "shared", tag, PER_PROCESS).spawn()
    );
    // Bounded: a deadlock or starvation fails the test instead of hanging it.
    const bound = setTimeout(() => children.forEach((child) => child.kill()), 180_000);
    const results = await Promise.all(children.map((child) => child.output()));
    clearTimeout(bound);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    for (const result of results) {
      assertEquals(result.code, 0, new TextDecoder().decode(result.stderr));
    }
    console.log(`  ${2 * PER_PROCESS} appends from 2 processes in ${seconds} s`);

    const text = await readFile(path!, "utf8");
    assert(text.endsWith("\n"), "file ends with a newline");
    const lines = text.slice(0, -1).split("\n");
    assertEquals(lines.length, 1 + 2 * PER_PROCESS);
    for (const line of lines) JSON.parse(line); // every line is one whole record
    const entries = (await store.load("shared")).entries;
    assertEquals(entries.length, 2 * PER_PROCESS);
    for (const tag of ["a", "b"]) {
      const mine = entries.filter((entry) => entry.id.startsWith(tag)).map((entry) => entry.id);
      const expected = Array.from(
        { length: PER_PROCESS },
        (_, i) => `${tag}${i.toString(16).padStart(7, "0")}`,
      );
      assertEquals(mine, expected, `process ${tag}: all entries, in its order`);
    }
  } finally {
    await removeDir(dir);
  }
});

test("a lock left by a dead process is broken; a live one times out with nothing written", async () => {
  const dir = await tempDir();
  try {
    const store = await openJsonlFsStore(dir, { lockTimeoutMs: 300 });
    const [a, b] = chain("l", 2);
    const { path } = await store.create(v4Header("locked"), [a]);
    const child = new Deno.Command(Deno.execPath(), { args: ["eval", ""] }).spawn();
    await child.status;
    const owner = (pid: number) =>
      JSON.stringify({ pid, host: lockHost(), token: crypto.randomUUID(), acquiredAt: "then" });

    await writeFile(`${path}.lock`, owner(child.pid)); // its process is gone
    await store.append("locked", [b]);
    assertEquals((await store.load("locked")).entries, [a, b]);

    const live = owner(process.ppid); // alive: our parent process
    writerIdle();
    await writeFile(`${path}.lock`, live);
    const before = await readFile(path!);
    // Order, not time: the writer must give up while the live owner still holds the lock.
    // Only if it kept waiting does this watchdog release the lock, and the append succeed.
    let released = false;
    const watchdog = setTimeout(() => {
      released = true;
      unlink(`${path}.lock`).catch(() => {});
    }, 60_000);
    try {
      await assertRejects(
        () => store.append("locked", [user("l0000003", b.id)]),
        SessionStorageError,
        "Timed out",
      );
    } finally {
      clearTimeout(watchdog);
    }
    assert(!released, "the writer gave up before the lock was released");
    assertEquals(await readFile(`${path}.lock`, "utf8"), live, "the live lock was not broken");
    assertEquals(await readFile(path!), before);

    // The same live owner, but the lock has not been refreshed for an hour: stale.
    const hourAgo = new Date(Date.now() - 3_600_000);
    await utimes(`${path}.lock`, hourAgo, hourAgo);
    await store.append("locked", [user("l0000003", b.id)]);
    assertEquals((await store.load("locked")).entries.length, 3);
  } finally {
    await removeDir(dir);
  }
});

Deno.test("jsonl lock: writers in one process queue instead of failing", async () => {
  const dir = await tempDir();
  try {
    const one = await openJsonlFsStore(dir);
    const two = await openJsonlFsStore(dir);
    await one.create(v4Header("queued"));
    const entries = chain("q", 40);
    await Promise.all(
      entries.map((entry, i) => (i % 2 ? one : two).append("queued", [entry])),
    );
    assertEquals((await one.load("queued")).entries.length, 40);
  } finally {
    await removeDir(dir);
  }
});

Deno.test("jsonl lock: an owner-less lock left by a crash is broken within the wait, not after the stale bound", async () => {
  const dir = await tempDir();
  try {
    // A wait far shorter than the 30 s stale bound: only judging by owner-less age passes.
    const store = await openJsonlFsStore(dir, { lockTimeoutMs: 5_000 });
    const [a, b, c] = chain("e", 3);
    const { path } = await store.create(v4Header("ownerless"), [a]);
    await writeFile(`${path}.lock`, ""); // created, killed before the owner was written
    await store.append("ownerless", [b]);
    writerIdle();
    await writeFile(`${path}.lock`, '{"pi'); // killed mid-write
    await store.append("ownerless", [c]);
    assertEquals((await store.load("ownerless")).entries, [a, b, c]);
    writerIdle();
    assertEquals(await readdir(dir).then((names) => names.filter((n) => n.includes(".lock"))), []);
  } finally {
    await removeDir(dir);
  }
});

/**
 * Run `append` with a watchdog that removes `blocker` only if the append has not answered
 * long after its lock wait: order, not time. Resolves whether the watchdog had to act.
 */
async function answeredWithoutHelp(append: () => Promise<unknown>, blocker: string) {
  let removed = false;
  const watchdog = setTimeout(() => {
    removed = true;
    unlink(blocker).catch(() => {});
  }, 30_000);
  try {
    await append();
  } finally {
    clearTimeout(watchdog);
  }
  return !removed;
}

Deno.test("jsonl lock: a lock file that is a symlink is never followed: dangling or to a file outside, it is broken like an owner-less lock", async () => {
  const dir = await tempDir();
  const outside = await tempDir();
  try {
    const store = await openJsonlFsStore(dir, { lockTimeoutMs: 5_000 });
    const [a, b, c] = chain("y", 3);
    const { path } = await store.create(v4Header("linked"), [a]);
    const lock = `${path}.lock`;

    // Dangling: O_EXCL/link see it as existing, stat through it finds nothing.
    await symlink(join(outside, "missing"), lock);
    assert(
      await answeredWithoutHelp(() => store.append("linked", [b]), lock),
      "the append answered by itself (it spun on the dangling link before)",
    );
    assertEquals(await readdir(outside), [], "nothing created through the link");

    // To a file outside that names a live owner: the link, not the file, is the lock.
    writerIdle();
    const victim = join(outside, "victim");
    const live = JSON.stringify({
      pid: process.ppid,
      host: lockHost(),
      token: crypto.randomUUID(),
      acquiredAt: "then",
    });
    await writeFile(victim, live);
    await symlink(victim, lock);
    assert(await answeredWithoutHelp(() => store.append("linked", [c]), lock));
    assertEquals(await readFile(victim, "utf8"), live, "the file outside is untouched");
    assertEquals((await store.load("linked")).entries, [a, b, c]);
    writerIdle();
    assertEquals(await lstat(lock).catch(() => "gone"), "gone");
  } finally {
    await removeDir(dir);
    await removeDir(outside);
  }
});

Deno.test("jsonl lock: a directory at the lock path ends in a typed timeout, nothing written", async () => {
  const dir = await tempDir();
  try {
    const store = await openJsonlFsStore(dir, { lockTimeoutMs: 1_500 });
    const [a, b] = chain("z", 2);
    const { path } = await store.create(v4Header("dirlock"), [a]);
    // Not empty, so no runtime's unlink can take it away (Deno's removes empty folders).
    await mkdir(`${path}.lock`);
    await writeFile(`${path}.lock/inside`, "");
    const before = await readFile(path!);
    await assertRejects(
      () => store.append("dirlock", [b]),
      SessionStorageError,
      "not a regular file",
    );
    assertEquals(await readFile(path!), before);
  } finally {
    await removeDir(dir);
  }
});
