/**
 * A session file kept open across a burst of appends (`stores/jsonl/_kept.ts`, issue 12),
 * for Deno and Node alike. The system calls an append makes are counted (the counters of
 * `stores/jsonl/_native.ts`), not timed: in a burst, an append is one `stat` of the path,
 * one check of the kept lock, the write, the `fdatasync` (durable only) and one `fstat`,
 * with no open, seek or close. A foreign writer between two appends of a burst is seen as
 * before: its complete lines are kept, a torn one refuses the append, and a file replaced
 * under the same path is written through the new file, never the old one. And nothing an
 * append does grows with the session: onto an opened session of thousands of entries it
 * makes the same calls, through the folder interface and to the system, as onto a new one.
 */
import { appendFileSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { assert, assertEquals, assertRejects } from "../conformance/assert.ts";
import { removeDir, tempDir } from "./subjects.ts";
import { chain, user, v4Header } from "./helpers.ts";
import { NodeJsonlFolderFs, openJsonlFsStore, TornTailError } from "../../stores/jsonl/fs.ts";
import { JsonlSessionStore } from "../../stores/jsonl/store.ts";
import { CountingFs } from "./counting_fs.ts";
import type { Durability } from "../../stores/jsonl/_folder.ts";
import { systemCalls } from "../../stores/jsonl/_native.ts";

type Counts = typeof systemCalls;

/** The system calls made since `before`. */
function since(before: Counts): Counts {
  const used = { ...systemCalls };
  for (const key of Object.keys(used) as (keyof Counts)[]) used[key] -= before[key];
  return used;
}

/** Let the event loop reach its timers: the writer is idle, its kept lock is given up. */
const idle = () => new Promise((resolve) => setTimeout(resolve, 20));

async function withStore(
  durability: Durability,
  fn: (store: JsonlSessionStore) => Promise<void>,
): Promise<void> {
  const dir = await tempDir();
  try {
    const store = await openJsonlFsStore(dir, { trashCommand: false, durability });
    try {
      await fn(store);
    } finally {
      await store.close();
    }
  } finally {
    await removeDir(dir);
  }
}

/** Register the cases with a test runner (`Deno.test`, `node:test`). */
export function keptFileCases(
  test: (name: string, fn: () => Promise<void>) => void,
  label: string,
): void {
  for (const durability of ["durable", "relaxed"] as const) {
    test(
      `${label}: ${durability} appends in a burst open the session file once: a stat, a lock check, a write${
        durability === "durable" ? ", an fdatasync" : ""
      } and an fstat each`,
      async () => {
        await withStore(durability, async (store) => {
          await store.create(v4Header("burst"));
          const [first, ...rest] = chain("b", 6);
          await store.append("burst", [first]); // takes the lock and opens the file
          const before = { ...systemCalls };
          for (const entry of rest) await store.append("burst", [entry]);
          const n = rest.length;
          assertEquals(since(before), {
            stat: n, // the path: a foreign writer or a replaced file is still seen
            lstat: n, // the kept lock is still this process's
            fstat: n, // the new size and mtime, for the next append's comparison
            open: 0,
            close: 0,
            seek: 0,
            write: n,
            fdatasync: durability === "durable" ? n : 0,
          });
          await idle();
          assertEquals(since(before).close, 1, "the file is closed with the lock, once idle");
          assertEquals((await store.load("burst")).entries, [first, ...rest]);
        });
      },
    );
  }

  test(`${label}: an append within a burst is written before its call returns: no promise between its checks and its write`, async () => {
    await withStore("relaxed", async (store) => {
      const { path } = await store.create(v4Header("sync"));
      const [a, b, c] = chain("s", 3);
      await store.append("sync", [a]); // takes the lock and keeps it
      const pending = store.append("sync", [b]);
      const text = readFileSync(path!, "utf8");
      assert(text.endsWith(`${JSON.stringify(b)}\n`), "written within the call");
      await pending;
      // Two appends at once: the second waits for nothing but keeps the order it was called in.
      await Promise.all([store.append("sync", [c]), store.append("sync", chain("t", 1, c.id))]);
      const ids = (await store.load("sync")).entries.map((entry) => entry.id);
      assertEquals(ids, [a.id, b.id, c.id, chain("t", 1, c.id)[0].id]);
    });
  });

  test(`${label}: a foreign writer between two appends of a burst is seen: its lines are kept, a torn one refuses the append`, async () => {
    await withStore("durable", async (store) => {
      const { path } = await store.create(v4Header("foreign"));
      const [a, b, c] = chain("f", 3);
      await store.append("foreign", [a]);
      // Synchronous, so the burst (and its kept lock and file) goes on.
      const x = user("x0000001", a.id);
      appendFileSync(path!, `${JSON.stringify(x)}\n`);
      await store.append("foreign", [{ ...b, parentId: x.id }]);
      const torn = '{"type":"message","id":"cut"';
      appendFileSync(path!, torn);
      const before = readFileSync(path!);
      await assertRejects(() => store.append("foreign", [c]), TornTailError);
      assertEquals(readFileSync(path!), before, "nothing written after the torn record");
      const text = readFileSync(path!, "utf8");
      assert(
        text.endsWith(`${JSON.stringify(x)}\n${JSON.stringify({ ...b, parentId: x.id })}\n${torn}`),
      );
    });
  });

  test(`${label}: a session file replaced under its path within a burst is appended to as the new file`, async () => {
    await withStore("durable", async (store) => {
      const { path } = await store.create(v4Header("replaced"));
      const [a, b] = chain("r", 2);
      await store.append("replaced", [a]);
      // Another tool rewrites the file (same bytes, new inode), as an editor's save does.
      writeFileSync(`${path}.other`, readFileSync(path!));
      renameSync(`${path}.other`, path!);
      const before = { ...systemCalls };
      await store.append("replaced", [b]);
      assertEquals(since(before).open, 1, "the kept file is not the path's file: opened anew");
      assertEquals((await store.load("replaced")).entries, [a, b]);
    });
  });

  test(`${label}: appends onto an opened session of 3,000 entries make the calls appends onto a new one make: a stat and a write each, nothing read`, async () => {
    const dir = await tempDir();
    try {
      const big = chain("a", 3000);
      const writer = await openJsonlFsStore(dir, { trashCommand: false });
      await writer.create(v4Header("big"), big);
      await writer.close();
      const fs = new CountingFs(new NodeJsonlFolderFs(dir, { trashCommand: false }));
      const store = new JsonlSessionStore(fs);
      await store.load("big"); // opened, as a manager (or the bench's "onto" case) does
      await store.create(v4Header("new"));
      const cost = async (id: string, parentId: string | null, prefix: string) => {
        const [first, ...rest] = chain(prefix, 6, parentId);
        await store.append(id, [first]); // a burst's first append: the lock, the header check
        fs.reset();
        const before = { ...systemCalls };
        for (const entry of rest) await store.append(id, [entry]);
        const counts = { ...fs.counts, system: since(before) };
        await idle();
        return counts;
      };
      const onto = await cost("big", big.at(-1)!.id, "o");
      const fresh = await cost("new", null, "n");
      assertEquals(onto, fresh);
      const { stats, appends, reads, streams, bytesRead } = onto;
      assertEquals({ stats, appends, reads, streams, bytesRead }, {
        stats: 5,
        appends: 5,
        reads: 0,
        streams: 0,
        bytesRead: 0,
      });
      await store.close();
    } finally {
      await removeDir(dir);
    }
  });
}
