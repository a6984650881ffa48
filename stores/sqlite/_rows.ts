/**
 * How the SQLite store lays a session out in rows: the `entries` columns of each entry and
 * the `sessions` columns after `id` (derived once, in `src/records.ts`, for SQLite and
 * PostgreSQL alike).
 *
 * @module
 */
import { contextFlags } from "../../src/context_load.ts";
import type { ListingState } from "../../src/listing.ts";
import { encodeEntries, sessionRowFields } from "../../src/records.ts";
import type { SessionEntry, SessionHeader } from "../../src/schema.ts";
import type { SqliteValue } from "./_schema.ts";

/** One `entries` row before its position (`seq`) is assigned. */
export interface EntryRow {
  id: string | null;
  parentId: string | null;
  type: string;
  flags: number;
  json: string;
}

/** The rows of `entries` (their JSON text encoded once unless given). */
export function toEntryRows(
  entries: readonly SessionEntry[],
  json = encodeEntries(entries),
): EntryRow[] {
  return entries.map((entry, i) => ({
    id: typeof entry.id === "string" ? entry.id : null,
    parentId: typeof entry.parentId === "string" ? entry.parentId : null,
    type: String(entry.type),
    flags: contextFlags(entry),
    json: json[i],
  }));
}

/** The `sessions` columns after `id`, in {@link SESSION_COLUMNS} order. */
export function sessionColumns(
  header: SessionHeader,
  headerText: string,
  listing: ListingState,
): SqliteValue[] {
  const row = sessionRowFields(header, headerText, listing);
  return [
    row.cwd,
    row.createdMs,
    row.modifiedMs,
    row.headerText,
    row.internal ? 1 : 0,
    row.workflow,
    row.parentSessionId,
    row.listing,
  ];
}

/** The `sessions` columns after `id`, comma-separated (for INSERT). */
export const SESSION_COLUMNS =
  "cwd, created_at, modified, header, internal, workflow, parent_session_id, listing";
/** `column = ?` for each of {@link SESSION_COLUMNS} (for UPDATE). */
export const SESSION_UPDATE = SESSION_COLUMNS.split(", ").map((column) => `${column} = ?`).join(
  ", ",
);
