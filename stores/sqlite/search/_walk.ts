/**
 * The SQLite search's candidate walk (`_search.ts`): index rows that can match, offered to
 * the kept hits newest first, stopping once no older row can be kept.
 *
 * Order without sorting: `search_docs.tkey` is the time the hit order compares
 * (`searchTime`: `Date.parse`, 0 when unreadable), and `search_docs_by_time (tkey DESC,
 * id)` lets SQLite walk rows in that order. Rows of equal `tkey` are ordered among
 * themselves by `TopHits.offer` (sessions, entries, roles), and the stop compares `tkey`
 * strictly, so the walk keeps exactly the scan's hits.
 *
 * Plan per query: a query whose FTS match set is small (a LIMIT probe reads at most
 * `SORT_BELOW` ids) sorts it (cheap); a common one first walks the newest rows checking
 * their texts in SQL (`instr`), where a common word settles in a few milliseconds, then
 * walks the time index further probing each row's membership in the match set, a page at a
 * time, reading texts only for the rows visited. A walk that has not settled after a few
 * pages (the best score is rare) reads the older candidates' texts in one unsorted pass. A
 * query without FTS narrowing (terms under three characters) walks with `instr` throughout.
 *
 * Passes (`_bound.ts`): "the best score" is the best the rows still to walk can
 * reach. The rows that can reach the query's best score (whole words, from the word index)
 * are walked first, then those that can reach the next score, and only then every
 * candidate, bounded by the score left; a row is visited once across the passes.
 *
 * @module
 */
import type { PreparedSearch, SearchCandidate, TopHits } from "../../../src/search.ts";
import { throwIfAborted } from "../../../src/store.ts";
import { scoreFolded } from "../../../src/_search_query.ts";
import type { SqliteStatement, SqliteValue } from "../_schema.ts";
import { scorePasses } from "./_bound.ts";
import { indexedForm, matchedForm, sessionFilter, TRIGRAM, trigramQuery } from "./_sql.ts";

/** Where a candidate's original text is: the entry row. */
export interface SqliteHitRef {
  seq: number;
}

/** What the walk needs of the index. */
export interface WalkSource {
  statement(sql: string): SqliteStatement;
  /** Whether listings show the session (else its rows are skipped, as the scan skips it). */
  listable(sessionId: string): boolean;
  /** SQL listing the sessions the index cannot answer for (default: the pending ones). */
  skipped?: string;
}

/** Match sets smaller than this are sorted; larger ones walk the time index. */
export const SORT_BELOW = 2048;
/**
 * Rows of the first page of a walk (at least; 16 per hit asked for), pages walked at most
 * (each twice the last). A page costs its match set again, while rows are cheap without
 * their texts (read for the rows visited only); a walk that does not settle reads its
 * pages' texts in batches, slower than the unsorted pass that follows.
 */
const FIRST_PAGE = 1024;
/**
 * Pages of the newest rows whose texts are checked in SQL before a common word's match set
 * is evaluated (64, 256, 1,024, 4,096 rows: a few milliseconds at most).
 */
const DENSE_FIRST = 64;
const DENSE_GROWTH = 4;
const DENSE_PAGES = 4;
const WALK_PAGES = 3;
const PAGE_GROWTH = 2;
/** Texts read at once. */
const TEXT_BATCH = 64;

/** The FTS5 query narrowing `prepared` to texts that can match, or `undefined` (none). */
function ftsQuery(prepared: PreparedSearch): string | undefined {
  // Indexed texts have whitespace runs collapsed to one space (`indexText`), so a phrase
  // (its words joined by one space) is a substring of every text it matches.
  const parts = prepared.query.terms.filter((term) => !term.exclude)
    .flatMap((term) => term.kind === "phrase" ? [term.text] : term.parts)
    .filter((part) => [...part].length >= TRIGRAM);
  return parts.length ? trigramQuery(parts.map(indexedForm)) : undefined;
}

