/**
 * Score bounds from the word index (schema step 8): which rows can reach which score, so a
 * walk stops once it holds `limit` hits at the best score still reachable, not the best
 * any text could have.
 *
 * A term's score in a text (`scoreFolded`) is 3 for a whole-word match, 2 at a word start,
 * 1 inside a word. For a term made of word characters only (`[\p{L}\p{N}_]`), a whole-word
 * match is exactly a token of the word index (`search_words`: FTS5's unicode61 tokenizer
 * with the same word characters), and a word-start match is a token beginning with it (an
 * FTS5 prefix query); a phrase's words, whitespace between them, are consecutive tokens
 * (an FTS5 phrase query). So the rows where a query can score at least `B` are an FTS5 query
 * over `search_words`, and the walk visits them level by level (`scorePasses`): the rows
 * that can score the best first, then the next level, and only then, if the list is still
 * not full, every candidate. Identifier fragments (`refreshTok`) and CJK substrings, which
 * rarely or never reach the best score, settle at the score they do reach instead of
 * reading every candidate.
 *
 * The bound only has to be an upper bound: unicode61's character classes (Unicode 6.1) may
 * see fewer letters than JavaScript's, which splits tokens and finds more rows, never fewer
 * (a character that was a letter in 6.1 and is none now would break this; none is known to
 * occur in transcripts). Characters outside the BMP are indexed as spaces (`wordsText`).
 *
 * @module
 */
import type { SearchQuery } from "../../../src/_search_query.ts";

/** The word index's tokenizer: word characters as `scoreFolded` reads them. */
export const WORDS_TOKENIZER = `unicode61 remove_diacritics 0 categories 'L* N*' tokenchars '_'`;

/** One pass of a walk: rows that can score `bound`, or (no `words`) every candidate. */
export interface ScorePass {
  /** The highest score the rows of this pass (and every later one) can have. */
  bound: number;
  /** FTS5 query over `search_words` for the rows that can reach `bound`; none: all rows. */
  words?: string;
}

/** Queries with more positive terms than this walk in one pass (3^n level combinations). */
const MAX_TERMS = 3;
/** Word characters only, inside the BMP (see `wordsText`). */
const WORD = /^[\p{L}\p{N}_]+$/u;
const ASTRAL = /[\u{10000}-\u{10FFFF}]/u;

/** Per positive term: the FTS5 condition for scores 3 and 2 (`null`: any row can). */
type Levels = { 3: string | null; 2: string | null; 1: null } | { 3: null };

function termLevels(term: SearchQuery["terms"][number]): Levels {
  // A prefix term matches only at word starts and always scores 3.
  if (
    term.kind === "prefix" || !term.parts.every((part) => WORD.test(part) && !ASTRAL.test(part))
  ) return { 3: null };
  // The parts as consecutive tokens (a phrase's parts have only whitespace between them).
  const phrase = `"${term.parts.join(" ")}"`;
  const last = term.parts.at(-1)!;
  // A prefix query over a short ASCII part merges the lists of very many tokens (`re*`):
  // such a part gets no level 2 condition (its rows count as able to reach 2).
  const prefixable = [...last].length >= 3 || last.charCodeAt(0) > 0x7f;
  return { 3: phrase, 2: prefixable ? `${phrase} *` : null, 1: null };
}

/**
 * The passes of a walk for `query`, highest bound first; the last has no `words` (every
 * candidate, bounded by its `bound`).
 *
 * @example
 * ```ts
 * import { parseSearchQuery } from "../../../src/_search_query.ts";
 * import { scorePasses } from "./_bound.ts";
 * scorePasses(parseSearchQuery("refreshtok"));
 * // [{ bound: 3, words: '"refreshtok"' }, { bound: 2, words: '"refreshtok" *' }, { bound: 1 }]
 * ```
 */
export function scorePasses(query: SearchQuery): ScorePass[] {
  const positive = query.terms.filter((term) => !term.exclude);
  const levels = positive.map(termLevels);
  const best = positive.length * 3;
  if (positive.length > MAX_TERMS) return [{ bound: best }];
  const passes: ScorePass[] = [];
  for (let bound = best; bound >= positive.length; bound--) {
    // Rows that can score `bound`: some choice of a level per term summing to it, each
    // term's condition for its level holding (the conditions nest: 3 within 2 within 1).
    const branches: string[] = [];
    let all = false;
    const choose = (t: number, sum: number, conds: string[]) => {
      if (all) return;
      if (t === levels.length) {
        if (sum !== bound) return;
        if (conds.length === 0) all = true;
        else {branches.push(
            conds.length === 1 ? conds[0] : conds.map((c) => `(${c})`).join(" AND "),
          );}
        return;
      }
      for (const [level, cond] of Object.entries(levels[t])) {
        choose(t + 1, sum + Number(level), cond === null ? conds : [...conds, cond]);
      }
    };
    choose(0, 0, []);
    if (all) {
      passes.push({ bound });
      return passes;
    }
    if (branches.length) {
      passes.push({
        bound,
        words: branches.length === 1 ? branches[0] : branches.map((b) => `(${b})`).join(" OR "),
      });
    }
  }
  return passes; // not reached: the lowest bound lets every term be unconditioned
}
