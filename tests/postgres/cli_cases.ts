/**
 * `mu import`, `mu ls` and `mu serve` with `--store postgres` against the test cluster
 * (Deno only: the CLI runs in-process, `mu serve` as a real process).
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runCli } from "../../cli/main.ts";
import type { CliContext } from "../../cli/context.ts";
import { assert, assertEquals } from "../conformance/assert.ts";
import { startServe } from "../cli/serve.ts";
import { removeDir, tempDir } from "../jsonl/subjects.ts";
import { fixturePath } from "../unit/fixtures.ts";
import { freshSchema, sharedCluster } from "./subject.ts";

const V4 = fixturePath("codec/v4.jsonl");
const V4_ID = "0b7c3f5e-4d2a-4c61-9e57-1f7a2b3c4d5e";

export function postgresCliCases(t: (name: string, fn: () => Promise<void>) => void): void {
  t("postgres (deno): mu import, ls and serve --store postgres", async () => {
    const { url } = await sharedCluster();
    const schema = freshSchema();
    const root = await tempDir("mu-pg-cli-");
    const agentDir = join(root, "agent");
    try {
      let stdout = "";
      const context: CliContext = {
        out: (text) => void (stdout += text),
        err: (text) => void (stdout += text),
        cwd: root,
        env: {
          PI_CODING_AGENT_DIR: agentDir,
          HOME: root,
          MU_SESSIONS_POSTGRES_URL: url,
          MU_SESSIONS_POSTGRES_SCHEMA: schema,
        },
        stderrIsTTY: false,
        ask: () => Promise.resolve(""),
      };
      assertEquals(await runCli(["import", "--store", "postgres", V4], context), 0, stdout);
      stdout = "";
      assertEquals(await runCli(["ls", "--all", "--json", "--store", "postgres"], context), 0);
      const listed = JSON.parse(stdout).sessions.map((row: { id: string }) => row.id);
      assertEquals(listed, [V4_ID]);

      // mu serve reads the server from the global settings (no environment variable).
      await mkdir(agentDir, { recursive: true });
      await writeFile(
        join(agentDir, "settings.json"),
        JSON.stringify({ sessions: { storage: { type: "postgres", url, schema } } }),
      );
      const serve = await startServe(agentDir, ["--store", "postgres"]);
      try {
        const sessions = await (await fetch(`${serve.origin}/api/sessions?internal=1`)).json();
        assertEquals(sessions.sessions.map((row: { id: string }) => row.id), [V4_ID]);
        const exported = await fetch(`${serve.origin}/api/sessions/${V4_ID}/export`);
        assert(exported.ok, `export: ${exported.status}`);
        assertEquals(await exported.text(), await readFile(V4, "utf8"), "byte-identical export");
      } finally {
        await serve.stop();
      }
    } finally {
      await removeDir(root);
    }
  });
}
