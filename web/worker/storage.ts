/**
 * Which store the viewer keeps sessions in: SQLite on OPFS (the `opfs` VFS when the page
 * is cross-origin isolated, else `opfs-sahpool`), then IndexedDB, then memory as a last
 * resort (the page says so: nothing survives a reload then).
 *
 * @module
 */
import { IndexedDbSessionStore } from "../../stores/browser/indexeddb.ts";
import { MemorySessionStore } from "../../src/memory_store.ts";
import { loadSqliteWasm, openSqliteWasmStore } from "../../stores/sqlite/wasm.ts";
import type { SessionStore } from "../../src/store.ts";
import type { StorageView } from "../types.ts";

/** A way to open a store, tried in order. */
export interface StorageCandidate {
  kind: string;
  persistent: boolean;
  open(): Promise<SessionStore>;
}

/** An opened store and how it was chosen. */
export interface OpenedStorage {
  store: SessionStore;
  view: StorageView;
}

/** SQLite database file of the viewer (in OPFS). */
export const VIEWER_SQLITE_FILE = "/mu-sessions-viewer.sqlite3";
/**
 * Imports of more entries leave search indexing to the first search: trigram indexing
 * was most of the time of importing a large session.
 */
const DEFER_SEARCH_INDEX_ABOVE = 1000;
/** IndexedDB database of the viewer (used when OPFS SQLite cannot open). */
export const VIEWER_IDB_NAME = "mu-sessions-viewer";

/** Which OPFS VFS sqlite-wasm will use here: `opfs` needs a cross-origin isolated page. */
async function sqliteKind(): Promise<string> {
  const sqlite3 = await loadSqliteWasm();
  return typeof sqlite3.oo1.OpfsDb === "function" ? "sqlite-opfs" : "sqlite-opfs-sahpool";
}

/** The candidates, best first. */
export function storageCandidates(): StorageCandidate[] {
  const sqlite: StorageCandidate = {
    kind: "sqlite-opfs",
    persistent: true,
    async open() {
      if (typeof navigator === "undefined" || !navigator.storage?.getDirectory) {
        throw new Error("OPFS is not available in this browser");
      }
      sqlite.kind = await sqliteKind();
      return await openSqliteWasmStore({
        vfs: "auto",
        filename: VIEWER_SQLITE_FILE,
        deferSearchIndexAbove: DEFER_SEARCH_INDEX_ABOVE,
      });
    },
  };
  return [
    sqlite,
    {
      kind: "indexeddb",
      persistent: true,
      open: () => IndexedDbSessionStore.open({ dbName: VIEWER_IDB_NAME }),
    },
    { kind: "memory", persistent: false, open: async () => new MemorySessionStore() },
  ];
}

/** Open the first candidate that works, noting why better ones failed. */
export async function openViewerStorage(
  candidates: StorageCandidate[] = storageCandidates(),
): Promise<OpenedStorage> {
  const notes: string[] = [];
  for (const candidate of candidates) {
    try {
      const store = await candidate.open();
      const view: StorageView = { kind: candidate.kind, persistent: candidate.persistent };
      if (notes.length) view.note = notes.join("; ");
      return { store, view };
    } catch (error) {
      notes.push(`${candidate.kind}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  throw new Error(`no storage could be opened (${notes.join("; ")})`);
}
