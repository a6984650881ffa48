/**
 * The SQLite store over better-sqlite3 on Node 20: the conformance suite plus the SQLite
 * cases. Bundled by tests/node/run.ts and run with `node --test`. For the two-process test
 * the bundle re-runs itself as the appender (MU_SQLITE_APPEND_WORKER set), since Node 20
 * cannot run the TypeScript worker directly.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import Database from "better-sqlite3";
import { conformance } from "../conformance/mod.ts";
import type { SqliteDatabase } from "../../stores/sqlite/store.ts";
import { openSqliteStore } from "../../stores/sqlite/file.ts";
import { type AppendWorkerArgs, runAppendWorker } from "../sqlite/append_worker_core.ts";
import { sqliteCases } from "../sqlite/cases.ts";
import { sqliteSubject, type SqliteTestRuntime } from "../sqlite/runtime.ts";

const WORKER_ENV = "MU_SQLITE_APPEND_WORKER";
const self = fileURLToPath(import.meta.url);

/** fixtures/sqlite from the bundle (dist/node-tests/node/) or from the repo root (cwd). */
function fixturesDir(): string {
  const fromBundle = fileURLToPath(new URL("../../../fixtures/sqlite/", import.meta.url));
  return existsSync(fromBundle) ? fromBundle : join(process.cwd(), "fixtures", "sqlite");
}

function spawnAppender(args: AppendWorkerArgs): Promise<{ code: number; output: string }> {
  const env: Record<string, string | undefined> = { ...process.env };
  delete env.NODE_TEST_CONTEXT; // the child is a plain script, not a node:test child
  env[WORKER_ENV] = JSON.stringify(args);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [self], { env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => output += chunk);
    child.stderr.on("data", (chunk) => output += chunk);
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, output }));
  });
}

const runtime: SqliteTestRuntime = {
  name: "better-sqlite3",
  openStore: openSqliteStore,
  openRaw: (path) => new (Database as unknown as new (path: string) => SqliteDatabase)(path),
  tempDir: () => mkdtemp(join(tmpdir(), "mu-sqlite-")),
  removeDir: (dir) => rm(dir, { recursive: true, force: true }),
  readFixture: (name) => readFile(join(fixturesDir(), name), "utf8"),
  fileMode: async (path) => {
    try {
      return (await stat(path)).mode & 0o777;
    } catch (error) {
      if ((error as { code?: string }).code === "ENOENT") return undefined;
      throw error;
    }
  },
  spawnAppender,
};

const workerArgs = process.env[WORKER_ENV];
if (workerArgs) {
  const args = JSON.parse(workerArgs) as AppendWorkerArgs;
  const store = await openSqliteStore(args.path);
  try {
    await runAppendWorker(store, args);
  } finally {
    await store.close();
  }
} else {
  conformance((name, fn) => test(name, fn), sqliteSubject(runtime));
  sqliteCases((name, fn) => test(name, fn), runtime);
}
