/**
 * Crash leftovers (issue 11, finding 11): a SIGKILL during a create or an atomic rewrite
 * leaves temp copies and lock files. They never count as sessions, and a store's first
 * listing removes the ones whose owners are provably gone, keeping anything that may still
 * be in use.
 */
import { LISTING_CACHE_FILE } from "../../stores/jsonl/_persist.ts";
import { mkdir, readdir, readFile, utimes, writeFile } from "node:fs/promises";
import { RESUME_INDEX_DIR } from "../../stores/jsonl/scan/_resume_file.ts";
import { hostname } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { assertEquals } from "../conformance/assert.ts";
import { removeDir, tempDir } from "../jsonl/subjects.ts";
import { user, v4Header } from "../jsonl/helpers.ts";
import { NodeJsonlFolderFs, openJsonlFsStore } from "../../stores/jsonl/fs.ts";

const canRun = Deno.permissions.querySync({ name: "run" }).state === "granted";

async function deadPid(): Promise<number> {
  const child = new Deno.Command(Deno.execPath(), { args: ["eval", ""] }).spawn();
  await child.status;
  return child.pid;
}

/** The host a lock written now would name ("" when the test may not ask, as the store does). */
function lockHost(): string {
  try {
    return hostname();
  } catch {
    return "";
  }
}

const owner = (pid: number) =>
  JSON.stringify({ pid, host: lockHost(), token: crypto.randomUUID(), acquiredAt: "then" });

Deno.test({
  name:
    "jsonl leftovers: dead temp copies and locks are removed on listing, live ones kept, none listed",
  ignore: !canRun,
  fn: async () => {
    const dir = await tempDir();
    try {
      const store = await openJsonlFsStore(dir);
      const { path } = await store.create(v4Header("kept"), [user("k1", null)]);
      const name = path!.split("/").pop()!;
      const dead = await deadPid();
      const old = new Date(Date.now() - 120_000);
      const copy = await readFile(path!);
      const plant = async (file: string, text: string | Uint8Array, when?: Date) => {
        await writeFile(join(dir, file), text);
        if (when) await utimes(join(dir, file), when, when);
      };
      await plant(`${name}.${dead}.0badc0de.tmp`, copy, old); // dead writer, old: removed
      await plant(`${name}.${dead}.1badc0de.tmp`, copy); // dead, but just written: kept
      await plant(`${name}.${process.pid}.2badc0de.tmp`, copy, old); // writer alive: kept
      await plant(`.0123456789abcdef0123456789abcdef.create.lock`, owner(dead)); // removed
      await plant(`other.jsonl.lock`, "", old); // owner-less for minutes: removed
      await plant(`live.jsonl.lock`, owner(process.ppid)); // live owner: kept

      const fresh = await openJsonlFsStore(dir);
      assertEquals((await fresh.list()).map((row) => row.id), ["kept"]);
      assertEquals(
        (await readdir(dir)).sort(),
        [
          name,
          `${name}.${dead}.1badc0de.tmp`,
          `${name}.${process.pid}.2badc0de.tmp`,
          "live.jsonl.lock",
          LISTING_CACHE_FILE, // written by the listing, not a leftover
        ].sort(),
      );
      await fresh.append("kept", [user("k2", "k1")]);
      assertEquals((await fresh.load("kept")).entries.length, 2);

      // A resume index's temp copy left by a killed writer goes the same way.
      const indexDir = join(dir, RESUME_INDEX_DIR);
      await mkdir(indexDir);
      const leftover = join(RESUME_INDEX_DIR, `${name}.idx.${dead}.3badc0de.tmp`);
      await plant(leftover, "{}", old);
      await plant(join(RESUME_INDEX_DIR, `${name}.idx`), "{}", old);
      await (await openJsonlFsStore(dir)).list();
      assertEquals(await readdir(indexDir), [`${name}.idx`]);
    } finally {
      await removeDir(dir);
    }
  },
});

Deno.test({
  name:
    "jsonl leftovers: the sweep after a listing reads the folder again only when the listing saw a name a crash leaves",
  ignore: !canRun,
  fn: async () => {
    const dir = await tempDir();
    try {
      const dead = await deadPid();
      const fs = new NodeJsonlFolderFs(dir);
      await writeFile(join(dir, "a.jsonl"), "");
      await fs.list("");
      // Planted after the listing, which saw only a.jsonl: the sweep trusts that listing
      // (a folder of 10,000 sessions is not read a second time).
      await writeFile(join(dir, "b.jsonl.lock"), owner(dead));
      await fs.sweep("");
      assertEquals((await readdir(dir)).sort(), ["a.jsonl", "b.jsonl.lock"]);
      await fs.list(""); // now it sees the lock: the sweep reads the folder and removes it
      await fs.sweep("");
      assertEquals(await readdir(dir), ["a.jsonl"]);
    } finally {
      await removeDir(dir);
    }
  },
});
