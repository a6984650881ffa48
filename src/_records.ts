/**
 * The shared record layer of the record-based stores (memory, IndexedDB, SQLite,
 * PostgreSQL): a session is stored as one header record and one record per entry, each the
 * exact JSON text of the value, plus the listing fold state (`_listing.ts`) kept current on
 * every write. One codec for all of them, so they encode, decode, export, list and fail the
 * same way:
 *
 * - Encoding keeps the text an entry was imported from (byte-identical export) and rejects a
 *   value JSON cannot store (BigInt, cycles, a `toJSON` that yields no object) with a
 *   `SessionStorageError` before anything is written.
 * - Decoding rejects a damaged record with a `SessionFormatError` that names the session,
 *   the record (the header is line 1, entries follow) and what is wrong; never a raw
 *   `SyntaxError`.
 * - Listing reads only headers and fold states; a session whose records cannot be read is
 *   left out and reported through `onSkipped`.
 *
 * @module
 */
import { SessionFormatError, SessionStorageError } from "./errors.ts";
import { rememberRawJson, toJsonLine } from "./jsonl.ts";
import {
  applyEntryToListing,
  emptyListingState,
  type ListingState,
  listingToInfo,
} from "./_listing.ts";
import { CURRENT_SESSION_VERSION, type SessionEntry, type SessionHeader } from "./schema.ts";
import {
  finishListing,
  type ListOptions,
  type LoadedSession,
  type SessionInfo,
  throwIfAborted,
} from "./store.ts";

/**
 * A session in stored form: header and entries as JSON text, and its listing fold state.
 *
 * @example
 * ```ts
 * import { encodeSession } from "./_records.ts";
 * const records = encodeSession({ type: "session", version: 4, id: "s", createdAt: "2026-01-01T00:00:00.000Z", cwd: "/p" }, []);
 * records.header; // '{"type":"session","version":4,...}'
 * ```
 */
export interface SessionRecords {
  header: string;
  entries: string[];
  listing: ListingState;
}

/**
 * A stored entry line's id, without failing: a damaged line has none (loading the session
 * reports the damage). For stores that index their entry ids.
 *
 * @example
 * ```ts
 * import { entryIdOfLine } from "./_records.ts";
 * entryIdOfLine('{"type":"label","id":"a"}'); // "a"
 * entryIdOfLine("{torn"); // undefined
 * ```
 */
