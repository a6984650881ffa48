/**
 * "Machines" for the `mu sync` tests: each is an agent folder of its own under one root
 * (home), with its own local store (the default SQLite database, or JSONL storage chosen in
 * its global settings), and runs `mu` as a real subprocess with that folder.
 */
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { SessionStore } from "../../src/store.ts";
import { openJsonlDirectory } from "../../stores/default/mod.ts";
import { openSqliteStore } from "../../stores/sqlite/file.ts";
import { type CliResult, muProcess } from "../cli/harness.ts";

/** One machine: its folders, its store as the agent there writes it, and its `mu`. */
export interface Machine {
  name: string;
  root: string;
  agentDir: string;
  cwd: string;
  /** The local store, as that machine's agent writes to it (close it before `mu` runs). */
  open(): Promise<SessionStore>;
  /** `mu ...args` on this machine; `env` adds variables (the server's for `--store postgres`). */
  mu(args: string[], env?: Record<string, string>): Promise<CliResult>;
  /** `mu sync ...args` with the server in the environment, as a user who configured it. */
  sync(args: string[]): Promise<CliResult>;
  /** The variables naming the server. */
  serverEnv: Record<string, string>;
  /** This machine's saved sync cursors. */
  cursorFiles(): Promise<string[]>;
}

/** Make a machine under `root` (the shared home): `<root>/<name>/agent`. */
export async function machine(
  root: string,
  name: string,
  storage: "sqlite" | "jsonl",
  server: { url: string; schema: string },
): Promise<Machine> {
  const agentDir = join(root, name, "agent");
  const cwd = join(root, name, "project");
  await mkdir(cwd, { recursive: true });
  await mkdir(agentDir, { recursive: true });
  if (storage === "jsonl") {
    await writeFile(
      join(agentDir, "settings.json"),
      JSON.stringify({ sessions: { storage: { type: "jsonl" } } }),
    );
  }
  const serverEnv = {
    MU_SESSIONS_POSTGRES_URL: server.url,
    MU_SESSIONS_POSTGRES_SCHEMA: server.schema,
  };
  const world = { root, agentDir, cwd, mu: () => Promise.reject(new Error("subprocess only")) };
  const mu = (args: string[], env: Record<string, string> = {}) =>
    muProcess(world, args, "", { HOME: root, ...env });
  return {
    name,
    root,
    agentDir,
    cwd,
    open: () =>
      storage === "sqlite"
        ? openSqliteStore(join(agentDir, "sessions.db"))
        : openJsonlDirectory(join(agentDir, "sessions")),
    mu,
    sync: (args) => mu(["sync", ...args], serverEnv),
    serverEnv,
    cursorFiles: async () =>
      (await readdir(join(agentDir, "mu-sync"))).map((file) => join(agentDir, "mu-sync", file)),
  };
}
