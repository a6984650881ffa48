/**
 * The store subjects the sync pairs run over, the same in Deno and Node (node: APIs only):
 * the memory store, a SQLite file (node:sqlite or better-sqlite3, whichever the runtime
 * has), a JSONL folder and PostgreSQL on the file's throwaway cluster.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqliteStore } from "../../stores/sqlite/file.ts";
import { jsonlFsSubject } from "../jsonl/subjects.ts";
import { postgresSubject } from "../postgres/subject.ts";
import { memorySubject } from "./faults.ts";
import type { StoreSubject } from "./harness.ts";
import type { SyncSubjects } from "./sync_suite.ts";

function sqliteFileSubject(name: string): StoreSubject {
  return {
    name,
    open: async () => {
      const dir = await mkdtemp(join(tmpdir(), "mu-sync-sqlite-"));
      return {
        store: await openSqliteStore(join(dir, "sessions.db")),
        cleanup: () => rm(dir, { recursive: true, force: true }),
      };
    },
  };
}

/** Every store kind, named for the test list (`runtime`: "deno", "node"). */
export function syncSubjects(runtime: string): SyncSubjects {
  return {
    memory: memorySubject(`memory (${runtime})`),
    sqlite: sqliteFileSubject(`sqlite (${runtime})`),
    jsonl: jsonlFsSubject(`jsonl (${runtime})`),
    postgres: postgresSubject(runtime),
  };
}
