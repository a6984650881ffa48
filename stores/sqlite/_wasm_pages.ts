/**
 * The page size of a new browser database. Every page sqlite-wasm reads or writes is one
 * call into the OPFS VFS, and with the `opfs` VFS (the viewer's, on its cross-origin
 * isolated page) each call is a round trip to the VFS's own worker: at sqlite-wasm's
 * default 8 KiB pages, inserting a large session was mostly those calls. 64 KiB pages make
 * them 8 times fewer (`bench/browser/import_breakdown.ts` measures both). Session rows are
 * JSON of a few KiB, so reads lose little.
 *
 * `PRAGMA page_size` only changes a database that is still empty; an existing database
 * keeps its page size and its data (SQLite ignores the pragma there), so existing users'
 * databases open as before.
 *
 * @module
 */

/** Page size of a database `openSqliteWasmStore` creates, in bytes. */
export const NEW_DATABASE_PAGE_SIZE = 65536;

/**
 * Ask for {@link NEW_DATABASE_PAGE_SIZE} before the schema is created (a no-op on a
 * database that already has pages).
 *
 * @example
 * ```ts
 * import { useNewDatabasePageSize } from "./_wasm_pages.ts";
 * import { loadSqliteWasm } from "./wasm.ts";
 * const db = new (await loadSqliteWasm()).oo1.DB(":memory:");
 * useNewDatabasePageSize(db);
 * ```
 */
export function useNewDatabasePageSize(db: { exec(sql: string): unknown }): void {
  db.exec(`PRAGMA page_size = ${NEW_DATABASE_PAGE_SIZE}`);
}