/** Offer the index's candidates for `prepared` into `top` (see the module documentation). */
export function walkCandidates(
  source: WalkSource,
  prepared: PreparedSearch,
  top: TopHits<SqliteHitRef>,
): void {
  const passes = scorePasses(prepared.query);
  const match = ftsQuery(prepared);
  let ids: number[] | undefined;
  if (match !== undefined) {
    // A small trigram match set (most phrases, rare words) is sorted and read whole: cheaper
    // than any pass over the word index, whose sets (each word alone) can be far larger.
    ids = matchIds(source, "search_fts", match);
    if (ids.length < SORT_BELOW) {
      new Walk(source, prepared, top, passes[0].bound, undefined).matchSet(
        "search_fts",
        match,
        ids,
      );
      return;
    }
  }
  // Rows a pass visited: a later pass's rows include them (its set holds every lower level).
  const seen = passes.length > 1 ? new Set<number>() : undefined;
  for (const pass of passes) {
    if (!top.wants(pass.bound)) return; // the list is full of hits scoring more than any row left
    const walk = new Walk(source, prepared, top, pass.bound, seen);
    if (
      pass.words !== undefined ? walk.matchSet("search_words", pass.words) : walk.all(match, ids)
    ) {
      return;
    }
  }
}

/** One pass: rows newest first, offered until no older row with `best` or less can be kept. */
class Walk {
  readonly #source: WalkSource;
  readonly #prepared: PreparedSearch;
  readonly #top: TopHits<SqliteHitRef>;
  readonly #best: number;
  readonly #seen: Set<number> | undefined;
  readonly #signal: AbortSignal | undefined;
  readonly #listable = new Map<string, boolean>();
  readonly #where: string;
  readonly #params: SqliteValue[];
  readonly #conditions: string[];
  readonly #bind: SqliteValue[];
  /**
   * The highest score a term of a row still to visit can have: the pass's bound when the
   * query has one term (rows above it were visited by earlier passes), else 3.
   */
  readonly #termCap: number;
  /** Substrings every matching indexed text contains (a phrase's words as indexed). */
  readonly #needles: string[];

