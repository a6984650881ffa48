/**
 * The forward schema migrations of the PostgreSQL session store (`store.ts`), run under a
 * transaction-scoped advisory lock so two processes starting at once against an empty
 * database neither race on `CREATE SCHEMA` nor apply a step twice.
 *
 * @module
 */
import { SessionStorageError } from "../../src/errors.ts";
import { originsMigration } from "./_origins.ts";
import { searchMigration } from "./_search.ts";

/** A schema name the store accepts: a plain SQL identifier (it is spliced into statements). */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * The quoted schema name, after checking it is a plain identifier.
 *
 * @example
 * ```ts
 * import { quoteSchema } from "./_schema.ts";
 * quoteSchema("mu_sessions"); // '"mu_sessions"'
 * ```
 */
export function quoteSchema(schema: string): string {
  if (!IDENTIFIER.test(schema)) {
    throw new SessionStorageError(
      `Invalid PostgreSQL schema name ${JSON.stringify(schema)}: use letters, digits and _`,
    );
  }
  return `"${schema}"`;
}

/**
 * Forward schema steps over schema `s` (already quoted): step `i` takes the stored version
 * from `i` to `i + 1`. Never edit a published step; append a new one.
 *
 * @example
 * ```ts
 * import { postgresMigrations } from "./_schema.ts";
 * postgresMigrations('"mu_sessions"').length; // the current schema version
 * ```
 */
export function postgresMigrations(s: string): readonly (readonly string[])[] {
  return [
    [
      // `change` takes a value of `change_seq` on every write to the session: a sequence
      // never blocks, so writers to different sessions never wait on a shared counter.
      `CREATE SEQUENCE ${s}.change_seq`,
      `CREATE TABLE ${s}.sessions (id text PRIMARY KEY, cwd text NOT NULL,
        created_at bigint NOT NULL, modified bigint NOT NULL, header text NOT NULL,
        internal boolean NOT NULL DEFAULT false, workflow text, parent_session_id text,
        listing text NOT NULL, next_seq bigint NOT NULL DEFAULT 0,
        change bigint NOT NULL DEFAULT nextval('${s}.change_seq'))`,
      `CREATE TABLE ${s}.entries (
        session_id text NOT NULL REFERENCES ${s}.sessions(id) ON DELETE CASCADE,
        seq bigint NOT NULL, entry_id text, parent_id text, type text NOT NULL,
        json text NOT NULL, PRIMARY KEY (session_id, seq))`,
      // loadContext follows parent links through this index, latest duplicate first.
      `CREATE INDEX entries_by_entry_id ON ${s}.entries (session_id, entry_id, seq DESC)`,
      `CREATE INDEX sessions_by_modified ON ${s}.sessions (modified DESC, created_at DESC, id)`,
      `CREATE INDEX sessions_by_cwd ON ${s}.sessions (cwd, modified DESC, created_at DESC, id)`,
    ],
    searchMigration(s),
    // Context flags (`contextFlags`) for context-only loads; rows written before stay NULL
    // and are parsed when a load needs their flags, so nothing is rewritten here.
    [`ALTER TABLE ${s}.entries ADD COLUMN IF NOT EXISTS flags integer`],
    // Which machine's `mu sync` created each session (`_origins.ts`).
    originsMigration(s),
    // From which entry a pending session's search rows are missing (`_search.ts`): a bulk
    // write onto an indexed session leaves only its own rows to index.
    [`ALTER TABLE ${s}.search_pending ADD COLUMN IF NOT EXISTS from_seq bigint NOT NULL DEFAULT 0`],
    // Entry texts past TOAST's threshold compress with lz4 rather than pglz, several times
    // faster to write (a first push spends much of the server's time there). Rows already
    // stored keep theirs; a server without lz4 (before 14, or built without it) keeps pglz.
    [
      `DO $$ BEGIN
         EXECUTE 'ALTER TABLE ${s}.entries ALTER COLUMN json SET COMPRESSION lz4';
       EXCEPTION WHEN OTHERS THEN NULL;
       END $$`,
    ],
    // An append asks whether a stored entry names one of its new ids as its parent (then
    // missing), so it can refuse the append that would close a parent cycle through it.
    [`CREATE INDEX IF NOT EXISTS entries_by_parent ON ${s}.entries (session_id, parent_id)`],
  ];
}

/** The schema version this library writes. */
export const POSTGRES_SCHEMA_VERSION = postgresMigrations('"x"').length;

/** The slice of a postgres.js transaction the migration uses. */
export interface MigrationSql {
  unsafe(query: string, params?: unknown[]): PromiseLike<readonly Record<string, unknown>[]>;
}

/**
 * Bring `schema` to {@link POSTGRES_SCHEMA_VERSION} inside the caller's transaction; returns
 * the version found before. Rejects a schema written by a newer library rather than guess.
 *
 * @example
 * ```ts
 * import postgres from "postgres";
 * import { migratePostgresSchema } from "./_schema.ts";
 * const sql = postgres("postgres://localhost/db");
 * await sql.begin((tx) => migratePostgresSchema(tx, "mu_sessions"));
 * ```
 */
export async function migratePostgresSchema(tx: MigrationSql, schema: string): Promise<number> {
  const s = quoteSchema(schema);
  // One lock per schema name, held until commit: a second process waits here, then finds
  // the schema at the current version and does nothing.
  await tx.unsafe("SELECT pg_advisory_xact_lock(hashtext($1))", [`mu-sessions:${schema}`]);
  await tx.unsafe(`CREATE SCHEMA IF NOT EXISTS ${s}`);
  await tx.unsafe(`CREATE TABLE IF NOT EXISTS ${s}.schema_version (version integer NOT NULL)`);
  const rows = await tx.unsafe(`SELECT version FROM ${s}.schema_version`);
  const found = rows.length === 0 ? 0 : Number(rows[0].version);
  if (found > POSTGRES_SCHEMA_VERSION) {
    throw new SessionStorageError(
      `The session schema ${schema} has version ${found}, newer than this library supports (${POSTGRES_SCHEMA_VERSION}); upgrade @mu/sessions`,
    );
  }
  const steps = postgresMigrations(s);
  for (let step = found; step < steps.length; step++) {
    for (const statement of steps[step]) await tx.unsafe(statement);
  }
  if (rows.length === 0) {
    await tx.unsafe(`INSERT INTO ${s}.schema_version VALUES ($1)`, [POSTGRES_SCHEMA_VERSION]);
  } else if (found < POSTGRES_SCHEMA_VERSION) {
    await tx.unsafe(`UPDATE ${s}.schema_version SET version = $1`, [POSTGRES_SCHEMA_VERSION]);
  }
  return found;
}
