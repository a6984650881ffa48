/**
 * The storage a factory gets when it is not handed a store (Deno and Node), registered as
 * the library's {@link RuntimeStorage} when this module is imported. In order:
 *
 * 1. an explicit store;
 * 2. an explicit directory (`--session-dir`, a `sessionDir` argument): JSONL there;
 * 3. a PostgreSQL server named by `$MU_SESSIONS_POSTGRES_URL` (optional schema in
 *    `$MU_SESSIONS_POSTGRES_SCHEMA`);
 * 4. settings `sessions.storage` (or the older `sessionDir`): the project's
 *    `.pi/settings.json` when the project is trusted (`trust.ts`), else the global
 *    `<agentDir>/settings.json`. Only the user's own choices (global settings, the
 *    environment) can send sessions to a PostgreSQL server: a project's settings that select
 *    one are refused with `SessionStorageError`, trusted or not, so a repository can never
 *    send its user's transcripts to a server the user did not choose;
 * 5. the SQLite database `<agentDir>/sessions.db` (`$PI_CODING_AGENT_DIR` or `~/.pi/agent`).
 *
 * A store that cannot be opened rejects; nothing ever falls back to memory.
 *
 * @module
 */
import { homedir } from "node:os";
import { isAbsolute, join, relative, resolve } from "node:path";
import process from "node:process";
import { SessionStorageError } from "../../src/errors.ts";
import { registerRuntimeStorage, type RuntimeStorage } from "../../src/runtime.ts";
import type { SessionStore } from "../../src/store.ts";
import { agentDir as agentDirFor, type AgentEnv } from "./agent_dir.ts";
import type { Durability } from "../jsonl/fs.ts";
import { listingCacheFor, openJsonlFile, readLocalFile } from "../jsonl/_local.ts";
import {
  defaultProjectTrustOf,
  findProjectSettings,
  readSettingsFile,
  type StorageSetting,
  storageSettingOf,
} from "./settings.ts";
import { canonicalDir, resolveProjectTrust, type TrustDecision } from "./trust.ts";
import { POSTGRES_URL_ENV } from "./_postgres_env.ts";
import { openJsonlDirectory, openStorage } from "./_open.ts";

// Types the public options and results below refer to.
export type { TrustDecision } from "./trust.ts";
export { openJsonlDirectory, openStorage } from "./_open.ts";

/**
 * Inputs of the storage decision.
 *
 * @example
 * ```ts
 * import { type StorageOptions } from "@mu/sessions/stores/default";
 * const options: StorageOptions = { cwd: "/work/repo", approve: false };
 * ```
 */
export interface StorageOptions {
  /** Working directory (project settings and trust); default `process.cwd()`. */
  cwd?: string;
  /** An explicit store wins over everything. */
  store?: SessionStore;
  /** An explicit JSONL directory (`--session-dir`). */
  sessionDir?: string;
  /** One-run trust override: `true` = `--approve`, `false` = `--no-approve`. */
  approve?: boolean;
  /** Environment (default `process.env`): `PI_CODING_AGENT_DIR`, `HOME`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Home directory (default `$HOME`, `$USERPROFILE`, the OS home). */
  home?: string;
  /** Agent directory (default from `env`). */
  agentDir?: string;
  /** Open a SQLite database (default: the runtime's SQLite driver). */
  openSqlite?: (path: string) => Promise<SessionStore>;
  /** `"relaxed"`: appends without `fsync` (JSONL; SQLite `synchronous=NORMAL`). Default durable. */
  durability?: Durability;
}

/**
 * The decided storage, before anything is opened.
 *
 * @example
 * ```ts
 * import { type StorageChoice } from "@mu/sessions/stores/default";
 * const choice: StorageChoice = { kind: "sqlite", path: "/home/u/.pi/agent/sessions.db", source: "default" };
 * ```
 */
export type StorageChoice =
  & (
    | { kind: "store"; store: SessionStore }
    | { kind: "jsonl"; dir: string }
    | { kind: "sqlite"; path: string }
    | { kind: "postgres"; url: string; schema?: string }
  )
  & {
    /** Where the decision came from. */
    source: "explicit" | "environment" | "project-settings" | "global-settings" | "default";
    /** The settings file that chose it. */
    settingsPath?: string;
    /** Project trust, when a project settings file was found. */
    trust?: TrustDecision;
    /** A project settings file left unread because the project is not trusted. */
    ignoredProjectSettings?: string;
    /**
     * The project directory the agent directory lies inside (e.g. `PI_CODING_AGENT_DIR` set
     * to `<repo>/.pi`): the repository's files then act as the global settings and trust
     * decisions, without a trust prompt. Set so callers can say so; the home directory is
     * never a project.
     */
    agentDirInProject?: string;
  };

