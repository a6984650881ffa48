/**
 * Deno appender process for the two-process test:
 * `deno run --allow-read --allow-write --allow-env tests/sqlite/append_worker.ts '<json args>'`.
 */
import { openSqliteStore } from "../../stores/sqlite/file.ts";
import { type AppendWorkerArgs, runAppendWorker } from "./append_worker_core.ts";

const args = JSON.parse(Deno.args[0]) as AppendWorkerArgs;
const store = await openSqliteStore(args.path);
try {
  await runAppendWorker(store, args);
} finally {
  await store.close();
}
