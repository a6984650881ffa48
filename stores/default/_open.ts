/**
 * Opening a decided storage: the JSONL directory store, and the SQLite and PostgreSQL stores
 * shared per database within the process. Separate from `mod.ts`, which decides WHICH
 * storage to use (options, environment, settings, trust); this module only opens what was
 * decided. `mod.ts` re-exports both functions, so the public entry point is unchanged.
 *
 * @module
 */
import { resolve } from "node:path";
import { SessionStorageError } from "../../src/errors.ts";
import type { SessionStore } from "../../src/store.ts";
import { type Durability, openJsonlFsStore } from "../jsonl/fs.ts";
import { listingCacheFor } from "../jsonl/_local.ts";
import type { JsonlSessionStore } from "../jsonl/store.ts";
import { openSqliteStore } from "../sqlite/file.ts";
import type { StorageChoice, StorageOptions } from "./mod.ts";

const sharedStores = new Map<string, Promise<SessionStore>>();

/**
 * The JSONL store over a directory, sharing this process's listing cache for it.
 *
 * @example
 * ```ts
 * import { openJsonlDirectory } from "@mu/sessions/stores/default";
 * const store = await openJsonlDirectory("/tmp/sessions");
 * ```
 */
export async function openJsonlDirectory(
  dir: string,
  durability?: Durability,
): Promise<JsonlSessionStore> {
  return await openJsonlFsStore(dir, { cache: listingCacheFor(dir), durability });
}

/**
 * Open a decided storage. SQLite stores are shared per database file, PostgreSQL stores per
 * URL and schema, within the process (closing one drops it from the share). The PostgreSQL
 * driver (the optional `postgres` package) is loaded only when a PostgreSQL store is chosen.
 *
 * @example
 * ```ts
 * import { openStorage, resolveStorageChoice } from "@mu/sessions/stores/default";
 * const store = await openStorage(await resolveStorageChoice({ cwd: "/work/repo" }));
 * ```
 */
export async function openStorage(
  choice: StorageChoice,
  options: Pick<StorageOptions, "openSqlite" | "durability"> = {},
): Promise<SessionStore> {
  if (choice.kind === "store") return choice.store;
  const { durability } = options;
  if (choice.kind === "jsonl") return await openJsonlDirectory(choice.dir, durability);
  if (choice.kind === "postgres") {
    const { url, schema } = choice;
    return await shared(`postgres\n${url}\n${schema ?? ""}`, async () => {
      let driver: typeof import("../postgres/store.ts");
      try {
        driver = await import("../postgres/store.ts");
      } catch (error) {
        throw new SessionStorageError(
          `PostgreSQL session storage needs the "postgres" package (npm install postgres): ${
            (error as Error).message
          }`,
        );
      }
      return await driver.openPostgresStore({ url, schema });
    });
  }
  if (options.openSqlite) return await options.openSqlite(choice.path);
  const path = resolve(choice.path);
  const key = `sqlite\n${path}\n${durability}`;
  return await shared(key, () => openSqliteStore(path, { durability }));
}

/** One open store per key in this process; closing it (or failing to open) drops it. */
async function shared(key: string, open: () => Promise<SessionStore>): Promise<SessionStore> {
  let pending = sharedStores.get(key);
  if (!pending) {
    pending = open().then((store) => {
      const close = store.close.bind(store);
      store.close = async () => {
        if (sharedStores.get(key) === pending) sharedStores.delete(key);
        await close();
      };
      return store;
    });
    pending.catch(() => sharedStores.delete(key));
    sharedStores.set(key, pending);
  }
  return await pending;
}
