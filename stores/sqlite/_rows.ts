/**
 * How the SQLite store lays a session out in rows: the `entries` columns of each entry and
 * the `sessions` columns after `id` (derived once, in `src/_records.ts`, for SQLite and
 * PostgreSQL alike).
 *
 * @module
 */
import { contextFlags } from "../../src/context_load.ts";
import { emptyListingState, type ListingState } from "../../src/_listing.ts";
import { toJsonLine } from "../../src/jsonl.ts";
import { rawBytesOf } from "../../src/_raw_bytes.ts";
import {
  encodeEntries,
  foldEntries,
  SESSION_ROW_COLUMNS,
  sessionRowValues,
} from "../../src/_records.ts";
import type { SessionEntry, SessionHeader } from "../../src/schema.ts";
import type { SqliteValue } from "./_schema.ts";

/**
 * How the store's rows decode. Not keeping each record's text: exportJsonl reads the stored
 * text itself, and holding every row's text alive beside its object doubled the memory of
 * a load.
 *
 * @example
 * ```ts
 * import { decoding } from "./_rows.ts";
 * decoding("s1").source; // "sqlite:s1"
 * ```
 */
export const decoding = (sessionId: string): { source: string; keepText: false } => ({
  source: `sqlite:${sessionId}`,
  keepText: false,
});

/** One `entries` row before its position (`seq`) is assigned. */
export interface EntryRow {
  id: string | null;
  parentId: string | null;
  type: string;
  flags: number;
  /** The JSON text, or its UTF-8 bytes as `SqliteDatabase.textBytes` binds them. */
  json: SqliteValue;
}

/**
 * The rows of `entries`. Their JSON text is encoded once (`encodeEntries`); with
 * `textBytes` (the driver binds UTF-8 as it is), an entry parsed with `retainRaw: "bytes"`
 * keeps its original bytes instead, which are the same text.
 */
export function toEntryRows(
  entries: readonly SessionEntry[],
  textBytes?: (bytes: Uint8Array) => SqliteValue,
): EntryRow[] {
  const json: SqliteValue[] = encodeEntries(entries, textBytes && rawBytesOf);
  return entries.map((entry, i) => ({
    id: typeof entry.id === "string" ? entry.id : null,
    parentId: typeof entry.parentId === "string" ? entry.parentId : null,
    type: String(entry.type),
    flags: contextFlags(entry),
    json: typeof json[i] === "string" ? json[i] : textBytes!(json[i] as Uint8Array),
  }));
}

/**
 * A session as rows: the `entries` rows ({@link toEntryRows}) and the `sessions` columns
 * after `id` ({@link sessionColumns}), in `encodeSession`'s order (header, entries, listing).
 */
export function sessionRows(
  header: SessionHeader,
  entries: readonly SessionEntry[],
  textBytes?: (bytes: Uint8Array) => SqliteValue,
): { rows: EntryRow[]; columns: SqliteValue[] } {
  const headerText = toJsonLine(header, "header");
  const rows = toEntryRows(entries, textBytes);
  return {
    rows,
    columns: sessionColumns(header, headerText, foldEntries(emptyListingState(), entries)),
  };
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
