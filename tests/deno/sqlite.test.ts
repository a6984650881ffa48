/**
 * The SQLite store over node:sqlite in Deno: the conformance suite plus the SQLite cases.
 * Needs --allow-read --allow-write --allow-env, and --allow-run for the two-process test
 * (it starts two Deno appender processes; without the permission it is reported ignored).
 */
import { DatabaseSync } from "node:sqlite";
import { conformance } from "../conformance/mod.ts";
import { openSqliteStore } from "../../stores/sqlite/file.ts";
import { sqliteCases } from "../sqlite/cases.ts";
import { sqliteSubject, type SqliteTestRuntime } from "../sqlite/runtime.ts";

const fixtures = new URL("../../fixtures/sqlite/", import.meta.url);
const worker = new URL("../sqlite/append_worker.ts", import.meta.url);

const runtime: SqliteTestRuntime = {
  name: "node:sqlite",
  openStore: openSqliteStore,
  openRaw: (path) => new DatabaseSync(path),
  tempDir: () => Deno.makeTempDir({ prefix: "mu-sqlite-" }),
  removeDir: (dir) => Deno.remove(dir, { recursive: true }),
  readFixture: (name) => Deno.readTextFile(new URL(name, fixtures)),
  fileMode: async (path) => {
    try {
      return (await Deno.stat(path)).mode! & 0o777;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return undefined;
      throw error;
    }
  },
  spawnAppender: async (args) => {
    const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-read",
        "--allow-write",
        "--allow-env",
        worker.pathname,
        JSON.stringify(args),
      ],
      cwd: new URL("../../", import.meta.url).pathname,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const decoder = new TextDecoder();
    return { code, output: decoder.decode(stdout) + decoder.decode(stderr) };
  },
};

// Without --allow-run the two-process test shows as ignored instead of failing the run.
const canRun = Deno.permissions.querySync({ name: "run" }).state === "granted";

conformance((name, fn) => Deno.test(name, fn), sqliteSubject(runtime));
sqliteCases(
  (name, fn) => Deno.test({ name, fn, ignore: !canRun && name.includes("two processes") }),
  runtime,
);