/** Where a storage decision came from. */
type StorageSource = StorageChoice["source"];

/** How a storage decision was reached, beside its source. */
type ChoiceContext = Partial<
  Pick<StorageChoice, "settingsPath" | "trust" | "ignoredProjectSettings" | "agentDirInProject">
>;

function environment(options: StorageOptions): AgentEnv {
  if (options.env) return options.env;
  try {
    return process.env;
  } catch {
    return {}; // Deno without --allow-env: defaults only
  }
}

/**
 * The agent directory for these options: explicit, `$PI_CODING_AGENT_DIR`, or `~/.pi/agent`.
 *
 * @example
 * ```ts
 * import { resolveAgentDir } from "@mu/sessions/stores/default";
 * resolveAgentDir({ env: { PI_CODING_AGENT_DIR: "/tmp/agent" } }); // "/tmp/agent"
 * ```
 */
export function resolveAgentDir(options: StorageOptions = {}): string {
  if (options.agentDir) return resolve(options.agentDir);
  const configured = environment(options).PI_CODING_AGENT_DIR;
  if (configured && isAbsolute(configured)) return resolve(configured);
  const home = homeOf(options);
  if (home === undefined) {
    throw new SessionStorageError(
      configured
        ? `Cannot resolve PI_CODING_AGENT_DIR=${configured}: relative values are taken from the home directory, which is unknown`
        : "Cannot find the home directory for ~/.pi/agent: set PI_CODING_AGENT_DIR or HOME",
    );
  }
  return resolve(agentDirFor(environment(options), home));
}

/** The home directory, or undefined when it cannot be known (Deno without --allow-sys). */
function homeOf(options: StorageOptions): string | undefined {
  const env = environment(options);
  if (options.home ?? env.HOME ?? env.USERPROFILE) {
    return options.home ?? env.HOME ?? env.USERPROFILE;
  }
  try {
    return homedir();
  } catch {
    return undefined;
  }
}

/**
 * Decide the storage without opening it (the order is in the module doc).
 *
 * @example
 * ```ts
 * import { resolveStorageChoice } from "@mu/sessions/stores/default";
 * const choice = await resolveStorageChoice({ cwd: "/work/repo" });
 * choice.kind; // "sqlite" unless settings say otherwise
 * ```
 */
export async function resolveStorageChoice(options: StorageOptions = {}): Promise<StorageChoice> {
  if (options.store) return { kind: "store", store: options.store, source: "explicit" };
  if (options.sessionDir !== undefined) {
    return { kind: "jsonl", dir: resolve(options.sessionDir), source: "explicit" };
  }
  const fromEnv = environmentChoice(options);
  if (fromEnv) return fromEnv;
  const agentDir = resolveAgentDir(options);
  const home = homeOf(options);
  // Canonical, like trust decisions: a symlinked checkout resolves paths as the real one.
  const cwd = await canonicalDir(options.cwd ?? process.cwd());
  const globalPath = join(agentDir, "settings.json");
  const global = await readSettingsFile(globalPath);
  const extra: ChoiceContext = {};
  const project = await findProjectSettings(cwd, { home, agentDir });
  const projectDir = project?.projectDir ?? cwd;
  if (isInside(agentDir, projectDir) && !(home && isInside(resolve(home), projectDir))) {
    extra.agentDirInProject = projectDir;
  }
  if (project) {
    const trust = await resolveProjectTrust({
      cwd,
      agentDir,
      approve: options.approve,
      defaultProjectTrust: defaultProjectTrustOf(global),
    });
    extra.trust = trust;
    if (trust.trusted) {
      const settings = await readSettingsFile(project.path);
      const chosen = storageSettingOf(settings, project.projectDir, home, project.path);
      if (chosen?.type === "postgres") {
        throw new SessionStorageError(
          `${project.path}: a project's settings cannot send sessions to a PostgreSQL server ` +
            `(a repository must not choose where your transcripts go); set sessions.storage in ` +
            `${globalPath} or ${POSTGRES_URL_ENV} instead`,
        );
      }
      if (chosen) return choiceOf(chosen, agentDir, "project-settings", project.path, extra);
    } else {
      extra.ignoredProjectSettings = project.path;
    }
  }
  const chosen = storageSettingOf(global, agentDir, home, globalPath);
  if (chosen) return choiceOf(chosen, agentDir, "global-settings", globalPath, extra);
  return { kind: "sqlite", path: join(agentDir, "sessions.db"), source: "default", ...extra };
}

