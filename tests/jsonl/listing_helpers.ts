/**
 * Listings of a JSONL folder for the listing-cache tests: the reference a store with no
 * cache at all gives, and a new store's (as in a new process) with what it read and wrote.
 */
import type { SessionInfo } from "../../core.ts";
import { NodeJsonlFolderFs, openJsonlFsStore } from "../../stores/jsonl/fs.ts";
import { JsonlSessionStore } from "../../stores/jsonl/store.ts";
import { CountingFs } from "./counting_fs.ts";

export const rowsText = (rows: SessionInfo[]) => JSON.stringify(rows);

/** What a store with no cache at all lists: the reference. */
export async function uncached(dir: string): Promise<string> {
  const store = await openJsonlFsStore(dir, { persistListingCache: false });
  return rowsText(await store.list({ includeInternal: true }));
}

/** A new store, as in a new process: its listing and what it read (`writes`: atomic ones). */
export async function freshListing(dir: string) {
  const fs = new CountingFs(new NodeJsonlFolderFs(dir));
  const store = new JsonlSessionStore(fs);
  const rows = rowsText(await store.list({ includeInternal: true }));
  return { rows, ...fs.counts, writes: fs.counts.atomicWrites, store, fs };
}
