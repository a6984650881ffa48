/**
 * What a command works on: the store (flags, else the configured storage) and a session
 * named by id (exact or a unique prefix) or by a JSONL file path.
 *
 * @module
 */
import { stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { InvalidArgumentError, SessionNotFoundError } from "../src/errors.ts";
import { parseSessionJsonl } from "../src/jsonl.ts";
import type { SessionEntry, SessionHeader } from "../src/schema.ts";
import type { SessionStore } from "../src/store.ts";
import { readLocalFile } from "../stores/jsonl/_local.ts";
import {
  openJsonlDirectory,
  openStorage,
  resolveAgentDir,
  resolveDefaultStore,
  resolvePostgresChoice,
} from "../stores/default/mod.ts";
import { type OpenedSources, openSessionSources } from "../stores/default/default_sources.ts";
import { openSqliteStore } from "../stores/sqlite/file.ts";
import type { Invocation } from "./args.ts";
import { type CliContext, resolvePath, UsageError } from "./context.ts";

/**
 * The store the flags select: `--session-dir` or `--store` alone, else the configured
 * storage together with the agent's JSONL session folders (`openSessionSources`).
 */
export async function openSources(
  invocation: Invocation,
  context: CliContext,
): Promise<OpenedSources> {
  const alone = async (label: string, location: string, store: Promise<SessionStore>) => {
    const opened = await store;
    return { store: opened, sources: [{ label, location, store: opened }], absent: [] };
  };
  if (invocation.sessionDir !== undefined) {
    if (invocation.store === "sqlite" || invocation.store === "postgres") {
      throw new UsageError(
        `--session-dir selects JSONL storage; it cannot be used with --store ${invocation.store}`,
      );
    }
    const dir = resolvePath(context, invocation.sessionDir);
    return await alone("--session-dir", dir, openJsonlDirectory(dir));
  }
  if (invocation.store === "jsonl") {
    throw new UsageError("--store jsonl needs --session-dir DIR");
  }
  if (invocation.store === "sqlite") {
    const path = join(resolveAgentDir({ env: context.env }), "sessions.db");
    return await alone("--store sqlite", path, openSqliteStore(path));
  }
  if (invocation.store === "postgres") {
    // Only the user's own configuration names the server, never a project's settings.
    const choice = await resolvePostgresChoice({ env: context.env });
    return await alone("--store postgres", "PostgreSQL server", openStorage(choice));
  }
  return await openSessionSources({
    cwd: context.cwd,
    env: context.env,
    approve: invocation.approve,
  });
}

/** The store the flags select (see {@link openSources}). */
export async function openStore(
  invocation: Invocation,
  context: CliContext,
): Promise<SessionStore> {
  return (await openSources(invocation, context)).store;
}

/**
 * The one store new sessions go to: what the flags select, else the configured storage
 * alone (imports copy into it; the agent's JSONL folders are what they copy from).
 */
export async function openTargetStore(
  invocation: Invocation,
  context: CliContext,
): Promise<SessionStore> {
  if (invocation.sessionDir !== undefined || invocation.store !== undefined) {
    return await openStore(invocation, context);
  }
  return await resolveDefaultStore({
    cwd: context.cwd,
    env: context.env,
    approve: invocation.approve,
  });
}

/** A session read from a file or a store. */
export interface TargetSession {
  header: SessionHeader;
  entries: SessionEntry[];
  /** The version the data had before any in-memory upgrade. */
  sourceVersion: number;
  /** The file it was read from, when it was named by path. */
  file?: string;
}

/** Whether `operand` names an existing file (relative to the caller's directory). */
export async function isFile(context: CliContext, operand: string): Promise<boolean> {
  return (await pathKind(context, operand)) === "file";
}

/** What `operand` is on disk: a file, a folder, or nothing. */
async function pathKind(
  context: CliContext,
  operand: string,
): Promise<"file" | "folder" | undefined> {
  const info = await stat(resolvePath(context, operand)).catch(() => undefined);
  return info?.isFile() ? "file" : info?.isDirectory() ? "folder" : undefined;
}

/** Whether an operand is written as a path (not an id): a separator or a `.jsonl` name. */
function looksLikePath(operand: string): boolean {
  return /[\/]/.test(operand) || operand.endsWith(".jsonl");
}

/**
 * Refuse an operand that is a folder, or a path to nothing, saying which; ids and existing
 * files pass.
 */
async function refuseNonSession(context: CliContext, operand: string): Promise<void> {
  const kind = await pathKind(context, operand);
  if (kind === "folder") {
    throw new InvalidArgumentError(
      `${
        resolvePath(context, operand)
      } is a folder, not a session file (name one .jsonl file in it, or a session id)`,
    );
  }
  if (kind === undefined && looksLikePath(operand)) {
    throw new SessionNotFoundError(
      operand,
      `no such file: ${resolvePath(context, operand)} (and no session has that id)`,
    );
  }
}

/** A session named on the command line, and the store it lives in. */
export interface NamedSession {
  store: SessionStore;
  id: string;
  /** The JSONL file, when the session was named by its path. */
  file?: string;
}

/**
 * The session an operand names: a JSONL file path (the session is then used where it lives,
 * through a JSONL store over the file's folder, so writes take that file's lock), else an id
 * or unique id prefix in the store the flags select. Close `store` when done.
 */
export async function resolveNamedSession(
  invocation: Invocation,
  context: CliContext,
  operand: string,
): Promise<NamedSession> {
  await refuseNonSession(context, operand);
  if (await isFile(context, operand)) {
    const file = resolvePath(context, operand);
    const { header } = await parseSessionJsonl(await readLocalFile(file), {
      source: file,
      retainRaw: false,
    });
    const store = await openJsonlDirectory(dirname(file));
    return { store, id: header.id, file };
  }
  const store = await openStore(invocation, context);
  try {
    return { store, id: await resolveSessionId(store, operand) };
  } catch (error) {
    await store.close();
    throw error;
  }
}

/**
 * Resolve a session id in a store: an exact id, else a unique prefix of one. An ambiguous
 * prefix names the candidates; an unknown one raises `SessionNotFoundError`.
 */
export async function resolveSessionId(store: SessionStore, operand: string): Promise<string> {
  if (await store.has(operand)) return operand;
  const matches = (await store.list({ includeInternal: true }))
    .filter((info) => info.id.startsWith(operand));
  if (matches.length === 1) return matches[0].id;
  if (matches.length > 1) {
    throw new UsageError(
      `${JSON.stringify(operand)} matches ${matches.length} sessions: ${
        matches.slice(0, 5).map((info) => info.id).join(", ")
      }${matches.length > 5 ? ", ..." : ""}`,
    );
  }
  throw new SessionNotFoundError(operand);
}

/**
 * Read the session named by `operand`: a JSONL file if one exists there, else an id in the
 * store the flags select, which is closed again before this resolves (also on failure).
 */
export async function loadTarget(
  invocation: Invocation,
  context: CliContext,
  operand: string,
): Promise<TargetSession> {
  await refuseNonSession(context, operand);
  if (await isFile(context, operand)) {
    const file = resolvePath(context, operand);
    const parsed = await parseSessionJsonl(await readLocalFile(file), {
      source: file,
      retainRaw: false,
    });
    return { ...parsed, file };
  }
  const store = await openStore(invocation, context);
  try {
    return await store.load(await resolveSessionId(store, operand));
  } finally {
    await store.close(); // the session is in memory: nothing of the store is needed after
  }
}
