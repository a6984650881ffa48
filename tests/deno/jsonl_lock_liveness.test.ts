/**
 * A killed JSONL writer does not block its session under the README's narrower Deno
 * permissions (`--allow-read --allow-write --allow-env`: no `--allow-run` to ask whether
 * the owner's pid lives, no `--allow-sys` for the host name): the owner's OS lock on the
 * lock file (`stores/jsonl/_os_lock.ts`) dies with it, so the next writer takes the lock
 * within a wait far shorter than the 30 s after which an unrefreshed lock counts as stale.
 * While the owner lives, the same wait times out.
 */
import { assertEquals } from "../conformance/assert.ts";
import { removeDir, tempDir } from "../jsonl/subjects.ts";
import { repoRoot } from "../jsonl/helpers.ts";

const canRun = Deno.permissions.querySync({ name: "run" }).state === "granted";
const CHILD = `${repoRoot}tests/jsonl/lock_liveness_child.ts`;
const README_PERMISSIONS = ["--allow-read", "--allow-write", "--allow-env"];

function child(args: string[]): Deno.Command {
  return new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      `--config=${repoRoot}deno.json`,
      ...README_PERMISSIONS,
      CHILD,
      ...args,
    ],
    stdout: "piped",
    stderr: "piped",
    cwd: repoRoot,
  });
}

async function waitFor(dir: string, timeoutMs: number): Promise<string> {
  const output = await child([dir, "wait", String(timeoutMs)]).output();
  return new TextDecoder().decode(output.stdout).trim();
}

Deno.test({
  name:
    "jsonl lock liveness: a killed owner's lock is taken at once under --allow-read --allow-write --allow-env",
  ignore: !canRun,
  fn: async () => {
    const dir = await tempDir();
    const holder = child([dir, "hold"]).spawn();
    try {
      const reader = holder.stdout.pipeThrough(new TextDecoderStream()).getReader();
      assertEquals((await reader.read()).value?.trim(), "held");
      reader.releaseLock();
      const alive = await waitFor(dir, 1_500);
      assertEquals(alive.startsWith("Timed out"), true, `a live owner keeps its lock: ${alive}`);
      holder.kill("SIGKILL");
      await holder.status;
      assertEquals(await waitFor(dir, 8_000), "acquired", "a killed owner's lock is free");
    } finally {
      try {
        holder.kill("SIGKILL");
      } catch {
        // already gone
      }
      await holder.stdout.cancel().catch(() => {});
      await holder.stderr.cancel().catch(() => {});
      await removeDir(dir);
    }
  },
});
