/**
 * The sync suite over every store pair in Deno (tests/conformance/sync_suite.ts), with a
 * throwaway PostgreSQL cluster for the pairs that have it. Needs --allow-run and --allow-net.
 */
import { syncPairs } from "../conformance/sync_suite.ts";
import { syncSubjects } from "../conformance/sync_subjects.ts";
import { stopSharedCluster } from "../postgres/subject.ts";

syncPairs((name, fn) => Deno.test(name, fn), syncSubjects("deno"));
Deno.test("sync pairs: stop the test cluster", stopSharedCluster);
