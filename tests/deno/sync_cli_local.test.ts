/**
 * `mu sync` between local stores, in-process (no server): a JSONL folder or a SQLite file as
 * the other side, pulling, the progress line drawn only on a terminal, and `--watch`
 * stopped by Ctrl-C through the context (the real process is in sync_watch.test.ts).
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { runCli } from "../../cli/main.ts";
import type { CliContext } from "../../cli/context.ts";
import { openJsonlDirectory } from "../../stores/default/mod.ts";
import { openSqliteStore } from "../../stores/sqlite/file.ts";
import { assert, assertEquals } from "../conformance/assert.ts";
import { header } from "../conformance/store_suite.ts";
import { removeDir, tempDir } from "../jsonl/subjects.ts";
import { chain } from "../conformance/sync_chain.ts";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** A machine with the default SQLite store, its `mu` run in-process. */
async function world(
  fn: (w: {
    root: string;
    agentDir: string;
    mu(
      args: string[],
      options?: { tty?: boolean; interrupt?: (stop: () => void) => void },
    ): Promise<Run>;
  }) => Promise<void>,
) {
  const root = await tempDir("mu-sync-local-");
  const agentDir = join(root, "agent");
  try {
    await fn({
      root,
      agentDir,
      async mu(args, options = {}) {
        let stdout = "";
        let stderr = "";
        const context: CliContext = {
          out: (text) => void (stdout += text),
          err: (text) => void (stderr += text),
          cwd: root,
          env: { PI_CODING_AGENT_DIR: agentDir, HOME: root },
          stderrIsTTY: options.tty === true,
          ask: () => Promise.resolve(""),
          onInterrupt: options.interrupt && ((handler) => {
            options.interrupt!(handler);
            return () => {};
          }),
        };
        const code = await runCli(args, context);
        return { code, stdout, stderr };
      },
    });
  } finally {
    await removeDir(root);
  }
}

Deno.test("mu sync: push to a JSONL folder, pull into another machine's SQLite file", async () => {
  await world(async ({ root, agentDir, mu }) => {
    const local = await openSqliteStore(join(agentDir, "sessions.db"));
    await local.create(header("one"), chain(3, "one"));
    await local.create(header("two"), chain(2, "two"));
    await local.close();
    const pushed = await mu(["sync", "--to", "folder"]);
    assertEquals(pushed.code, 0, pushed.stderr);
    assert(pushed.stdout.includes("2 sessions created, 5 entries copied"), pushed.stdout);
    const folder = await openJsonlDirectory(join(root, "folder"));
    assertEquals((await folder.list()).map((info) => info.id).sort(), ["one", "two"]);
    await folder.create(header("three"), chain(1, "three"));
    await folder.close();

    const pulled = await mu(["sync", "--from", "folder", "--json"]);
    assertEquals(pulled.code, 0, pulled.stderr);
    const report = JSON.parse(pulled.stdout);
    assertEquals([report.pull.sessionsCreated, report.push], [1, undefined]);
    const other = await mu(["sync", "--to", "other.db"]);
    assertEquals(other.code, 0, other.stderr);
    const copy = await openSqliteStore(join(root, "other.db"));
    assertEquals((await copy.list()).length, 3);
    await copy.close();
  });
});

Deno.test("mu sync: a pi file already migrated is synced once and not reported as skipped", async () => {
  await world(async ({ root, agentDir, mu }) => {
    // After `mu migrate`, the session is in the default store and its pi file stays.
    const pi = await openJsonlDirectory(join(agentDir, "sessions"));
    await pi.create(header("one"), chain(3, "one"));
    await pi.close();
    const local = await openSqliteStore(join(agentDir, "sessions.db"));
    await local.create(header("one"), chain(3, "one"));
    await local.close();
    for (const round of [1, 2]) {
      const pushed = await mu(["sync", "--to", "folder", "--json"]);
      assertEquals(pushed.code, 0, pushed.stderr);
      const report = JSON.parse(pushed.stdout).push;
      assertEquals(report.skipped, [], `round ${round}`);
      assertEquals(report.sessionsCreated, round === 1 ? 1 : 0, `round ${round}`);
    }
    const folder = await openJsonlDirectory(join(root, "folder"));
    assertEquals((await folder.list()).map((info) => info.id), ["one"]);
    await folder.close();
  });
});

Deno.test("mu sync: a torn pi file is named with the command that repairs it", async () => {
  await world(async ({ agentDir, mu }) => {
    const pi = await openJsonlDirectory(join(agentDir, "sessions"));
    await pi.create(header("good"), chain(2, "good"));
    await pi.close();
    await Deno.writeTextFile(
      join(agentDir, "sessions", "torn.jsonl"),
      JSON.stringify(header("torn")) + "\n" + '{"type":"message","id":"x1"',
    );
    const pushed = await mu(["sync", "--to", "folder"]);
    assert(pushed.stdout.includes("torn.jsonl"), pushed.stdout);
    assert(pushed.stdout.includes("mu repair <file> drops it, keeping a backup"), pushed.stdout);
  });
});

Deno.test("mu sync: a progress line on a terminal's stderr only", async () => {
  await world(async ({ agentDir, mu }) => {
    const local = await openSqliteStore(join(agentDir, "sessions.db"));
    await local.create(header("one"), chain(1, "one"));
    await local.create(header("two"), chain(1, "two"));
    await local.close();
    const tty = await mu(["sync", "--to", "a"], { tty: true });
    assert(tty.stderr.includes("\r\x1b[Kmu sync: push 2/2 sessions"), JSON.stringify(tty.stderr));
    const piped = await mu(["sync", "--to", "b"]);
    assertEquals(piped.stderr, "");
  });
});

Deno.test("mu sync --watch: Ctrl-C ends it with exit 0 and the cursor saved", async () => {
  await world(async ({ agentDir, root, mu }) => {
    const local = await openSqliteStore(join(agentDir, "sessions.db"));
    await local.create(header("one"), chain(2, "one"));
    await local.close();
    let stop = () => {};
    const running = mu(["sync", "--to", "watched", "--watch"], {
      interrupt: (handler) => void (stop = handler),
    });
    const target = join(root, "watched");
    for (let i = 0; i < 200; i++) {
      const found = await readdir(target, { recursive: true }).catch(() => []);
      if (found.some((name) => String(name).endsWith(".jsonl"))) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    stop();
    const run = await running;
    assertEquals(run.code, 0, run.stderr);
    assert(run.stderr.includes("stopped; the cursor is saved"), run.stderr);
    assertEquals((await readdir(join(agentDir, "mu-sync"))).length, 1);
    const again = await mu(["sync", "--to", "watched", "--json"]);
    assertEquals(JSON.parse(again.stdout).push.sessionsUnchanged, 1, "the watch's cursor is used");
  });
});
