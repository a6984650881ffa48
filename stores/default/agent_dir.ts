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
 * import { type AgentEnv, resolveAgentDir } from "@mu/sessions/stores/default";
 * const env: AgentEnv = { PI_CODING_AGENT_DIR: "/tmp/agent" };
 * resolveAgentDir({ env }); // "/tmp/agent"
 * ```
 */
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
 * import { agentDir } from "./agent_dir.ts";
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
 * import { defaultSqlitePath } from "./agent_dir.ts";
 * defaultSqlitePath({ PI_CODING_AGENT_DIR: "/tmp/agent" }); // "/tmp/agent/sessions.db"
 * ```
 */
export function defaultSqlitePath(env: AgentEnv, home?: string): string {
  const base = agentDir(env, home ?? env.HOME ?? env.USERPROFILE ?? homedir());
  return joinPath(base, "sessions.db");
}
