/**
 * The two sides of `mu sync`: this machine's store (what `mu ls` reads, or `--store` /
 * `--session-dir`) and the other side named by `--to` / `--from`, decided before anything
 * is opened so a configuration mistake is a usage error (exit 2) and not a half-done sync.
 *
 * The trust rule: only the user's own configuration (the environment, the global settings
 * in the agent folder, the command line) names a server. A project's `.pi/settings.json`
 * can never send this machine's transcripts anywhere: its `sessions.sync` or PostgreSQL
 * `sessions.storage` is ignored, and said so. A server URL never appears in a message,
 * only `user@host:port/database`.
 *
 * @module
 */
import { mkdir } from "node:fs/promises";
import { hostname } from "node:os";
import { join, relative, resolve, sep } from "node:path";
import { SessionStorageError } from "../../src/errors.ts";
import type { SessionStore } from "../../src/store.ts";
import {
  openJsonlDirectory,
  resolveAgentDir,
  resolvePostgresChoice,
} from "../../stores/default/mod.ts";
import { POSTGRES_URL_ENV } from "../../stores/default/_postgres_env.ts";
import { findProjectSettings, readSettingsFile } from "../../stores/default/settings.ts";
import type { OpenedSources } from "../../stores/default/default_sources.ts";
import { openSqliteStore } from "../../stores/sqlite/file.ts";
import type { Invocation } from "../args.ts";
import { type CliContext, resolvePath, UsageError } from "../context.ts";
import { openSources } from "../target.ts";

const SCHEMA_ENV = "MU_SESSIONS_POSTGRES_SCHEMA";

/** A configuration that names no usable other side, or a local side that is a server. */
export class SyncConfigError extends Error {
  override name = "SyncConfigError";
}

/** The other side, decided but not yet opened. */
export interface RemotePlan {
  kind: "postgres" | "sqlite" | "jsonl";
  /** For people: `PostgreSQL user@host:port/db`, a file or a folder; never a password. */
  label: string;
  /** What the sync cursor is kept for (no password either). */
  identity: string;
  /** Open it; a PostgreSQL store records `machine` as the origin of sessions it creates. */
  open(machine: string): Promise<SessionStore>;
}

/** This machine's side, opened. */
export interface LocalSide extends OpenedSources {
  agentDir: string;
  /** Every place it reads, for the cursor's key. */
  identity: string;
}

/**
 * Open this machine's store: the sources `mu ls` reads, minus any PostgreSQL choice made by
 * `$MU_SESSIONS_POSTGRES_URL` (for `mu sync` that variable names the server to sync with).
 */
export async function openLocalSide(
  invocation: Invocation,
  context: CliContext,
): Promise<LocalSide> {
  if (invocation.store === "postgres") {
    throw new UsageError(
      "the local side of mu sync is this machine's store; name the server with --to or --from",
    );
  }
  const env = { ...context.env, [POSTGRES_URL_ENV]: undefined, [SCHEMA_ENV]: undefined };
  let opened: OpenedSources;
  try {
    opened = await openSources(invocation, { ...context, env });
  } catch (error) {
    if (error instanceof SessionStorageError) throw new SyncConfigError(error.message);
    throw error;
  }
  if (opened.sources.some((source) => source.store.kind === "postgres")) {
    await opened.store.close();
    throw new SyncConfigError(
      "the configured storage is a PostgreSQL server, so there is no local store to sync; " +
        "choose one for this run with --store sqlite or --session-dir DIR",
    );
  }
  const agentDir = resolveAgentDir({ env: context.env });
  const identity = opened.sources.map((source) => `${source.store.kind}:${source.location}`)
    .join("\n");
  return { ...opened, agentDir, identity };
}

/** The other side a `--to` / `--from` value names (see `mu sync --help`). */
export async function planRemote(
  spec: string,
  context: CliContext,
  local: LocalSide,
): Promise<RemotePlan> {
  let plan: RemotePlan;
  if (spec === "postgres") plan = await postgresPlan(await configuredServer(context, local));
  else if (/^postgres(ql)?:\/\//i.test(spec)) {
    plan = await postgresPlan({ url: spec, schema: context.env[SCHEMA_ENV] || undefined });
  } else if (spec === "jsonl") {
    throw new UsageError("a JSONL side is a folder: name it, as in --to ./sessions");
  } else {
    const path = spec === "sqlite"
      ? join(local.agentDir, "sessions.db")
      : resolvePath(context, spec);
    plan = /\.(db|sqlite3?)$/i.test(path) ? sqlitePlan(path) : jsonlPlan(path);
  }
  if (local.sources.some((source) => `${plan.kind}:${source.location}` === plan.identity)) {
    throw new UsageError(`${plan.label} is this machine's own store; sync it with another one`);
  }
  return plan;
}

function sqlitePlan(path: string): RemotePlan {
  return {
    kind: "sqlite",
    label: `SQLite ${path}`,
    identity: `sqlite:${path}`,
    open: () => openSqliteStore(path),
  };
}