export function entryIdOfLine(line: unknown): string | undefined {
  try {
    const id = (JSON.parse(String(line)) as { id?: unknown } | null)?.id;
    return typeof id === "string" ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Entries as stored records, all or none: `toJsonLine` of each, naming the entry that
 * cannot be stored in the `SessionStorageError`.
 *
 * @example
 * ```ts
 * import { encodeEntries } from "./_records.ts";
 * encodeEntries([]); // []
 * ```
 */
export function encodeEntries(entries: readonly SessionEntry[]): string[];
/** With `bytesOf`: an entry's bytes where it gives them (its original UTF-8), else its text. */
export function encodeEntries(
  entries: readonly SessionEntry[],
  bytesOf: ((entry: SessionEntry) => Uint8Array | undefined) | undefined,
): Array<string | Uint8Array>;
export function encodeEntries(
  entries: readonly SessionEntry[],
  bytesOf?: (entry: SessionEntry) => Uint8Array | undefined,
): Array<string | Uint8Array> {
  return entries.map((entry, i) => bytesOf?.(entry) ?? toJsonLine(entry, `entry ${i + 1}`));
}

/**
 * A whole session as records, with the listing folded from its entries.
 *
 * @example
 * ```ts
 * import { encodeSession } from "./_records.ts";
 * const { entries, listing } = encodeSession({ type: "session", version: 4, id: "s", createdAt: "2026-01-01T00:00:00.000Z", cwd: "/p" }, []);
 * listing.messageCount; // 0
 * ```
 */
export function encodeSession(
  header: SessionHeader,
  entries: readonly SessionEntry[],
): SessionRecords {
  return {
    header: toJsonLine(header, "header"),
    entries: encodeEntries(entries),
    listing: foldEntries(emptyListingState(), entries),
  };
}

/**
 * Fold entries into a listing state (mutated and returned), as every write does. An entry
 * the fold cannot read fails like an unstorable one: `SessionStorageError`, nothing written.
 *
 * @example
 * ```ts
 * import { emptyListingState } from "./_listing.ts";
 * import { foldEntries } from "./_records.ts";
 * foldEntries(emptyListingState(), []).messageCount; // 0
 * ```
 */
export function foldEntries(state: ListingState, entries: readonly SessionEntry[]): ListingState {
  entries.forEach((entry, i) => {
    try {
      applyEntryToListing(state, entry);
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      throw new SessionStorageError(`The entry ${i + 1} cannot be stored: ${detail}`, {
        cause: error,
      });
    }
  });
  return state;
}

/** How decoded records name their session in errors, and whether they keep their text. */
export interface DecodeOptions {
  /** Label of the session in errors, e.g. `"sqlite:<id>"`. */
  source: string;
  /**
   * Remember each record's text beside its object, so `toJsonLine` writes it back byte for
   * byte (default true). A store that exports from its own stored text can pass false and
   * not hold every record's text alive twice during a load.
   */
  keepText?: boolean;
}

/**
 * Parse one stored record. A record that is not a JSON object raises `SessionFormatError`
 * with the line (header = 1, first entry = 2) and the reason.
 *
 * @example
 * ```ts
 * import { SessionFormatError } from "@mu/sessions";
 * import { decodeRecord } from "./_records.ts";
 * try { decodeRecord("{oops", 3, { source: "memory:s1" }); }
 * catch (e) { if (e instanceof SessionFormatError) console.log(e.line, e.reason); } // 3, "stored record is not valid JSON: ..."
 * ```
 */
export function decodeRecord<T extends object>(
  text: unknown,
  line: number,
  options: DecodeOptions,
): T {
  let value: unknown;
  if (typeof text !== "string") {
    throw new SessionFormatError(`stored record is ${describe(text)}, not JSON text`, {
      line,
      source: options.source,
    });
  }
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new SessionFormatError(
      `stored record is not valid JSON: ${(error as Error).message}`,
      { line, source: options.source },
      { cause: error },
    );
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new SessionFormatError("stored record is not a JSON object", {
      line,
      source: options.source,
    });
  }
  if (options.keepText !== false) rememberRawJson(value, text);
  return value as T;
}

/**
 * Parse a stored header: a JSON object with `type: "session"` and a string `id`.
 *
 * @example
 * ```ts
 * import { decodeHeader } from "./_records.ts";
 * decodeHeader('{"type":"session","version":4,"id":"s","createdAt":"2026-01-01T00:00:00.000Z","cwd":"/p"}', { source: "memory:s" }).id; // "s"
 * ```
 */
export function decodeHeader(text: unknown, options: DecodeOptions): SessionHeader {
  const header = decodeRecord<SessionHeader>(text, 1, options);
  if (header.type !== "session" || typeof header.id !== "string") {
    throw new SessionFormatError("stored header is not a session header", {
      line: 1,
      source: options.source,
    });
  }
  return header;
}

/**
 * A loaded session from its stored records (format 4: record stores hold only the current
 * format).
 *
 * @example
 * ```ts
 * import { decodeSession } from "./_records.ts";
 * const loaded = decodeSession('{"type":"session","version":4,"id":"s","createdAt":"2026-01-01T00:00:00.000Z","cwd":"/p"}', [], { source: "memory:s" });
 * loaded.entries.length; // 0
 * ```
 */
export function decodeSession(
  header: unknown,
  entries: readonly unknown[],
  options: DecodeOptions,
): LoadedSession {
  return {
    header: decodeHeader(header, options),
    entries: entries.map((text, i) => decodeRecord<SessionEntry>(text, i + 2, options)),
    sourceVersion: CURRENT_SESSION_VERSION,
    upgraded: false,
  };
}

/**
 * The session as format-4 JSONL, joined from the stored texts (nothing is parsed), so an
 * unchanged imported entry is exported byte for byte.
 *
 * @example
 * ```ts
 * import { recordsToJsonl } from "./_records.ts";
 * recordsToJsonl('{"type":"session"}', ['{"type":"custom"}']); // '{"type":"session"}\n{"type":"custom"}\n'
 * ```
 */
export function recordsToJsonl(header: string, entries: Iterable<unknown>): string {
  let out = header + "\n";
  for (const entry of entries) out += String(entry) + "\n";
  return out;
}

/**
 * A stored listing fold state (an object, or its JSON text), checked enough that a damaged
 * one raises `SessionFormatError` instead of listing wrong numbers.
 *
 * @example
 * ```ts
 * import { decodeListing } from "./_records.ts";
 * decodeListing('{"hasName":false,"messageCount":0,"lastMessageMs":0}', { source: "sqlite:s" }).messageCount; // 0
 * ```
 */
export function decodeListing(stored: unknown, options: DecodeOptions): ListingState {
  const state = typeof stored === "string"
    ? decodeRecord<ListingState>(stored, 0, { ...options, keepText: false })
    : stored as ListingState;
  if (
    state === null || typeof state !== "object" || typeof state.messageCount !== "number" ||
    typeof state.lastMessageMs !== "number"
  ) {
    throw new SessionFormatError("stored listing state is damaged", { source: options.source });
  }
  return state;
}

/**
 * One stored session as a listing reads it: its key, header text and fold state.
 *
 * @example
 * ```ts
 * import type { ListingRecord } from "./_records.ts";
 * const row: ListingRecord = { id: "s", header: '{"type":"session",...}', listing: { hasName: false, messageCount: 0, lastMessageMs: 0 } };
 * ```
 */
export interface ListingRecord {
  /** The session id the store keeps it under (named when the session is skipped). */
  id: string;
  /** The stored header text. */
  header: unknown;
  /** The stored fold state, as an object or JSON text. */
  listing: unknown;
}

/**
 * The listing of a record store: folds each record into a {@link SessionInfo}, reports
 * progress, honours the abort signal, leaves out and reports (`onSkipped`) sessions whose
 * records are damaged, then filters and sorts like every store (`finishListing`).
 *
 * @param label prefixes the id in error sources ("sqlite" gives `sqlite:<id>`).
 * @example
 * ```ts
 * import { listRecords } from "./_records.ts";
 * const skipped: string[] = [];
 * listRecords([{ id: "bad", header: "{", listing: {} }], "memory", { onSkipped: (s) => skipped.push(s.path) });
 * skipped; // ["bad"]
 * ```
 */
export function listRecords(
  records: readonly ListingRecord[],
  label: string,
  options: ListOptions = {},
): SessionInfo[] {
  throwIfAborted(options.signal);
  const rows: SessionInfo[] = [];
  records.forEach((record, i) => {
    throwIfAborted(options.signal);
    const source = `${label}:${record.id}`;
    try {
      const header = decodeHeader(record.header, { source, keepText: false });
      rows.push(listingToInfo(header, decodeListing(record.listing, { source })));
    } catch (error) {
      options.onSkipped?.({ path: record.id, error: error as Error });
    }
    options.onProgress?.(i + 1, records.length);
  });
  if (records.length === 0) options.onProgress?.(0, 0);
  return finishListing(rows, options);
}

/**
 * The per-session columns of the SQL stores (SQLite, PostgreSQL) after `id`, in the order
 * {@link sessionRowValues} gives their values.
 */
export const SESSION_ROW_COLUMNS =
  "cwd, created_at, modified, header, internal, workflow, parent_session_id, listing";

/**
 * The per-session column values of a header, its stored text and its listing fold state, in
 * {@link SESSION_ROW_COLUMNS} order (`internal` as a boolean: each driver stores it its way).
 *
 * @example
 * ```ts
 * import { emptyListingState } from "./_listing.ts";
 * import { sessionRowValues } from "./_records.ts";
 * const header = { type: "session" as const, version: 4 as const, id: "s", createdAt: "2026-01-01T00:00:00.000Z", cwd: "/p" };
 * sessionRowValues(header, JSON.stringify(header), emptyListingState())[0]; // "/p"
 * ```
 */
export function sessionRowValues(
  header: SessionHeader,
  headerText: string,
  listing: ListingState,
): [string, number, number, string, boolean, string | null, string | null, string] {
  const info = listingToInfo(header, listing);
  return [
    info.cwd,
    info.created.getTime(),
    info.modified.getTime(),
    headerText,
    info.internal === true,
    header.workflow === undefined ? null : JSON.stringify(header.workflow) ?? null,
    info.parentSessionId ?? null,
    JSON.stringify(listing),
  ];
}

function describe(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "a list" : `a ${typeof value}`;
}
