/**
 * A sync process for the kill tests: pushes a SQLite or JSONL store into PostgreSQL and
 * exits 0 when the push is complete. It prints a line on stdout after each write the
 * server acknowledged, so the test can kill it at a chosen point of the push rather than
 * while it starts or after it ended.
 *
 * `deno run --allow-read --allow-write --allow-env --allow-net tests/sync/push_child.ts '<json>'`
 * with `{ "kind": "sqlite" | "jsonl", "path": ..., "url": ..., "schema": ... }`.
 */
import { syncStores } from "../../sync.ts";
import type { SessionStore } from "../../core.ts";
import { openJsonlFsStore } from "../../stores/jsonl/fs.ts";
import { openPostgresStore } from "../../stores/postgres/store.ts";
import { openSqliteStore } from "../../stores/sqlite/file.ts";

/** What the test passes the child. */
export interface PushArgs {
  kind: "sqlite" | "jsonl";
  /** The SQLite file or the JSONL folder. */
  path: string;
  url: string;
  schema: string;
}

const args = JSON.parse(Deno.args[0]) as PushArgs;
const source: SessionStore = args.kind === "sqlite"
  ? await openSqliteStore(args.path)
  : await openJsonlFsStore(args.path);
const target = await openPostgresStore({ url: args.url, schema: args.schema, max: 2 });
const acknowledged = new TextEncoder().encode("w\n");
const create = target.create.bind(target);
const append = target.append.bind(target);
target.create = (header, entries) =>
  create(header, entries).finally(() => Deno.stdout.writeSync(acknowledged));
target.append = (id, entries) =>
  append(id, entries).finally(() => Deno.stdout.writeSync(acknowledged));
const report = await syncStores(source, target);
console.log(JSON.stringify({ created: report.sessionsCreated, copied: report.entriesCopied }));
await target.close();
await source.close();
