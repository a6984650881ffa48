/**
 * A generated session in a temporary pi agent folder, served with a freshly built viewer by
 * `mu serve` (a real process), for the viewer's "This computer" tests.
 *
 * @module
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { serializeSessionJsonl } from "../../src/jsonl.ts";
import { buildViewer } from "../../web/build.ts";
import { type ServeProcess, startServe } from "../cli/serve.ts";
import { generatedSession, type TestSession } from "../unit/context_sessions.ts";

/** The served session, the running server and the folder to remove afterwards. */
export interface ServedSession {
  root: string;
  session: TestSession;
  server: ServeProcess;
}

/** Write `generatedSession(entries, seed)` where pi keeps sessions, then `mu serve` it. */
export async function serveGeneratedSession(
  prefix: string,
  entries: number,
  seed: number,
): Promise<ServedSession> {
  const root = await Deno.makeTempDir({ prefix });
  const agentDir = join(root, "agent");
  const folder = join(agentDir, "sessions", "--p--");
  await mkdir(folder, { recursive: true });
  const session = generatedSession(entries, seed);
  await Deno.writeTextFile(
    join(folder, `2026-04-01T00-00-00-000Z_${session.header.id}.jsonl`),
    serializeSessionJsonl(session.header, session.entries),
  );
  await buildViewer({ outDir: `${root}/viewer`, minify: false });
  const server = await startServe(agentDir, ["--root", `${root}/viewer`]);
  return { root, session, server };
}
