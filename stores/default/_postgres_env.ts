/**
 * The environment variable that names a PostgreSQL server for sessions (a user's own
 * choice, like the global settings); `MU_SESSIONS_POSTGRES_SCHEMA` picks the schema. Kept
 * out of the entry so that the storage resolver and the sources store share it without a
 * public name.
 *
 * @module
 */

/** The variable holding the PostgreSQL server URL. */
export const POSTGRES_URL_ENV = "MU_SESSIONS_POSTGRES_URL";