/** Whether `path` is `dir` or below it. */
function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/**
 * The PostgreSQL server the user chose (`$MU_SESSIONS_POSTGRES_URL`, else a `postgres`
 * `sessions.storage` in the global settings; never a project's), for `--store postgres`.
 * Rejects with `SessionStorageError` when the user chose none.
 *
 * @example
 * ```ts
 * import { openStorage, resolvePostgresChoice } from "@mu/sessions/stores/default";
 * const store = await openStorage(await resolvePostgresChoice({ env: { MU_SESSIONS_POSTGRES_URL: "postgres://db/s" } }));
 * ```
 */
export async function resolvePostgresChoice(
  options: Omit<StorageOptions, "store" | "sessionDir" | "cwd"> = {},
): Promise<StorageChoice> {
  const fromEnv = environmentChoice(options);
  if (fromEnv) return fromEnv;
  const agentDir = resolveAgentDir(options);
  const globalPath = join(agentDir, "settings.json");
  const global = await readSettingsFile(globalPath);
  const chosen = storageSettingOf(global, agentDir, homeOf(options), globalPath);
  if (chosen?.type === "postgres") {
    return choiceOf(chosen, agentDir, "global-settings", globalPath, {});
  }
  throw new SessionStorageError(
    `No PostgreSQL server configured: set ${POSTGRES_URL_ENV}, or sessions.storage ` +
      `{ "type": "postgres", "url": ... } in ${globalPath}`,
  );
}

/** The PostgreSQL server `$MU_SESSIONS_POSTGRES_URL` names, if set. */
function environmentChoice(options: StorageOptions): StorageChoice | undefined {
  const env = environment(options);
  const url = env[POSTGRES_URL_ENV];
  if (!url) return undefined;
  const schema = env.MU_SESSIONS_POSTGRES_SCHEMA || undefined;
  return { kind: "postgres", url, ...(schema ? { schema } : {}), source: "environment" };
}

function choiceOf(
  setting: StorageSetting,
  agentDir: string,
  source: StorageSource,
  settingsPath: string,
  extra: ChoiceContext,
): StorageChoice {
  const common = { ...extra, source, settingsPath };
  if (setting.type === "postgres") return { kind: "postgres", ...setting, ...common };
  return setting.type === "sqlite"
    ? { kind: "sqlite", path: setting.path ?? join(agentDir, "sessions.db"), ...common }
    : { kind: "jsonl", dir: setting.dir ?? join(agentDir, "sessions"), ...common };
}

/**
 * Resolve and open the store for these options (see the module doc for the order).
 *
 * @example
 * ```ts
 * import { resolveDefaultStore } from "@mu/sessions/stores/default";
 * const store = await resolveDefaultStore({ cwd: "/work/repo" });
 * const recent = await store.list({ cwd: "/work/repo" });
 * ```
 */
export async function resolveDefaultStore(options: StorageOptions = {}): Promise<SessionStore> {
  return await openStorage(await resolveStorageChoice(options), options);
}

/**
 * The file-system {@link RuntimeStorage}; `defaults` apply to every factory call (for
 * example `{ approve: true }` for a run started with `--approve`).
 *
 * @example
 * ```ts
 * import { registerRuntimeStorage } from "@mu/sessions";
 * import { fileSystemRuntimeStorage } from "@mu/sessions/stores/default";
 * registerRuntimeStorage(fileSystemRuntimeStorage({ approve: false }));
 * ```
 */
export function fileSystemRuntimeStorage(
  defaults: Omit<StorageOptions, "cwd" | "store" | "sessionDir"> = {},
): RuntimeStorage {
  return {
    defaultStore: (cwd) => resolveDefaultStore({ ...defaults, cwd }),
    jsonlStore: (directory) => openJsonlDirectory(directory, defaults.durability),
    openJsonlFile: async (path, { sessionDir, cwd }) => {
      const dir = sessionDir ?? resolve(path, "..");
      const options = { sessionDir: dir, cwd, durability: defaults.durability };
      return await openJsonlFile(path, { ...options, cache: listingCacheFor(dir) });
    },
    readFile: (path) => readLocalFile(path),
    cwd: () => process.cwd(),
  };
}

registerRuntimeStorage(fileSystemRuntimeStorage());
