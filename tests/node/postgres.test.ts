/**
 * The PostgreSQL store on Node 20 against a throwaway cluster this file starts: the
 * conformance suite plus the PostgreSQL cases. Bundled by tests/node/run.ts and run with
 * `node --test`; for the writer processes the bundle re-runs itself as a writer
 * (MU_PG_WRITER set), since Node 20 cannot run the TypeScript writer directly.
 */
import { spawn } from "node:child_process";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { conformance } from "../conformance/mod.ts";
import { appendsPerWriter, postgresCases } from "../postgres/cases.ts";
import { postgresContextCases } from "../postgres/context_cases.ts";
import { postgresSearchCases } from "../postgres/search_cases.ts";
import { postgresSubject, stopSharedCluster } from "../postgres/subject.ts";
import { runWriter, type WriterArgs } from "../postgres/writer_core.ts";

const WRITER_ENV = "MU_PG_WRITER";
const self = fileURLToPath(import.meta.url);

function spawnWriter(args: WriterArgs): Promise<{ code: number; output: string }> {
  const env: Record<string, string | undefined> = { ...process.env };
  delete env.NODE_TEST_CONTEXT; // the child is a plain script, not a node:test child
  env[WRITER_ENV] = JSON.stringify(args);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [self], { env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => output += chunk);
    child.stderr.on("data", (chunk) => output += chunk);
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, output }));
  });
}

const writerArgs = process.env[WRITER_ENV];
if (writerArgs) {
  await runWriter(JSON.parse(writerArgs) as WriterArgs);
} else {
  conformance((name, fn) => test(name, fn), postgresSubject("node"));
  postgresCases((name, fn) => test(name, fn), {
    name: "node",
    spawnWriter,
    appends: appendsPerWriter((name) => process.env[name]),
  });
  postgresSearchCases((name, fn) => test(name, fn), "node");
  postgresContextCases((name, fn) => test(name, fn), "node");
  test("postgres: stop the test cluster", stopSharedCluster);
}
