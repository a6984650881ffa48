/**
 * Where the default SQLite session database lives, and how its file is created. Path
 * computation is pure (environment and home directory come in as arguments); file creation
 * uses `node:fs`, which Deno, Node 20 and Node >= 22.5 all provide.
 *
 * @module
 */
import { type SqliteDatabase, SqliteSessionStore, type SqliteStoreOptions } from "./sqlite.ts";
import { storageOperation } from "./store.ts";
import { closeSync, mkdirSync, openSync } from "node:fs";
import { homedir } from "node:os";
import { dirname } from "node:path";

/** The environment variables read here (`process.env`, `Deno.env.toObject()` both fit). */
export type AgentEnv = Readonly<Record<string, string | undefined>>;

/** Join with the separator the base path already uses (a Windows home keeps `\`). */
function joinPath(base: string, ...parts: string[]): string {
  const sep = base.includes("\\") && !base.includes("/") ? "\\" : "/";
  return [base.replace(/[\\/]+$/, ""), ...parts].join(sep);
}

/**
 * The agent directory: `$PI_CODING_AGENT_DIR` (a leading `~` means the home directory),
 * otherwise `<home>/.pi/agent`.
 *
 * @example
 * ```ts
 * import { agentDir } from "@mu/sessions/stores/agent_dir.ts";
 * agentDir({}, "/home/u"); // "/home/u/.pi/agent"
 * agentDir({ PI_CODING_AGENT_DIR: "~/agent" }, "/home/u"); // "/home/u/agent"
 * ```
 */
export function agentDir(env: AgentEnv, home: string): string {
  const configured = env.PI_CODING_AGENT_DIR;
  if (configured) {
    if (configured === "~") return home;
    if (configured.startsWith("~/") || configured.startsWith("~\\")) {
      return joinPath(home, configured.slice(2));
    }
    return configured;
  }
  return joinPath(home, ".pi", "agent");
}

/**
 * The default SQLite database: `<agentDir>/sessions.db`. `home` defaults to `$HOME`,
 * `$USERPROFILE`, then the OS home directory.
 *
 * @example
 * ```ts
 * import { defaultSqlitePath } from "@mu/sessions/stores/agent_dir.ts";
 * defaultSqlitePath({ PI_CODING_AGENT_DIR: "/tmp/agent" }); // "/tmp/agent/sessions.db"
 * ```
 */
export function defaultSqlitePath(env: AgentEnv, home?: string): string {
  const base = agentDir(env, home ?? env.HOME ?? env.USERPROFILE ?? homedir());
  return joinPath(base, "sessions.db");
}

/**
 * Create a database file (and missing parent directories, mode 0700) with mode 0600 before
 * SQLite opens it: sessions hold secrets, and SQLite gives its `-wal`/`-shm` files the
 * database file's permissions. An existing file is left as it is. Returns whether the file
 * was created.
 *
 * @example
 * ```ts
 * import { preparePrivateFile } from "@mu/sessions/stores/agent_dir.ts";
 * preparePrivateFile("/tmp/agent/sessions.db"); // true the first time
 * ```
 */
export function preparePrivateFile(path: string): boolean {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    closeSync(openSync(path, "wx", 0o600));
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === "EEXIST") return false;
    throw error;
  }
}

/**
 * Open a SQLite store on a local file through a driver's connect function: the file (and
 * its folders) is created private first, and the connection is closed if the store cannot
 * be set up on it. Shared by the node:sqlite and better-sqlite3 entry points.
 *
 * @example
 * ```ts
 * import { DatabaseSync } from "node:sqlite";
 * import { openLocalSqliteStore } from "@mu/sessions/stores/agent_dir.ts";
 * const store = await openLocalSqliteStore("/tmp/agent/sessions.db", (path) => new DatabaseSync(path));
 * ```
 */
export async function openLocalSqliteStore(
  path: string,
  connect: (path: string) => SqliteDatabase,
  options?: SqliteStoreOptions,
): Promise<SqliteSessionStore> {
  return await storageOperation(`open SQLite database ${path}`, () => {
    if (path !== ":memory:") preparePrivateFile(path);
    const db = connect(path);
    try {
      return new SqliteSessionStore(db, options);
    } catch (error) {
      db.close();
      throw error;
    }
  });
}
