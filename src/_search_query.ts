/**
 * The search query language, and matching, scoring and snippets over one text. Every store
 * uses this module: an indexed store (SQLite FTS) only narrows the candidates, then the
 * same {@link matchFolded} decides and scores, so an index and a scan give the same hits.
 *
 * Language (case-insensitive; terms are separated by whitespace):
 * - `word`: matches anywhere in a text, also inside a word, so parts of code identifiers
 *   (`refreshTok` finds `refreshToken`) and CJK text (no spaces between words) are found;
 * - `"quoted phrase"`: the words in this order, any whitespace between them;
 * - `prefix*`: only where a word starts with `prefix` (`log*` finds `logger`, not `catalog`);
 * - `-word`, `-"phrase"`: texts containing it are left out.
 * All positive terms must match in the same text (one role of one entry).
 *
 * @module
 */
import { InvalidArgumentError } from "./errors.ts";

/**
 * One term of a parsed query. `text` and `parts` are case-folded.
 *
 * @example
 * ```ts
 * import { parseSearchQuery, type SearchTerm } from "./_search_query.ts";
 * const [term]: SearchTerm[] = parseSearchQuery('"fix the bug"').terms;
 * term.kind; // "phrase"
 * ```
 */
export interface SearchTerm {
  kind: "word" | "phrase" | "prefix";
  /** Left-out term (`-word`). */
  exclude: boolean;
  /** The folded term; a phrase's words are joined by one space. */
  text: string;
  /** The whitespace-separated words of the term, folded (one for a word or prefix). */
  parts: string[];
}

/**
 * A parsed query (see the module documentation for the language).
 *
 * @example
 * ```ts
 * import { parseSearchQuery } from "./_search_query.ts";
 * const query = parseSearchQuery('token* "fix the bug" -draft');
 * query.terms.length; // 3
 * ```
 */
export interface SearchQuery {
  /** The text that was parsed. */
  source: string;
  terms: SearchTerm[];
  /** One pattern per term, in `terms` order (global, Unicode). */
  readonly patterns: RegExp[];
}

/**
 * The most terms one query may have: every store answers up to it alike (an SQL store
 * turns each term into conditions, and SQLite refuses an expression 1,000 levels deep).
 */
const MAX_SEARCH_TERMS = 256;

/**
 * Parse a query; rejects with `InvalidArgumentError` when it has no positive term (an
 * empty query, or only exclusions, would match everything) or more than 256 terms.
 *
 * @example
 * ```ts
 * import { parseSearchQuery } from "./_search_query.ts";
 * parseSearchQuery("refreshTok -test").terms.map((t) => t.text); // ["refreshtok", "test"]
 * ```
 */
export function parseSearchQuery(source: string): SearchQuery {
  if (typeof source !== "string") {
    throw new InvalidArgumentError("The search query must be a string");
  }
  const terms: SearchTerm[] = [];
  for (const match of source.matchAll(/(-?)"([^"]*)"?|(\S+)/g)) {
    if (match[3] === undefined) {
      const parts = fold(match[2]).split(/\s+/).filter(Boolean);
      if (parts.length === 0) continue;
      const kind = parts.length === 1 ? "word" : "phrase";
      terms.push({ kind, exclude: match[1] === "-", text: parts.join(" "), parts });
      continue;
    }
    let word = match[3];
    const exclude = word.length > 1 && word.startsWith("-");
    if (exclude) word = word.slice(1);
    const prefix = /[^*]\*+$/.test(word);
    if (prefix) word = word.replace(/\*+$/, "");
    if (word === "-" || /^\*+$/.test(word)) continue;
    const text = fold(word);
    terms.push({ kind: prefix ? "prefix" : "word", exclude, text, parts: [text] });
  }
  if (terms.length > MAX_SEARCH_TERMS) {
    throw new InvalidArgumentError(
      `The search query has ${terms.length} terms; at most ${MAX_SEARCH_TERMS} are searched at once`,
    );
  }
  if (!terms.some((term) => !term.exclude)) {
    throw new InvalidArgumentError(
      `The search query ${JSON.stringify(source)} has no term to find`,
    );
  }
  return { source, terms, patterns: terms.map(termPattern) };
}

