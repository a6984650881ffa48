/**
 * One writer process of the multi-process PostgreSQL test: opens the store named by its
 * arguments and runs the SQLite test's appender body (the same barrier and entry ids).
 */
import { openPostgresStore } from "../../stores/postgres/store.ts";
import { type AppendWorkerArgs, runAppendWorker } from "../sqlite/append_worker_core.ts";

/** What one writer does; passed to the child process as JSON. */
export interface WriterArgs extends AppendWorkerArgs {
  url: string;
  schema: string;
}

/** Open, append `count` entries one call each after the barrier, close. */
export async function runWriter(args: WriterArgs): Promise<void> {
  const store = await openPostgresStore({ url: args.url, schema: args.schema, max: 1 });
  try {
    await runAppendWorker(store, args);
  } finally {
    await store.close();
  }
}
