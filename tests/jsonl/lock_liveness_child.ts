/**
 * Child process for the lock-liveness test (`tests/deno/jsonl_lock_liveness.test.ts`), run
 * with the README's permission set only. Args: <dir> hold | wait <timeoutMs>. `hold` takes
 * the lock of `held.jsonl`, prints "held" and stays alive until killed; `wait` waits for
 * the lock at most `timeoutMs` and prints "acquired" or the error's message.
 */
import process from "node:process";
import { NodeJsonlFolderFs } from "../../stores/jsonl/fs.ts";

const [dir, role, timeout = "0"] = process.argv.slice(2);
const fs = new NodeJsonlFolderFs(dir, { trashCommand: false });
if (role === "hold") {
  await fs.lock("held.jsonl");
  console.log("held");
  setInterval(() => {}, 60_000); // alive until killed
} else {
  try {
    const release = await fs.lock("held.jsonl", { timeoutMs: Number(timeout) });
    console.log("acquired");
    await release();
  } catch (error) {
    console.log((error as Error).message);
  }
}
