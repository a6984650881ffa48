/**
 * Where the agent directory and the default SQLite session database live. Pure path
 * computation: environment and home directory come in as arguments.
 *
 * @module
 */
import { homedir } from "node:os";

/**
 * The environment variables read here (`process.env`, `Deno.env.toObject()` both fit).
 *
 * @example
 * ```ts
 * import { type AgentEnv, agentDir } from "./agent_dir.ts";
 * const env: AgentEnv = { PI_CODING_AGENT_DIR: "/tmp/agent" };
 * agentDir(env, "/home/u"); // "/tmp/agent"
 * ```
 */
export type AgentEnv = Readonly<Record<string, string | undefined>>;

/** Join with the separator the base path already uses (a Windows home keeps `\`). */
function joinPath(base: string, ...parts: string[]): string {
  const sep = base.includes("\\") && !base.includes("/") ? "\\" : "/";
  return [base.replace(/[\\/]+$/, ""), ...parts].join(sep);
}

/** Absolute on POSIX or Windows (`/x`, `\\server\x`, `C:\x`), whatever the platform. */
function isAbsolutePath(path: string): boolean {
  return /^([\\/]|[A-Za-z]:[\\/])/.test(path);
}

/**
 * The agent directory: `$PI_CODING_AGENT_DIR` (a leading `~` means the home directory),
 * otherwise `<home>/.pi/agent`. A relative value is taken relative to the home directory,
 * never to the current directory: otherwise a repository shipping `agent/settings.json`
 * would choose the storage of anyone whose variable says `agent`.
 *
 * @example
 * ```ts
 * import { agentDir } from "./agent_dir.ts";
 * agentDir({}, "/home/u"); // "/home/u/.pi/agent"
 * agentDir({ PI_CODING_AGENT_DIR: "~/agent" }, "/home/u"); // "/home/u/agent"
 * agentDir({ PI_CODING_AGENT_DIR: "agent" }, "/home/u"); // "/home/u/agent", not ./agent
 * ```
 */
export function agentDir(env: AgentEnv, home: string): string {
  const configured = env.PI_CODING_AGENT_DIR;
  if (configured) {
    if (configured === "~") return home;
    if (configured.startsWith("~/") || configured.startsWith("~\\")) {
      return joinPath(home, configured.slice(2));
    }
    return isAbsolutePath(configured) ? configured : joinPath(home, configured);
  }
  return joinPath(home, ".pi", "agent");
}

/**
 * The default SQLite database: `<agentDir>/sessions.db`. `home` defaults to `$HOME`,
 * `$USERPROFILE`, then the OS home directory.
 *
 * @example
 * ```ts
 * import { defaultSqlitePath } from "./agent_dir.ts";
 * defaultSqlitePath({ PI_CODING_AGENT_DIR: "/tmp/agent" }); // "/tmp/agent/sessions.db"
 * ```
 */
export function defaultSqlitePath(env: AgentEnv, home?: string): string {
  const base = agentDir(env, home ?? env.HOME ?? env.USERPROFILE ?? homedir());
  return joinPath(base, "sessions.db");
}
