/**
 * The PostgreSQL store against a throwaway cluster this file starts (tests/postgres/
 * cluster.ts): the conformance suite plus the PostgreSQL cases. Needs --allow-run (initdb,
 * pg_ctl, writer processes), --allow-net, --allow-read/write/env. Without a PostgreSQL
 * server to start, every test here fails saying so.
 */
import { conformance } from "../conformance/mod.ts";
import { appendsPerWriter, postgresCases } from "../postgres/cases.ts";
import { postgresContextCases } from "../postgres/context_cases.ts";
import { postgresCliCases } from "../postgres/cli_cases.ts";
import { postgresSearchCases } from "../postgres/search_cases.ts";
import { postgresSubject, stopSharedCluster } from "../postgres/subject.ts";
import type { WriterArgs } from "../postgres/writer_core.ts";

const writer = new URL("../postgres/writer.ts", import.meta.url).pathname;

async function spawnWriter(args: WriterArgs) {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-net", "--allow-env", "--allow-read", writer, JSON.stringify(args)],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return { code, output: decoder.decode(stdout) + decoder.decode(stderr) };
}

conformance((name, fn) => Deno.test(name, fn), postgresSubject("deno"));
postgresCases((name, fn) => Deno.test(name, fn), {
  name: "deno",
  spawnWriter,
  appends: appendsPerWriter((name) => Deno.env.get(name)),
});
postgresCliCases((name, fn) => Deno.test(name, fn));
postgresSearchCases((name, fn) => Deno.test(name, fn), "deno");
postgresContextCases((name, fn) => Deno.test(name, fn), "deno");
Deno.test("postgres: stop the test cluster", stopSharedCluster);