/** Case folding used on both sides of every comparison. */
function fold(text: string): string {
  return text.toLowerCase();
}

const SYNTAX = /[\\^$.*+?()[\]{}|]/g;
/** Scripts written without spaces between words: a prefix may start anywhere in them. */
const UNSPACED =
  /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/u;

function termPattern(term: SearchTerm): RegExp {
  const body = term.parts.map((part) => part.replace(SYNTAX, "\\$&")).join("\\s+");
  const start = term.kind === "prefix" && !UNSPACED.test(term.text) ? "(?<![\\p{L}\\p{N}_])" : "";
  return new RegExp(start + body, "gu");
}

/**
 * A folded text, with the map back to the original's UTF-16 offsets when folding changed
 * lengths (a few characters, like `İ`, lower-case to two code units).
 */
export interface FoldedText {
  text: string;
  /** `offsets[i]` is the original offset of folded offset `i` (length + 1); absent: identity. */
  offsets?: number[];
}

/**
 * Fold a text for matching (what indexes store and {@link matchFolded} reads).
 *
 * @example
 * ```ts
 * import { foldSearchText } from "./_search_query.ts";
 * foldSearchText("RefreshToken").text; // "refreshtoken"
 * ```
 */
export function foldSearchText(original: string): FoldedText {
  const text = fold(original);
  if (text.length === original.length) return { text };
  const offsets: number[] = [];
  let folded = "";
  for (let i = 0; i < original.length;) {
    const char = String.fromCodePoint(original.codePointAt(i)!);
    const lower = fold(char);
    for (let k = 0; k < lower.length; k++) offsets.push(i);
    folded += lower;
    i += char.length;
  }
  offsets.push(original.length);
  return { text: folded, offsets };
}

/**
 * Whether a folded text matches, how well, and where.
 *
 * @example
 * ```ts
 * import { matchFolded, parseSearchQuery, type TextMatch } from "./_search_query.ts";
 * const match: TextMatch | null = matchFolded("call refreshtoken()", parseSearchQuery("refreshTok"));
 * match?.ranges; // [[5, 15]]
 * ```
 */
export interface TextMatch {
  /** Higher is better; equal for equal texts in every store. */
  score: number;
  /** Matched spans, sorted and non-overlapping, as `[start, end)` offsets. */
  ranges: [number, number][];
}

/**
 * Match a folded text (see {@link foldSearchText}) against a query: `null` unless every
 * positive term occurs and no excluded one does. Each positive term scores by its best
 * match: 1 inside a word, 2 at the start of a word, 3 as a whole word (a `prefix*` term
 * only matches at word starts and scores 3). How often a term occurs does not count, so
 * the best score ({@link maxSearchScore}) is common and a newest-first walk over the
 * candidates can stop once enough texts reach it.
 *
 * @example
 * ```ts
 * import { foldSearchText, matchFolded, parseSearchQuery } from "./_search_query.ts";
 * const query = parseSearchQuery("token -draft");
 * matchFolded(foldSearchText("The Token").text, query)?.score; // 3
 * matchFolded("a draft token", query); // null
 * ```
 */
export function matchFolded(text: string, query: SearchQuery): TextMatch | null {
  const ranges: [number, number][] = [];
  const score = scoreTerms(text, query, ranges);
  return score === null ? null : { score, ranges: mergeRanges(ranges) };
}

/**
 * The score {@link matchFolded} gives, or `null` for no match, without the ranges: a term
 * stops being searched at its first whole-word match (its best), so a common word in a
 * long text costs a match or two, not every one. What an index's candidates and the scan
 * are ranked by; snippets are made for the kept few. `termCap`: a score no term of this
 * text can exceed (known from an index), where a term stops being searched.
 *
 * @example
 * ```ts
 * import { parseSearchQuery, scoreFolded } from "./_search_query.ts";
 * scoreFolded("the theme", parseSearchQuery("the")); // 3
 * scoreFolded("bathe", parseSearchQuery("the")); // 1
 * ```
 */
