/**
 * A lock's refresh interval keeps no process alive (`stores/jsonl/_lockfile.ts`): a script
 * that took a lock and is done with its work exits, in Deno and in Node, instead of
 * refreshing the lock forever (Deno's `setInterval` returns a number, which has no
 * `unref()`). What is checked is that the child exits by itself; the watchdog only stops
 * one that never would.
 */
import { existsSync, readFileSync } from "node:fs";
import { assert, assertEquals } from "../conformance/assert.ts";
import { removeDir, tempDir } from "../jsonl/subjects.ts";
import { repoRoot } from "../jsonl/helpers.ts";

const canRun = Deno.permissions.querySync({ name: "run" }).state === "granted";
const CHILD = `${repoRoot}tests/jsonl/lock_exit_child.ts`;

/** Run `command` until it exits, or kill it after `watchdogMs`: its exit, and whether killed. */
async function exitOf(command: Deno.Command, watchdogMs: number) {
  const child = command.spawn();
  let killed = false;
  const watchdog = setTimeout(() => {
    killed = true;
    child.kill("SIGKILL");
  }, watchdogMs);
  const output = await child.output();
  clearTimeout(watchdog);
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes).trim();
  return { killed, code: output.code, stdout: text(output.stdout), stderr: text(output.stderr) };
}

/** The child under Deno, and under Node (bundled with esbuild, as the Node tests are). */
async function commands(dir: string): Promise<[string, Deno.Command][]> {
  const piped = { stdout: "piped", stderr: "piped", cwd: repoRoot } as const;
  const deno = new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", `--config=${repoRoot}deno.json`, "--allow-all", CHILD, dir],
    ...piped,
  });
  // Inside the repository, so that its npm packages resolve from node_modules.
  const bundle = `${repoRoot}dist/lock_exit/child.mjs`;
  const built = await new Deno.Command(`${repoRoot}node_modules/.bin/esbuild`, {
    args: [CHILD, "--bundle", "--platform=node", "--format=esm", "--packages=external"]
      .concat(["--target=node20", "--log-level=error", `--outfile=${bundle}`]),
    ...piped,
  }).output();
  assert(built.success, new TextDecoder().decode(built.stderr));
  const node = new Deno.Command(Deno.env.get("NODE_BINARY") ?? "node", {
    args: [bundle, dir],
    ...piped,
  });
  return [["deno", deno], ["node", node]];
}

Deno.test({
  name: "jsonl lock exit: a script holding a lock exits once its work is done (Deno and Node)",
  ignore: !canRun,
  fn: async () => {
    const dir = await tempDir();
    try {
      for (const [runtime, command] of await commands(dir)) {
        // The refresh runs every 7.5 s by default: a child kept alive by it is still running
        // after 20 s; one that exits by itself has long since done so.
        const exit = await exitOf(command, 20_000);
        assertEquals(exit.killed, false, `${runtime}: still running, kept alive by its lock`);
        assertEquals(exit.code, 0, `${runtime}: ${exit.stderr}`);
        const lock = `${dir}/held.jsonl.lock`;
        assert(existsSync(lock), `${runtime}: the lock was held`);
        assertEquals(JSON.parse(readFileSync(lock, "utf8")).pid, Number(exit.stdout));
        Deno.removeSync(lock); // judged stale anyway (its owner is gone): the next child's turn
      }
    } finally {
      await removeDir(dir);
    }
  },
});
