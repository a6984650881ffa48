/**
 * Opening a postgres.js client for the store, and the errors it raises: a failure names
 * what it tried to reach (user, host, port, database) and never the password, which is
 * also cut out of any driver message that might echo it.
 *
 * @module
 */
import postgres from "postgres";
import { SessionError, SessionStorageError } from "../../src/errors.ts";

/** The postgres.js client the store runs its queries on. */
export type PostgresClient = postgres.Sql;

/** Where a connection goes, for messages: no password, ever. */
export interface ConnectionTarget {
  /** `user@host:port/database`, as far as the URL says. */
  label: string;
  /** Texts that must never appear in an error (the password, raw and URL-encoded). */
  secrets: string[];
}

/**
 * The connection target a URL names, for error messages.
 *
 * @example
 * ```ts
 * import { describeTarget } from "./_connect.ts";
 * describeTarget("postgres://me:pw@db.internal:6543/agents").label; // "me@db.internal:6543/agents"
 * ```
 */
export function describeTarget(url: string): ConnectionTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Never echo an unparsable URL: it may be nothing but a password.
    throw new SessionStorageError("Invalid PostgreSQL URL: expected postgres://user@host:port/db");
  }
  if (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:") {
    throw new SessionStorageError(
      `Invalid PostgreSQL URL: the scheme is ${parsed.protocol}, expected postgres:`,
    );
  }
  const user = decodeURIComponent(parsed.username);
  const host = parsed.hostname || parsed.searchParams.get("host") || "localhost";
  const port = parsed.port || "5432";
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, "")) || user;
  const secrets = [parsed.password, safeDecode(parsed.password)].filter((s) => s.length > 0);
  return { label: `${user ? user + "@" : ""}${host}:${port}/${database}`, secrets };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * A postgres.js client for a URL, with the store's defaults: a small pool, a bounded
 * connect wait, notices not printed (they would go to the user's console).
 *
 * @example
 * ```ts
 * import { connectPostgres } from "./_connect.ts";
 * const sql = connectPostgres("postgres://localhost/agents", { max: 4, connectTimeoutSeconds: 10 });
 * ```
 */
export function connectPostgres(
  url: string,
  options: { max: number; connectTimeoutSeconds: number },
): PostgresClient {
  return postgres(url, {
    max: options.max,
    connect_timeout: options.connectTimeoutSeconds,
    onnotice: () => {},
  });
}

/** Cut every secret out of a text. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) out = out.split(secret).join("***");
  return out;
}

/**
 * The error a failed operation raises: library errors unchanged; a driver or network error
 * as a `SessionStorageError` naming the operation and the server, password removed. The
 * driver's error is not kept as `cause` (its fields could carry connection options).
 *
 * @example
 * ```ts
 * import { postgresError } from "./_connect.ts";
 * const target = { label: "me@db:5432/agents", secrets: ["pw"] };
 * postgresError("append", new Error("connect ECONNREFUSED"), target).message;
 * // "append failed on PostgreSQL me@db:5432/agents: connect ECONNREFUSED"
 * ```
 */
export function postgresError(what: string, error: unknown, target: ConnectionTarget): Error {
  if (error instanceof SessionError) return error;
  if (error instanceof DOMException && error.name === "AbortError") return error;
  const raw = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown })?.code;
  const detail = redact(raw, target.secrets) + (typeof code === "string" ? ` (${code})` : "");
  return new SessionStorageError(`${what} failed on PostgreSQL ${target.label}: ${detail}`);
}

/** A target label for a client handed in: its options, never its password. */
export function describeClient(sql: PostgresClient): ConnectionTarget {
  const o = sql.options as { host?: string[]; port?: number[]; database?: string; user?: string };
  const label = `${o.user ? o.user + "@" : ""}${o.host?.[0] ?? "?"}:${o.port?.[0] ?? "?"}/${
    o.database ?? "?"
  }`;
  const password = (sql.options as { pass?: unknown }).pass;
  return { label, secrets: typeof password === "string" && password ? [password] : [] };
}

/** Error codes of postgres.js and Node sockets that mean the connection is gone. */
const CONNECTION_LOST = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "ECONNRESET",
  "ECONNREFUSED",
  "EPIPE",
  "ETIMEDOUT",
]);

/** Whether an error means the server connection is gone (a FATAL error closes it too). */
function connectionLost(error: unknown): boolean {
  const { code, severity } = (error ?? {}) as { code?: unknown; severity?: unknown };
  return CONNECTION_LOST.has(String(code)) || severity === "FATAL" || severity === "PANIC";
}

/**
 * `sql.begin`, safe against a server that dies mid-transaction. postgres.js 3.4.9 answers a
 * failed transaction body with `ROLLBACK`, and when the connection is already gone that
 * write throws from a timer (`Cannot read properties of null (reading 'write')`), an
 * uncaught exception that ends a Node process. So when the body fails because the
 * connection was lost, it never settles: postgres.js then sends nothing, and `begin`
 * itself rejects with the connection error (it races the body against the connection
 * closing). The server rolls the transaction back when the connection drops.
 *
 * @example
 * ```ts
 * import postgres from "postgres";
 * import { transaction } from "./_connect.ts";
 * const sql = postgres("postgres://localhost/db");
 * await transaction(sql, "", (tx) => tx.unsafe("SELECT 1"));
 * ```
 */
export async function transaction<T>(
  sql: PostgresClient,
  mode: string,
  body: (tx: postgres.TransactionSql) => Promise<T>,
): Promise<T> {
  return await sql.begin(mode, async (tx) => {
    try {
      return await body(tx);
    } catch (error) {
      if (connectionLost(error)) return await new Promise<never>(() => {});
      throw error;
    }
  }) as T;
}
