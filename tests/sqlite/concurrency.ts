/**
 * Two OS processes append to the same session in the same database file at the same
 * time; afterwards every entry of both is there, in each process's order, and the listing
 * fold counted all of them (it is updated under the same write lock).
 */
import { assert, assertEquals } from "../conformance/assert.ts";
import {
  type AppendWorkerArgs,
  goId,
  markerHeader,
  readyId,
  workerEntryId,
} from "./append_worker_core.ts";
import { type SqliteTestRuntime, withDatabase } from "./runtime.ts";

const PER_PROCESS = 1000;

export function concurrencyCase(
  t: (name: string, fn: () => Promise<void>) => void,
  runtime: SqliteTestRuntime,
): void {
  t(`two processes appending ${PER_PROCESS} entries each lose nothing`, async () => {
    await withDatabase(runtime, async ({ path, store }) => {
      const sessionId = "shared";
      await store.create({ ...markerHeader(sessionId), cwd: "/shared" });
      const workers: AppendWorkerArgs[] = ["a", "b"].map((prefix) => ({
        path,
        sessionId,
        prefix,
        count: PER_PROCESS,
      }));
      const started = Date.now();
      let exitedEarly: { code: number; output: string } | undefined;
      const runs = workers.map((args) =>
        runtime.spawnAppender(args).then((result) => {
          exitedEarly ??= result;
          return result;
        })
      );
      // Release both at once, so their transactions really interleave.
      const deadline = Date.now() + 60_000;
      while (!(await store.has(readyId(workers[0])) && await store.has(readyId(workers[1])))) {
        if (exitedEarly) throw new Error(`an appender exited early:\n${exitedEarly.output}`);
        if (Date.now() > deadline) throw new Error("appenders did not start within 60 s");
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const released = Date.now();
      await store.create(markerHeader(goId(sessionId)));
      const results = await Promise.all(runs);
      const finished = Date.now();
      for (const result of results) assertEquals(result.code, 0, result.output);

      const loaded = await store.load(sessionId);
      assertEquals(loaded.entries.length, 2 * PER_PROCESS);
      for (const args of workers) {
        const mine = loaded.entries.filter((entry) => entry.id.startsWith(args.prefix));
        const expected = Array.from(
          { length: PER_PROCESS },
          (_, i) => workerEntryId(args.prefix, i),
        );
        assertEquals(mine.map((entry) => entry.id), expected, `order of ${args.prefix}`);
      }
      let switches = 0;
      for (let i = 1; i < loaded.entries.length; i++) {
        if (loaded.entries[i].id[0] !== loaded.entries[i - 1].id[0]) switches++;
      }
      // a...b...a at least: the writers really overlapped instead of running one after the other
      assert(switches >= 2, `the two processes' appends interleaved (${switches} switches)`);
      const row = (await store.list({ cwd: "/shared" })).find((info) => info.id === sessionId);
      assertEquals(row?.messageCount, 2 * PER_PROCESS, "listing fold saw every append");
      console.log(
        `  [${runtime.name}] 2 x ${PER_PROCESS} appends: ${
          finished - released
        } ms after release, ` +
          `${released - started} ms process start, ${switches} interleavings`,
      );
    });
  });
}