function jsonlPlan(dir: string): RemotePlan {
  return {
    kind: "jsonl",
    label: `JSONL folder ${dir}`,
    identity: `jsonl:${dir}`,
    open: async () => {
      await mkdir(dir, { recursive: true });
      return await openJsonlDirectory(dir);
    },
  };
}

interface ServerChoice {
  url: string;
  schema?: string;
}

async function postgresPlan({ url, schema }: ServerChoice): Promise<RemotePlan> {
  let driver: typeof import("../../stores/postgres/store.ts");
  let connect: typeof import("../../stores/postgres/_connect.ts");
  try {
    [driver, connect] = await Promise.all([
      import("../../stores/postgres/store.ts"),
      import("../../stores/postgres/_connect.ts"),
    ]);
  } catch (error) {
    throw new SyncConfigError(
      `syncing with PostgreSQL needs the "postgres" package (npm install postgres): ${
        (error as Error).message
      }`,
    );
  }
  let target;
  try {
    target = connect.describeTarget(url);
  } catch (error) {
    throw new SyncConfigError((error as Error).message);
  }
  const where = `${target.label}${schema ? ` schema ${schema}` : ""}`;
  return {
    kind: "postgres",
    label: `PostgreSQL ${where}`,
    identity: `postgres:${where}`,
    open: (machine) => driver.openPostgresStore({ url, schema, machine, max: 2 }),
  };
}

/**
 * The server the user configured: `$MU_SESSIONS_POSTGRES_URL`, else `sessions.sync` in the
 * global settings, else a PostgreSQL `sessions.storage` there. A project's settings naming
 * a server are never read for this, and a note says they were ignored.
 */
async function configuredServer(context: CliContext, local: LocalSide): Promise<ServerChoice> {
  await noteIgnoredProjectServer(context, local.agentDir);
  const fromEnv = context.env[POSTGRES_URL_ENV];
  if (fromEnv) return { url: fromEnv, schema: context.env[SCHEMA_ENV] || undefined };
  const globalPath = join(local.agentDir, "settings.json");
  const syncSetting = syncSettingOf(await readSettings(globalPath), globalPath);
  if (syncSetting) return syncSetting;
  try {
    const choice = await resolvePostgresChoice({ env: context.env, agentDir: local.agentDir });
    if (choice.kind === "postgres") return { url: choice.url, schema: choice.schema };
  } catch (error) {
    if (!(error instanceof SessionStorageError)) throw error;
  }
  throw new SyncConfigError(
    `no PostgreSQL server configured: set ${POSTGRES_URL_ENV}, or "sessions": { "sync": ` +
      `{ "url": "postgres://..." } } in ${globalPath}`,
  );
}

/** `sessions.sync` of a settings object: `{ url, schema? }`, or undefined. */
function syncSettingOf(
  settings: Record<string, unknown> | undefined,
  path: string,
): ServerChoice | undefined {
  const sessions = settings?.sessions as Record<string, unknown> | undefined;
  const setting = sessions && typeof sessions === "object" ? sessions.sync : undefined;
  if (setting === undefined) return undefined;
  const { url, schema } = (setting ?? {}) as Record<string, unknown>;
  if (typeof url !== "string" || (schema !== undefined && typeof schema !== "string")) {
    throw new SyncConfigError(
      `${path}: sessions.sync must be { "url": "postgres://...", "schema"?: "name" }`,
    );
  }
  return { url, schema: schema as string | undefined };
}

async function readSettings(path: string): Promise<Record<string, unknown> | undefined> {
  try {
    return await readSettingsFile(path);
  } catch (error) {
    if (error instanceof SessionStorageError) throw new SyncConfigError(error.message);
    throw error;
  }
}

/** Say so when the project's settings name a server: they are not what sync uses. */
async function noteIgnoredProjectServer(context: CliContext, agentDir: string): Promise<void> {
  const home = context.env.HOME ?? context.env.USERPROFILE;
  const project = await findProjectSettings(context.cwd, { home, agentDir });
  if (!project) return;
  const settings = await readSettingsFile(project.path).catch(() => undefined);
  const sessions = settings?.sessions as Record<string, unknown> | undefined;
  const storage = sessions?.storage as Record<string, unknown> | undefined;
  if (sessions?.sync !== undefined || storage?.type === "postgres") {
    context.err(
      `mu sync: ignored the server named in ${project.path}: a project's settings can never ` +
        `choose where your sessions are sent (use ${POSTGRES_URL_ENV} or ${
          join(agentDir, "settings.json")
        })\n`,
    );
  }
}

/**
 * The label recorded on the server for sessions this machine creates there: the host name
 * and the agent folder (with `~` for the home directory), e.g. `laptop:~/.pi/agent`.
 */
export function machineLabel(context: CliContext, agentDir: string): string {
  let host: string;
  try {
    host = hostname();
  } catch {
    host = context.env.HOSTNAME || "unknown-host"; // Deno without --allow-sys
  }
  const home = context.env.HOME ?? context.env.USERPROFILE;
  const below = home ? relative(resolve(home), agentDir) : "";
  const folder = home && below && !below.startsWith("..") && !below.startsWith(sep)
    ? `~/${below.split(sep).join("/")}`
    : agentDir;
  return `${host}:${folder}`;
}
