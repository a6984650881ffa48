/**
 * The 100 search queries of the search benchmark, drawn deterministically from the texts
 * of the data being searched (a sample of its sessions), in six kinds: common words (the
 * most frequent tokens: the slowest case for any index, nearly every text matches), rare
 * words (seen once in the sample), quoted phrases (consecutive words of one text), CJK
 * substrings, parts of code identifiers (`leafI` finds `leafId`), and prefixes (`pars*`).
 * @module
 */
import type { SessionEntry } from "../../core.ts";
import { searchFields } from "../../src/search_text.ts";
import { Rng } from "../gen/text.ts";

/** The kinds, with how many of the 100 queries each gets. */
export const QUERY_KINDS = {
  common: 20,
  rare: 20,
  phrase: 20,
  cjk: 10,
  identifier: 15,
  prefix: 15,
} as const;

/** One query and its kind. */
export interface BenchQuery {
  kind: keyof typeof QUERY_KINDS;
  text: string;
}

const TOKEN = /[\p{L}\p{N}_]+/gu;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]{2,}/gu;
const CAMEL = /^[a-z]+[A-Z][A-Za-z]*$/;

/** Queries drawn from the texts of `sample` (entries of a few sessions), same for a seed. */
export function drawQueries(sample: readonly SessionEntry[], seed = 14): BenchQuery[] {
  const rng = new Rng(seed);
  const texts = sample.flatMap((entry) => searchFields(entry).map((field) => field.text))
    .filter((text) => text.length < 20_000); // images and huge outputs add no new words
  const counts = new Map<string, number>();
  const cjk = new Set<string>();
  const camel = new Set<string>();
  for (const text of texts) {
    for (const [token] of text.matchAll(TOKEN)) {
      const folded = token.toLowerCase();
      counts.set(folded, (counts.get(folded) ?? 0) + 1);
      if (CAMEL.test(token) && token.length >= 6) camel.add(token);
    }
    for (const [run] of text.matchAll(CJK)) cjk.add(run);
  }
  const words = [...counts].filter(([word]) => /^[a-z]{3,}$/.test(word));
  const common = words.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 40)
    .map(([word]) => word);
  const rare = [...counts].filter(([word, n]) => n === 1 && word.length >= 5).map(([w]) => w)
    .sort();
  const out: BenchQuery[] = [];
  const add = (kind: BenchQuery["kind"], make: () => string | undefined) => {
    for (let i = 0, tries = 0; i < QUERY_KINDS[kind] && tries < 1000; tries++) {
      const text = make();
      if (text) out.push({ kind, text }), i++;
    }
  };
  const pick = <T>(items: readonly T[]) => items.length ? rng.pick(items) : undefined;
  add("common", () => pick(common));
  add("rare", () => pick(rare));
  add("phrase", () => {
    const tokens = [...(pick(texts) ?? "").matchAll(TOKEN)].map(([token]) => token);
    if (tokens.length < 3) return undefined;
    const at = rng.int(0, tokens.length - 3);
    return `"${tokens.slice(at, at + rng.int(2, 3)).join(" ")}"`;
  });
  const runs = [...cjk].sort();
  add("cjk", () => {
    const chars = [...(pick(runs) ?? "")];
    if (chars.length < 2) return undefined;
    const length = rng.int(2, Math.min(4, chars.length));
    const at = rng.int(0, chars.length - length);
    return chars.slice(at, at + length).join("");
  });
  const idents = [...camel].sort();
  add("identifier", () => {
    const ident = pick(idents);
    return ident?.slice(rng.int(0, 1), rng.int(4, ident.length - 1));
  });
  add("prefix", () => {
    const word = pick(words)?.[0];
    return word && word.length >= 4 ? `${word.slice(0, rng.int(3, word.length - 1))}*` : undefined;
  });
  return out;
}

/** The `q`-quantile of `values` (nearest rank). */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}
