/**
 * A pi user follows the README: their sessions are in `~/.pi/agent/sessions/--<cwd>--/`
 * (pi's own fixture files here, nothing imported, no PI_CODING_AGENT_DIR set), they run
 * `npm start` (with `-- --port 0`, the flag-passing the viewer page documents, so the test
 * takes a free port), and the viewer's API lists those sessions, each saying where it lives.
 */
import { assert, assertEquals } from "../conformance/assert.ts";
import { copyFixture } from "../jsonl/helpers.ts";
import { removeDir, tempDir } from "../jsonl/subjects.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
/** The sessions of fixtures/pi-layout that parse (one file there is torn on purpose). */
const PI_SESSIONS = [
  "11111111-1111-4111-8111-111111111111",
  "22222222-2222-4222-8222-222222222222",
  "33333333-3333-4333-8333-333333333333",
  "44444444-4444-4444-8444-444444444444",
  "66666666-6666-4666-8666-666666666666",
];

interface ListedSession {
  id: string;
  path: string;
  source?: { kind: string; location: string };
}

Deno.test({
  name: "docs: a pi user's `npm start` lists the sessions pi wrote, with where they live",
  sanitizeResources: false,
  async fn() {
    const home = await tempDir("mu-pi-user-");
    const sessions = `${home}/.pi/agent/sessions`;
    await Deno.mkdir(sessions, { recursive: true });
    await copyFixture("pi-layout", sessions);
    const env: Record<string, string> = { HOME: home, NO_COLOR: "1", PATH: Deno.env.get("PATH")! };
    // Its own process group (setsid), so the test can stop npm and the `mu serve` it runs.
    const npm = new Deno.Command("setsid", {
      args: ["npm", "start", "--", "--port", "0"],
      cwd: ROOT,
      env,
      clearEnv: true, // no PI_CODING_AGENT_DIR or MU_* from the caller: the README's defaults
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const reader = npm.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let printed = "";
    /** Read what npm start prints until `seen` holds or `ms` pass; false on timeout. */
    const readUntil = async (seen: () => boolean, ms: number) => {
      const deadline = Date.now() + ms;
      while (!seen()) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const timeout = new Promise<"timeout">((resolve) => {
          timer = setTimeout(() => resolve("timeout"), Math.max(0, deadline - Date.now()));
        });
        const next = await Promise.race([reader.read(), timeout]);
        clearTimeout(timer);
        if (next === "timeout") return false;
        if (next.done) throw new Error(`npm start ended before serving:\n${printed}`);
        printed += next.value;
      }
      return true;
    };
    try {
      // The first run builds the viewer, hence the generous bound.
      const url = /http:\/\/\S+\//;
      assert(await readUntil(() => url.test(printed), 180_000), `no URL:\n${printed}`);
      // It says what it serves, with the paths: the default database and pi's folder.
      await readUntil(() => printed.includes(sessions), 5_000);
      assert(printed.includes(sessions), `pi's folder not named:\n${printed}`);
      assert(printed.includes(`${home}/.pi/agent/sessions.db`), printed);
      const origin = new URL(printed.match(url)![0]).origin;
      const listing = await (await fetch(`${origin}/api/sessions?limit=100`)).json();
      const rows = listing.sessions as ListedSession[];
      assertEquals(rows.map((row) => row.id).sort(), PI_SESSIONS, JSON.stringify(listing));
      for (const row of rows) {
        assertEquals(row.source?.location, sessions, JSON.stringify(row));
        assert(row.path.startsWith(`${sessions}/`), row.path);
      }
      // A session opens where it lives, with nothing imported.
      const opened = await fetch(`${origin}/api/sessions/${PI_SESSIONS[0]}/context`);
      assertEquals(opened.status, 200);
      assert(JSON.stringify(await opened.json()).includes("Fix the flaky test"));
    } finally {
      Deno.kill(-npm.pid, "SIGTERM");
      await npm.status;
      await reader.cancel().catch(() => {});
      await npm.stderr.cancel().catch(() => {});
      await removeDir(home);
    }
  },
});