export function scoreFolded(text: string, query: SearchQuery, termCap = TERM_MAX): number | null {
  return scoreTerms(text, query, undefined, termCap);
}

/** The best score of one positive term (a whole-word match). */
const TERM_MAX = 3;

/**
 * The highest score any text can have for `query` (every positive term as a whole word):
 * a hit with it is outranked only by newer ones.
 *
 * @example
 * ```ts
 * import { maxSearchScore, parseSearchQuery } from "./_search_query.ts";
 * maxSearchScore(parseSearchQuery("fix bug -draft")); // 6
 * ```
 */
export function maxSearchScore(query: SearchQuery): number {
  return query.terms.filter((term) => !term.exclude).length * TERM_MAX;
}

/** Score every term; collects ranges into `ranges` when given (else stops early). */
function scoreTerms(
  text: string,
  query: SearchQuery,
  ranges?: [number, number][],
  termCap = TERM_MAX,
): number | null {
  let score = 0;
  for (let t = 0; t < query.terms.length; t++) {
    const term = query.terms[t];
    const pattern = query.patterns[t];
    pattern.lastIndex = 0;
    if (term.exclude) {
      if (pattern.test(text)) return null;
      continue;
    }
    // A prefix term matches only where a word starts: any match is its best.
    let best = 0;
    let count = 0;
    for (const found of text.matchAll(pattern)) {
      const start = found.index;
      const end = start + found[0].length;
      ranges?.push([start, end]);
      count++;
      if (term.kind === "prefix") best = TERM_MAX;
      else if (!isWordChar(text, start - 1)) {
        best = Math.max(best, isWordChar(text, end) ? 2 : TERM_MAX);
      } else best = Math.max(best, 1);
      if (count >= 1000) break; // enough for ranges and score; a pathological text stops here
      if (!ranges && best >= termCap) break; // the term's score is at its maximum
    }
    if (count === 0) return null;
    score += best;
  }
  return score;
}

function isWordChar(text: string, at: number): boolean {
  return at >= 0 && at < text.length && /[\p{L}\p{N}_]/u.test(text[at]);
}

function mergeRanges(ranges: [number, number][]): [number, number][] {
  ranges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const merged: [number, number][] = [];
  for (const range of ranges) {
    const last = merged.at(-1);
    if (last && range[0] <= last[1]) last[1] = Math.max(last[1], range[1]);
    else merged.push([range[0], range[1]]);
  }
  return merged;
}

/**
 * A snippet of an original text around its first match, whitespace shown as spaces, with
 * the matched spans as offsets into the snippet (not HTML: the caller marks them).
 *
 * @example
 * ```ts
 * import { parseSearchQuery, searchSnippet } from "./_search_query.ts";
 * const { snippet, ranges } = searchSnippet("Call refreshToken()", parseSearchQuery("refreshtok"));
 * snippet.slice(...ranges[0]); // "refreshTok"
 * ```
 */
export function searchSnippet(
  original: string,
  query: SearchQuery,
  width = 160,
): { snippet: string; ranges: [number, number][] } {
  const folded = foldSearchText(original);
  const match = matchFolded(folded.text, query);
  const toOriginal = (at: number) => folded.offsets ? folded.offsets[at] : at;
  const ranges = (match?.ranges ?? []).map(([s, e]) => [toOriginal(s), toOriginal(e)]);
  const first = ranges[0]?.[0] ?? 0;
  let start = Math.max(0, Math.min(first - Math.floor(width / 4), original.length - width));
  let end = Math.min(original.length, start + width);
  // Never cut a surrogate pair in half.
  if (start > 0 && isLowSurrogate(original.charCodeAt(start))) start--;
  if (end < original.length && isLowSurrogate(original.charCodeAt(end))) end++;
  const lead = start > 0 ? "…" : "";
  const snippet = lead + original.slice(start, end).replace(/\s/g, " ") +
    (end < original.length ? "…" : "");
  const shift = lead.length - start;
  const kept = ranges
    .filter(([s, e]) => e > start && s < end)
    .map(([s, e]) => [Math.max(s, start) + shift, Math.min(e, end) + shift] as [number, number]);
  return { snippet, ranges: kept };
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
