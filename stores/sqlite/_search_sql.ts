/**
 * SQL pieces of the SQLite store's search (`_search.ts`): the trigram query, the session
 * filter, and the newest-first order of candidates.
 *
 * @module
 */
import type { PreparedSearch } from "../../src/search.ts";
import type { SqliteValue } from "./_schema.ts";

/** The trigram tokenizer indexes substrings of at least this many characters. */
export const TRIGRAM = 3;
/**
 * Whether `d.ts` has `toISOString`'s shape and reads as the same time in SQLite and in
 * `Date.parse`, so that such timestamps order by time as text. Within the shape, hours of
 * 24 and days 29 to 31 that do not exist are read as a later date by `Date.parse` (left
 * out here; only those days pay for the `strftime` check); a month or day 00 or a month
 * above 12 are not read at all (time 0: never newer than a hit of a positive time).
 */
export const ISO = `(d.ts GLOB '${
  "[0-9]".repeat(4)
}-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z'
  AND substr(d.ts, 12, 2) < '24'
  AND (substr(d.ts, 9, 2) < '29' OR strftime('%Y-%m-%dT%H:%M:%fZ', d.ts) IS d.ts))`;

/**
 * Whether the walk newest first may stop at `row` (see {@link ISO}): its timestamp has the
 * shape and a positive time, so every later row is no newer (or reads as time 0).
 */
export function isStopRow(row: Record<string, unknown>): boolean {
  return Number(row.iso) === 1 && Date.parse(String(row.ts)) > 0;
}

/** The SQL order `iso, d.ts DESC, d.id` (ISO timestamps are ASCII: same text order). */
export function newestFirst(a: Record<string, unknown>, b: Record<string, unknown>): number {
  const [x, y] = [String(a.ts), String(b.ts)];
  return Number(a.iso) - Number(b.iso) || (x < y ? 1 : x > y ? -1 : 0) ||
    Number(a.id) - Number(b.id);
}

/**
 * An FTS5 query every text containing all `parts` matches: each distinct trigram of each
 * part as its own quoted term (implicitly AND-ed). A table without positions has no
 * phrase queries, and the trigrams of a substring are a necessary condition for it.
 */
export function trigramQuery(parts: readonly string[]): string {
  const grams = new Set<string>();
  for (const part of parts) {
    const chars = [...part];
    for (let i = 0; i + TRIGRAM <= chars.length; i++) {
      grams.add(chars.slice(i, i + TRIGRAM).join(""));
    }
  }
  return [...grams].map((gram) => `"${gram.replaceAll('"', '""')}"`).join(" ");
}

/** `WHERE` over `sessions s` for the search's cwd / internal / session options. */
export function sessionFilter(
  prepared: PreparedSearch | undefined,
  idColumn: string,
): { where: string; params: SqliteValue[] } {
  const options = prepared?.options ?? { includeInternal: true };
  const where: string[] = [];
  const params: SqliteValue[] = [];
  if (options.cwd !== undefined) {
    where.push("s.cwd = ?");
    params.push(options.cwd);
  }
  if (options.sessionId !== undefined) {
    where.push(`${idColumn} = ?`);
    params.push(options.sessionId);
  }
  if (!options.includeInternal) where.push("s.internal = 0");
  return { where: where.length ? ` WHERE ${where.join(" AND ")}` : "", params };
}
