/**
 * What a command works on: the store (flags, else the configured storage) and a session
 * named by id (exact or a unique prefix) or by a JSONL file path.
 *
 * @module
 */
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { SessionNotFoundError } from "../src/errors.ts";
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
import { openSqliteStore } from "../stores/sqlite/file.ts";
import type { Invocation } from "./args.ts";
import { type CliContext, resolvePath, UsageError } from "./context.ts";

/** The store the flags select: `--session-dir`, `--store`, else the configured storage. */
export async function openStore(
  invocation: Invocation,
  context: CliContext,
): Promise<SessionStore> {
  if (invocation.sessionDir !== undefined) {
    if (invocation.store === "sqlite" || invocation.store === "postgres") {
      throw new UsageError(
        `--session-dir selects JSONL storage; it cannot be used with --store ${invocation.store}`,
      );
    }
    return await openJsonlDirectory(resolvePath(context, invocation.sessionDir));
  }
  if (invocation.store === "jsonl") {
    throw new UsageError("--store jsonl needs --session-dir DIR");
  }
  if (invocation.store === "sqlite") {
    return await openSqliteStore(join(resolveAgentDir({ env: context.env }), "sessions.db"));
  }
  if (invocation.store === "postgres") {
    // Only the user's own configuration names the server, never a project's settings.
    return await openStorage(await resolvePostgresChoice({ env: context.env }));
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
  /** The store it lives in, when it was named by id. */
  store?: SessionStore;
}

/** Whether `operand` names an existing file (relative to the caller's directory). */
export async function isFile(context: CliContext, operand: string): Promise<boolean> {
  try {
    return (await stat(resolvePath(context, operand))).isFile();
  } catch {
    return false;
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

/** Read the session named by `operand`: a JSONL file if one exists there, else an id in the store. */
export async function loadTarget(
  invocation: Invocation,
  context: CliContext,
  operand: string,
): Promise<TargetSession> {
  if (await isFile(context, operand)) {
    const file = resolvePath(context, operand);
    const parsed = await parseSessionJsonl(await readLocalFile(file), {
      source: file,
      retainRaw: false,
    });
    return { ...parsed, file };
  }
  const store = await openStore(invocation, context);
  const loaded = await store.load(await resolveSessionId(store, operand));
  return { ...loaded, store };
}
