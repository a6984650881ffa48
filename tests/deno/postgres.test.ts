/**
 * The PostgreSQL store against a throwaway cluster this file starts (tests/postgres/
 * cluster.ts): the conformance suite plus the PostgreSQL cases. Needs --allow-run (initdb,
 * pg_ctl, writer processes), --allow-net, --allow-read/write/env.
 */
import { conformance } from "../conformance/mod.ts";
import { postgresSubject, stopSharedCluster } from "../postgres/subject.ts";

conformance((name, fn) => Deno.test(name, fn), postgresSubject("deno"));
Deno.test("postgres: stop the test cluster", stopSharedCluster);
