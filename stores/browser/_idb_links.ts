/**
 * The parent links an IndexedDB session record keeps so an append can refuse one that closes
 * a parent cycle through a stored entry whose parent was missing when it was written: the
 * record lists those dangling parent ids (usually none) and its last entry's id (the parent
 * of nearly every appended entry, so finding a parent present reads nothing). Sessions
 * written before the record kept them are read once, on their first append.
 *
 * @module
 */
import { promisifyRequest } from "idb-keyval";
import { assertNoCycleAcrossAppends } from "../../src/guarded_store.ts";
import type { SessionEntry } from "../../src/schema.ts";
import { chunksOf, idKey, type SessionRecord } from "./_idb_layout.ts";

/** An entry's place in the tree. */
type Link = Pick<SessionEntry, "id" | "parentId">;

/**
 * Set a new session record's links from all its entries (a `create` or `replace`).
 *
 * @example
 * ```ts
 * import { linksOfNewSession } from "./_idb_links.ts";
 * import { newRecord } from "./_idb_layout.ts";
 * const record = newRecord("{}", {} as never);
 * linksOfNewSession(record, []); // record.dangling: []
 * ```
 */
export function linksOfNewSession(record: SessionRecord, entries: readonly Link[]): void {
  const ids = new Set(entries.map((entry) => entry.id));
  const dangling = new Set<string>();
  for (const { parentId } of entries) {
    if (parentId !== null && !ids.has(parentId)) dangling.add(parentId);
  }
  record.dangling = [...dangling];
  record.lastId = entries.at(-1)?.id;
}

/**
 * Refuse `entries` (new to the session) when one closes a parent cycle through stored
 * entries, then record them in the record's links; in the caller's transaction.
 *
 * @example
 * ```ts
 * import { appendLinks } from "./_idb_links.ts";
 * import type { SessionRecord } from "./_idb_layout.ts";
 * declare const os: IDBObjectStore, record: SessionRecord;
 * await appendLinks(os, "s", record, []);
 * ```
 */
export async function appendLinks(
  os: IDBObjectStore,
  sessionId: string,
  record: SessionRecord,
  entries: readonly SessionEntry[],
): Promise<void> {
  if (entries.length === 0) return;
  if (record.dangling === undefined) {
    linksOfNewSession(record, await storedEntryLinks(os, sessionId));
  }
  const dangling = new Set(record.dangling);
  const named = new Set(entries.filter((entry) => dangling.has(entry.id)).map((e) => e.id));
  if (named.size > 0) {
    const parents = new Map(
      (await storedEntryLinks(os, sessionId)).map((entry) => [entry.id, entry.parentId]),
    );
    assertNoCycleAcrossAppends(sessionId, entries, named, (id) => parents.get(id));
  }
  const present = new Set<string>();
  if (record.lastId !== undefined) present.add(record.lastId);
  for (const { id, parentId } of entries) {
    dangling.delete(id);
    present.add(id);
    if (parentId === null || present.has(parentId)) continue;
    const place = await promisifyRequest(os.get(idKey(sessionId, parentId)));
    if (place === undefined && !entries.some((entry) => entry.id === parentId)) {
      dangling.add(parentId);
    }
  }
  record.dangling = [...dangling];
  record.lastId = entries.at(-1)!.id;
}

/** Each stored entry's id and parent id, in order, read from the session's chunks. */
async function storedEntryLinks(
  os: IDBObjectStore,
  sessionId: string,
): Promise<Link[]> {
  const chunks = await promisifyRequest<unknown[]>(os.getAll(chunksOf(sessionId)));
  const links: Link[] = [];
  for (const chunk of chunks) {
    if (!Array.isArray(chunk)) continue; // loading reports the damage
    for (const line of chunk) {
      try {
        const { id, parentId } = JSON.parse(String(line)) as Partial<SessionEntry>;
        if (typeof id === "string") {
          links.push({ id, parentId: typeof parentId === "string" ? parentId : null });
        }
      } catch {
        // a damaged line: loading the session reports it
      }
    }
  }
  return links;
}
