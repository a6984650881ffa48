/**
 * SQL pieces of the SQLite store's search (`_search.ts`): the trigram query, the session
 * filter.
 *
 * @module
 */
import type { PreparedSearch } from "../../../src/search.ts";
import type { SqliteValue } from "../_schema.ts";

/** The trigram tokenizer indexes substrings of at least this many characters. */
export const TRIGRAM = 3;
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

/**
 * What a NUL is indexed as. SQLite hands a text back only up to its first NUL (and FTS5
 * reads a query only that far), so the index holds U+FFFF, a noncharacter, in its place:
 * {@link indexedForm} on what is written and asked, {@link matchedForm} on what is read
 * back before it is matched, so a NUL is found like any other character, as the scan does.
 */
const NUL_STAND_IN = "\uffff";

/** A text or query term as the index holds it (see {@link NUL_STAND_IN}). */
export function indexedForm(text: string): string {
  return text.includes("\0") ? text.replaceAll("\0", NUL_STAND_IN) : text;
}

/** An indexed text as the matcher reads it (see {@link NUL_STAND_IN}). */
export function matchedForm(text: string): string {
  return text.includes(NUL_STAND_IN) ? text.replaceAll(NUL_STAND_IN, "\0") : text;
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
