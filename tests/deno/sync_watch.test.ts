/**
 * `mu sync --watch` as a real process against a real PostgreSQL cluster of its own (this
 * file stops and restarts it): a local append reaches the server within 2 s; with the
 * server stopped for 10 s and started again on the same port and data, the same watcher
 * catches up, having said so in one line each way; Ctrl-C ends it with exit 0 and the
 * cursor saved.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { openPostgresStore } from "../../stores/postgres/store.ts";
import { assert, assertEquals } from "../conformance/assert.ts";
import { header, userEntry } from "../conformance/store_suite.ts";
import { removeDir, tempDir } from "../jsonl/subjects.ts";
import { startCluster } from "../postgres/cluster.ts";
import { chain } from "../conformance/sync_chain.ts";
import { machine } from "./sync_machines.ts";

const MAIN = new URL("../../cli/mu.ts", import.meta.url).pathname;

/** Poll `check` until it is true or `ms` have passed; whether it became true. */
async function eventually(ms: number, check: () => Promise<boolean>): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check().catch(() => false)) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

Deno.test("mu sync --watch: pushes appends, rides out a server restart, stops on Ctrl-C", async () => {
  const cluster = await startCluster();
  const root = await tempDir("mu-sync-watch-");
  const schema = "watched";
  try {
    const laptop = await machine(root, "laptop", "sqlite", { url: cluster.url, schema });
    const local = await laptop.open();
    await local.create(header("w"), chain(2, "w"));
    await local.close();

    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-all", MAIN, "sync", "--to", "postgres", "--watch"],
      cwd: laptop.cwd,
      env: { PI_CODING_AGENT_DIR: laptop.agentDir, HOME: root, ...laptop.serverEnv },
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const output = child.output();
    const entryCount = async () => {
      const server = await openPostgresStore({ url: cluster.url, schema, max: 1 });
      try {
        return (await server.has("w")) ? (await server.load("w")).entries.length : 0;
      } finally {
        await server.close();
      }
    };
    const append = async (id: string, parentId: string) => {
      const store = await laptop.open();
      await store.append("w", [userEntry(id, parentId, id)]);
      await store.close();
    };
    // A step that fails is told with the watcher's own log (read once it has stopped).
    let failed: string | undefined;
    const step = (ok: boolean, what: string) => failed ??= ok ? undefined : what;
    try {
      step(await eventually(30_000, async () => (await entryCount()) === 2), "first sync");
      if (!failed) await append("w-2", "w-1");
      if (!failed) {
        step(await eventually(2_000, async () => (await entryCount()) === 3), "pushed within 2 s");
      }
      if (!failed) {
        await cluster.crash();
        await append("w-3", "w-2"); // written while the server is away
        await new Promise((resolve) => setTimeout(resolve, 10_000));
        await cluster.start();
        step(
          await eventually(15_000, async () => (await entryCount()) === 4),
          "caught up after the restart",
        );
      }
    } finally {
      child.kill("SIGINT");
    }
    const { code, stderr, stdout } = await output;
    const log = new TextDecoder().decode(stderr);
    assert(!failed, `${failed}; the watcher said:\n${log}${new TextDecoder().decode(stdout)}`);
    assertEquals(code, 0, log);
    assertEquals(log.split("retrying until it answers").length - 1, 1, log);
    assert(log.includes("is back; caught up"), log);
    assert(log.includes("stopped; the cursor is saved"), log);
    const [file] = await readdir(join(laptop.agentDir, "mu-sync"));
    const saved = JSON.parse(await readFile(join(laptop.agentDir, "mu-sync", file), "utf8"));
    assert(typeof saved.cursor.push.w === "string", JSON.stringify(saved));
  } finally {
    await removeDir(root);
    await cluster.stop();
  }
});
