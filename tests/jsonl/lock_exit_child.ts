/**
 * Child process for the lock-exit test: takes a session file's lock and never releases it,
 * then has nothing left to do. Its lock's refresh interval must not keep it alive (it
 * exits as after a crash: the lock stays, judged stale by its dead owner). Prints its pid.
 * Args: <dir>. Runs under Deno as is, under Node bundled (`tests/deno/jsonl_lock_exit.test.ts`).
 */
import process from "node:process";
import { NodeJsonlFolderFs } from "../../stores/jsonl/fs.ts";

const fs = new NodeJsonlFolderFs(process.argv.at(-1)!, { trashCommand: false });
await fs.lock("held.jsonl");
console.log(process.pid);
