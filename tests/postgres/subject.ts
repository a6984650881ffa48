/**
 * The PostgreSQL store as a conformance subject, shared by the Deno and Node runners: one
 * throwaway cluster per test file, a fresh PostgreSQL schema per test (dropped after it).
 */
import postgres from "postgres";
import type { StoreSubject } from "../conformance/harness.ts";
import { openPostgresStore, type PostgresSessionStore } from "../../stores/postgres/store.ts";
import { type Cluster, startCluster } from "./cluster.ts";

let shared: Promise<Cluster> | undefined;

/** The file's cluster, started on first use. */
export function sharedCluster(): Promise<Cluster> {
  return shared ??= startCluster();
}

let admin: postgres.Sql | undefined;

/**
 * Close the admin connection. The crash test calls this first: postgres.js ending a client
 * whose idle connections a crash killed threw from a socket callback on Node 20.
 */
export async function closeAdmin(): Promise<void> {
  const client = admin;
  admin = undefined;
  await client?.end({ timeout: 1 });
}

/** Stop the file's cluster (the last test of a file calls this). */
export async function stopSharedCluster(): Promise<void> {
  await closeAdmin();
  if (!shared) return;
  const cluster = await shared.catch(() => undefined);
  shared = undefined;
  await cluster?.stop();
}

let counter = 0;

/** A schema name no other test in this or another process uses. */
export function freshSchema(): string {
  return `t${Date.now().toString(36)}_${process.pid}_${counter++}`;
}

/** Fail instead of hanging when a promise that must settle does not. */
export function settles<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within 20 s`)), 20_000);
  });
  return Promise.race([promise, guard]).finally(() => clearTimeout(timer));
}

/** A store on a fresh schema of the shared cluster, closed after `fn`. */
export async function withFreshStore(
  fn: (store: PostgresSessionStore, schema: string) => Promise<void>,
): Promise<void> {
  const { url } = await sharedCluster();
  const schema = freshSchema();
  const store = await openPostgresStore({ url, schema, max: 2 });
  try {
    await fn(store, schema);
  } finally {
    await store.close();
  }
}

/**
 * Run SQL on the cluster through the file's admin connection (one for all tests, so a test
 * does not pay for connecting; postgres.js reconnects after the crash test's restart).
 */
export async function adminSql<T>(fn: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const { url } = await sharedCluster();
  admin ??= postgres(url, { max: 2, onnotice: () => {} });
  return await fn(admin);
}

/**
 * The conformance subject. `failNextWrite` arms a statement trigger that fails the next
 * write to the schema's tables once; it counts on a sequence, which a rollback does not
 * undo, so the fault fires exactly once.
 */
export function postgresSubject(runtime: string): StoreSubject {
  return {
    name: `postgres (${runtime})`,
    open: async () => {
      const { url } = await sharedCluster();
      const schema = freshSchema();
      const store = await openPostgresStore({ url, schema, max: 2 });
      const s = `"${schema}"`;
      await adminSql(async (sql) => {
        await sql.unsafe(`CREATE SEQUENCE ${s}.fault START 2`);
        await sql.unsafe(`CREATE FUNCTION ${s}.fault() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN
            IF nextval('${s}.fault') = 1 THEN RAISE EXCEPTION 'injected storage fault'; END IF;
            RETURN NULL;
          END $$`);
        for (const table of ["sessions", "entries"]) {
          await sql.unsafe(`CREATE TRIGGER fault BEFORE INSERT OR UPDATE OR DELETE
            ON ${s}.${table} FOR EACH STATEMENT EXECUTE FUNCTION ${s}.fault()`);
        }
      });
      return {
        store,
        reopen: () => openPostgresStore({ url, schema, max: 2 }),
        cleanup: () => adminSql((sql) => sql.unsafe(`DROP SCHEMA ${s} CASCADE`).then(() => {})),
        failNextWrite: () =>
          adminSql((sql) => sql.unsafe(`SELECT setval('${s}.fault', 1, false)`).then(() => {})),
        damage: (id) =>
          adminSql((sql) =>
            sql.unsafe(`UPDATE ${s}.sessions SET header = '{"type":' WHERE id = $1`, [id])
              .then(() => {})
          ),
      };
    },
  };
}
