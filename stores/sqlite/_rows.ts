/**
 * How the SQLite store lays a session out in rows: the `entries` columns of each entry and
 * the `sessions` columns after `id` (derived once, in `src/records.ts`, for SQLite and
 * PostgreSQL alike).
 *
 * @module
 */
import { contextFlags } from "../../src/context_load.ts";
import type { ListingState } from "../../src/listing.ts";
import { encodeEntries, SESSION_ROW_COLUMNS, sessionRowValues } from "../../src/records.ts";
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

/** The `sessions` columns after `id`, in {@link SESSION_COLUMNS} order (`internal` as 0/1). */
export function sessionColumns(
  header: SessionHeader,
  headerText: string,
  listing: ListingState,
): SqliteValue[] {
  return sessionRowValues(header, headerText, listing)
    .map((value) => typeof value === "boolean" ? (value ? 1 : 0) : value);
}

/** The `sessions` columns after `id`, comma-separated (for INSERT). */
export const SESSION_COLUMNS = SESSION_ROW_COLUMNS;
/** `column = ?` for each of {@link SESSION_COLUMNS} (for UPDATE). */
export const SESSION_UPDATE = SESSION_COLUMNS.split(", ").map((column) => `${column} = ?`).join(
  ", ",
);
