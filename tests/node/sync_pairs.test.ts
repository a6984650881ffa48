/**
 * The sync suite over every store pair under Node 20 (SQLite through better-sqlite3), with
 * a throwaway PostgreSQL cluster for the pairs that have it. Bundled by tests/node/run.ts.
 */
import { test } from "node:test";
import { syncPairs } from "../conformance/sync_suite.ts";
import { syncSubjects } from "../conformance/sync_subjects.ts";
import { stopSharedCluster } from "../postgres/subject.ts";

syncPairs((name, fn) => test(name, fn), syncSubjects("node"));
test("sync pairs: stop the test cluster", stopSharedCluster);