  constructor(
    source: WalkSource,
    prepared: PreparedSearch,
    top: TopHits<SqliteHitRef>,
    best: number,
    seen: Set<number> | undefined,
  ) {
    this.#source = source;
    this.#prepared = prepared;
    this.#top = top;
    this.#best = best;
    this.#seen = seen;
    this.#signal = prepared.options.signal;
    const { where, params } = sessionFilter(prepared, "d.session_id");
    this.#where = where;
    this.#params = params;
    const roles = [...prepared.roles];
    this.#conditions = [
      `d.role IN (${roles.map(() => "?").join(", ")})`,
      `d.session_id NOT IN (${source.skipped ?? "SELECT session_id FROM search_pending"})`,
    ];
    this.#bind = roles;
    const positive = prepared.query.terms.filter((term) => !term.exclude);
    this.#termCap = positive.length === 1 ? best : 3;
    this.#needles = prepared.query.terms.filter((term) => !term.exclude)
      .map((term) =>
        indexedForm(
          term.kind === "phrase"
            ? term.text
            : term.parts.reduce((a, b) => (b.length > a.length ? b : a)),
        )
      );
  }

  /** `JOIN sessions ... WHERE` / `WHERE` with `extra` and the search's conditions. */
  #filter(extra: string[], join = "JOIN"): string {
    // `join`: CROSS JOIN keeps `d` the outer loop, walked in index order.
    return `${
      this.#where ? `${join} sessions s ON s.id = d.session_id ${this.#where} AND` : "WHERE"
    } ${[...extra, ...this.#conditions].join(" AND ")}`;
  }

  /** Offer one row; true once the walk may stop before it. */
  #visit(row: Record<string, unknown>, text: string | undefined): boolean {
    if (this.#top.settledAt(this.#best, Number(row.tkey))) return true;
    if (this.#seen) {
      const id = Number(row.id);
      if (this.#seen.has(id)) return false;
      this.#seen.add(id);
    }
    const sessionId = String(row.session_id);
    if (text === undefined) return false;
    let ok = this.#listable.get(sessionId);
    if (ok === undefined) this.#listable.set(sessionId, ok = this.#source.listable(sessionId));
    if (!ok) return false;
    const score = scoreFolded(matchedForm(text), this.#prepared.query, this.#termCap);
    if (score === null || !this.#top.wants(score)) return false;
    this.#top.offer({
      sessionId,
      entryId: String(row.entry_id),
      role: row.role as SearchCandidate["role"],
      timestamp: String(row.ts),
      score,
      ref: { seq: Number(row.seq) },
    });
    return false;
  }

  /** Visit rows in order, their texts read in batches; true once settled. */
  #visitAll(rows: Record<string, unknown>[]): boolean {
    for (let at = 0; at < rows.length; at += TEXT_BATCH) {
      throwIfAborted(this.#signal);
      const batch = rows.slice(at, at + TEXT_BATCH)
        .filter((row) =>
          !this.#seen?.has(Number(row.id)) || this.#top.settledAt(this.#best, Number(row.tkey))
        );
      const texts = readTexts(this.#source, batch.map((row) => Number(row.id)), this.#needles);
      for (const row of batch) if (this.#visit(row, texts.get(Number(row.id)))) return true;
    }
    return false;
  }

  /**
   * Walk the time index (no sort) a page at a time from where the last page ended, up to
   * `pages` pages; `page(keyset)` reads one, `visitPage` tells whether the walk settled.
   * Returns where it stopped: `true` settled, `false` done, else the position to go on.
   */
  #walk(
    pages: number,
    page: (keyset: string[], at: SqliteValue[], size: number) => Record<string, unknown>[],
    visitPage: (rows: Record<string, unknown>[]) => boolean,
    start?: [number, number],
    first = Math.max(FIRST_PAGE, this.#prepared.limit * 16),
    growth = PAGE_GROWTH,
  ): [number, number] | boolean {
    let position = start;
    let size = first;
    for (let n = 0; n < pages; n++, size *= growth) {
      const rows = page(
        position ? [AFTER] : [],
        position ? [position[0], position[0], position[1]] : [],
        size,
      );
      if (visitPage(rows)) return true;
      if (rows.length < size) return false;
      const last = rows.at(-1)!;
      position = [Number(last.tkey), Number(last.id)];
    }
    return position ?? false;
  }

  /**
   * Every candidate: narrowed by the trigram index (`match`, its first `ids` when probed), or
   * (short terms) by `instr` alone.
   */
  all(match: string | undefined, ids?: number[]): boolean {
    return match === undefined ? this.#instrOnly() : this.matchSet("search_fts", match, ids);
  }

  /** No FTS narrowing: the walk reads every text with its row (matching ones only). */
  #instrOnly(): boolean {
    const needles = this.#prepared.query.terms.filter((term) => !term.exclude)
      .map((term) => indexedForm(term.parts.reduce((a, b) => (b.length > a.length ? b : a))));
    const instr = needles.map(() => "instr(f.c0, ?) > 0");
    return this.#walk(
      Infinity,
      (keyset, at, size) =>
        this.#source.statement(
          `${SELECT}, f.c0 AS text ${WALKED} CROSS JOIN search_fts_content f ON f.id = d.id ${
            this.#filter([...keyset, ...instr], "CROSS JOIN")
          } ${ORDER}`,
        ).all(...this.#params, ...at, ...needles, ...this.#bind, size),
      (rows) => {
        for (const row of rows) if (this.#visit(row, String(row.text))) return true;
        throwIfAborted(this.#signal);
        return false;
      },
      undefined,
      DENSE_FIRST,
      DENSE_GROWTH,
    ) === true; // small pages first: texts come along
  }

  /** The rows of an FTS5 match over `table` (`search_fts` or `search_words`); true: settled. */
  matchSet(table: string, match: string, ids = matchIds(this.#source, table, match)): boolean {
    const source = this.#source;
    const members = `SELECT rowid FROM ${table} WHERE ${table} MATCH ?`;
    if (ids.length < SORT_BELOW) {
      // Few candidates: sorting them costs less than probing the time index for them, and
      // their ids save evaluating the match again.
      return this.#visitAll(
        source.statement(
          `${SELECT} FROM search_docs d ${
            this.#filter(["d.id IN (SELECT value FROM json_each(?))"])
          } ORDER BY d.tkey DESC, d.id`,
        ).all(...this.#params, JSON.stringify(ids), ...this.#bind),
      );
    }
    // Many candidates. First the newest rows, each text checked in SQL (instr of every
    // term; a phrase's words as indexed): a common word settles there without evaluating its
    // whole match set (which grows with the sessions). Only matching texts are returned.
    const needles = this.#needles;
    const contains = needles.map(() => "instr(f.c0, ?) > 0").join(" AND ");
    const newest = this.#walk(
      DENSE_PAGES,
      (keyset, at, size) =>
        source.statement(
          `${SELECT}, CASE WHEN ${contains} THEN f.c0 END AS text ${WALKED}
        CROSS JOIN search_fts_content f ON f.id = d.id ${
            this.#filter(keyset, "CROSS JOIN")
          } ${ORDER}`,
        ).all(...needles, ...this.#params, ...at, ...this.#bind, size),
      (rows) => {
        throwIfAborted(this.#signal);
        return rows.some((row) =>
          this.#visit(row, row.text == null ? undefined : String(row.text))
        );
      },
      undefined,
      DENSE_FIRST,
      DENSE_GROWTH,
    );
    if (typeof newest === "boolean") return newest;
    // Then the time index from there, probing each row for the match.
    const probe = `d.id IN (${members})`;
    const position = this.#walk(
      WALK_PAGES,
      (keyset, at, size) =>
        source.statement(
          `${SELECT} ${WALKED} ${this.#filter([probe, ...keyset], "CROSS JOIN")} ${ORDER}`,
        ).all(...this.#params, match, ...at, ...this.#bind, size),
      (rows) => this.#visitAll(rows),
      newest,
    );
    if (typeof position === "boolean") return position;
    // The bound is rare for this query: read the older candidates in one pass, in any
    // order (sorting them costs more than their texts).
    const rest = source.statement(
      `${SELECT}, f.c0 AS text FROM search_docs d JOIN search_fts_content f ON f.id = d.id ${
        this.#filter([probe, AFTER, ...needles.map(() => "instr(f.c0, ?) > 0")])
      }`,
    ).all(...this.#params, match, position[0], position[0], position[1], ...needles, ...this.#bind);
    let settled = false;
    for (let i = 0; i < rest.length; i++) {
      if ((i & 1023) === 1023) throwIfAborted(this.#signal);
      // Unordered: a row past the settling point is left out, not the end of the walk.
      if (this.#visit(rest[i], String(rest[i].text))) settled = true;
    }
    return settled;
  }
}

const SELECT = "SELECT d.id, d.session_id, d.seq, d.entry_id, d.role, d.ts, d.tkey";
const WALKED = "FROM search_docs d INDEXED BY search_docs_by_time";
const ORDER = "ORDER BY d.tkey DESC, d.id LIMIT ?";
// `d.tkey <= ?` first: a range the index seeks to (an OR alone scans from the start).
const AFTER = "d.tkey <= ? AND (d.tkey < ? OR d.id > ?)";

/** The match set of an FTS5 query up to SORT_BELOW rows: when smaller, all of it. */
function matchIds(source: WalkSource, table: string, match: string): number[] {
  return source.statement(`SELECT rowid FROM ${table} WHERE ${table} MATCH ? LIMIT ?`)
    .all(match, SORT_BELOW).map((row) => Number(row.rowid));
}

/**
 * The folded texts of index rows, by id. Read from FTS5's content table (its documented
 * layout: `id`, one `cN` per column), three times faster than FTS5's own rowid lookups.
 */
function readTexts(
  source: WalkSource,
  ids: readonly number[],
  needles: readonly string[],
): Map<number, string> {
  // The ids as one JSON parameter: one prepared statement for every batch size. Texts
  // without every needle cannot match: SQL leaves them out.
  const rows = source.statement(
    `SELECT id, c0 AS text FROM search_fts_content WHERE id IN (SELECT value FROM json_each(?))${
      needles.map(() => " AND instr(c0, ?) > 0").join("")
    }`,
  ).all(JSON.stringify(ids), ...needles);
  return new Map(rows.map((row) => [Number(row.id), String(row.text)]));
}
