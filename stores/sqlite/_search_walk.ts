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
 * @module
 */
import type { PreparedSearch, SearchCandidate, TopHits } from "../../src/search.ts";
import { throwIfAborted } from "../../src/store.ts";
import { maxSearchScore, scoreFolded } from "../../src/search_query.ts";
import type { SqliteStatement, SqliteValue } from "./_schema.ts";
import { sessionFilter, TRIGRAM, trigramQuery } from "./_search_sql.ts";

/** Where a candidate's original text is: the entry row. */
export interface SqliteHitRef {
  seq: number;
}

/** What the walk needs of the index. */
export interface WalkSource {
  statement(sql: string): SqliteStatement;
  /** Whether listings show the session (else its rows are skipped, as the scan skips it). */
  listable(sessionId: string): boolean;
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
  return parts.length ? trigramQuery(parts) : undefined;
}

/** Offer the index's candidates for `prepared` into `top` (see the module documentation). */
export function walkCandidates(
  source: WalkSource,
  prepared: PreparedSearch,
  top: TopHits<SqliteHitRef>,
): void {
  const signal = prepared.options.signal;
  const { where, params } = sessionFilter(prepared, "d.session_id");
  const roles = [...prepared.roles];
  const conditions = [
    `d.role IN (${roles.map(() => "?").join(", ")})`,
    "d.session_id NOT IN (SELECT session_id FROM search_pending)",
  ];
  const bind: SqliteValue[] = [...roles];
  // `join`: CROSS JOIN keeps `d` the outer loop, walked in index order.
  const filter = (extra: string[], join = "JOIN") =>
    `${where ? `${join} sessions s ON s.id = d.session_id ${where} AND` : "WHERE"} ${
      [...extra, ...conditions].join(" AND ")
    }`;
  const select = "SELECT d.id, d.session_id, d.seq, d.entry_id, d.role, d.ts, d.tkey";
  const best = maxSearchScore(prepared.query);
  const listable = new Map<string, boolean>();
  /** Offer one row; true once the walk may stop before it. */
  const visit = (row: Record<string, unknown>, text: string | undefined): boolean => {
    if (top.settledAt(best, Number(row.tkey))) return true;
    const sessionId = String(row.session_id);
    if (text === undefined) return false;
    let ok = listable.get(sessionId);
    if (ok === undefined) listable.set(sessionId, ok = source.listable(sessionId));
    if (!ok) return false;
    const score = scoreFolded(text, prepared.query);
    if (score === null || !top.wants(score)) return false;
    top.offer({
      sessionId,
      entryId: String(row.entry_id),
      role: row.role as SearchCandidate["role"],
      timestamp: String(row.ts),
      score,
      ref: { seq: Number(row.seq) },
    });
    return false;
  };
  /** Visit rows in order, their texts read in batches; true once settled. */
  const visitAll = (rows: Record<string, unknown>[]): boolean => {
    for (let at = 0; at < rows.length; at += TEXT_BATCH) {
      throwIfAborted(signal);
      const batch = rows.slice(at, at + TEXT_BATCH);
      const texts = readTexts(source, batch.map((row) => Number(row.id)));
      for (const row of batch) if (visit(row, texts.get(Number(row.id)))) return true;
    }
    return false;
  };
  // `d.tkey <= ?` first: a range the index seeks to (an OR alone scans from the start).
  const after = "d.tkey <= ? AND (d.tkey < ? OR d.id > ?)";
  /**
   * Walk the time index (no sort) a page at a time from where the last page ended, up to
   * `pages` pages; `page(keyset)` visits one and tells whether to go on. Returns where it
   * stopped (`undefined`: done).
   */
  const walk = (
    pages: number,
    page: (keyset: string[], at: SqliteValue[], size: number) => Record<string, unknown>[],
    visitPage: (rows: Record<string, unknown>[]) => boolean,
    start?: [number, number],
    first = Math.max(FIRST_PAGE, prepared.limit * 16),
    growth = PAGE_GROWTH,
  ): [number, number] | undefined => {
    let position = start;
    let size = first;
    for (let n = 0; n < pages; n++, size *= growth) {
      const rows = page(
        position ? [after] : [],
        position ? [position[0], position[0], position[1]] : [],
        size,
      );
      if (visitPage(rows) || rows.length < size) return undefined;
      const last = rows.at(-1)!;
      position = [Number(last.tkey), Number(last.id)];
    }
    return position;
  };
  const walked = `FROM search_docs d INDEXED BY search_docs_by_time`;
  const order = "ORDER BY d.tkey DESC, d.id LIMIT ?";
  const match = ftsQuery(prepared);
  if (match === undefined) {
    // No FTS narrowing: every text is read for instr anyway, so the walk reads them with
    // the rows (from FTS5's content table, see `readTexts`), matching ones only.
    const needles = prepared.query.terms.filter((term) => !term.exclude)
      .map((term) => term.parts.reduce((a, b) => (b.length > a.length ? b : a)));
    const instr = needles.map(() => "instr(f.c0, ?) > 0");
    walk(Infinity, (keyset, at, size) =>
      source.statement(
        `${select}, f.c0 AS text ${walked} CROSS JOIN search_fts_content f ON f.id = d.id ${
          filter([...keyset, ...instr], "CROSS JOIN")
        } ${order}`,
      ).all(...params, ...at, ...needles, ...bind, size), (rows) => {
      for (const row of rows) if (visit(row, String(row.text))) return true;
      throwIfAborted(signal);
      return false;
    });
    return;
  }
  // The match set up to SORT_BELOW rows: when smaller, it is all the candidates.
  const ids = source.statement(
    "SELECT rowid AS id FROM search_fts WHERE search_fts MATCH ? LIMIT ?",
  )
    .all(match, SORT_BELOW).map((row) => Number(row.id));
  if (ids.length < SORT_BELOW) {
    // Few candidates: sorting them costs less than probing the time index for them, and
    // their ids save evaluating the match again.
    visitAll(
      source.statement(
        `${select} FROM search_docs d ${
          filter(["d.id IN (SELECT value FROM json_each(?))"])
        } ORDER BY d.tkey DESC, d.id`,
      ).all(...params, JSON.stringify(ids), ...bind),
    );
    return;
  }
  // Many candidates. First the newest rows, each text checked in SQL (instr of every
  // term; a phrase's words as indexed): a common word settles there without evaluating its
  // whole match set (20-70 ms at 10,000 sessions). Only matching texts are returned.
  const needles = prepared.query.terms.filter((term) => !term.exclude)
    .map((term) =>
      term.kind === "phrase"
        ? term.text
        : term.parts.reduce((a, b) => (b.length > a.length ? b : a))
    );
  const contains = needles.map(() => "instr(f.c0, ?) > 0").join(" AND ");
  const newest = walk(
    DENSE_PAGES,
    (keyset, at, size) =>
      source.statement(
        `${select}, CASE WHEN ${contains} THEN f.c0 END AS text ${walked}
        CROSS JOIN search_fts_content f ON f.id = d.id ${filter(keyset, "CROSS JOIN")} ${order}`,
      ).all(...needles, ...params, ...at, ...bind, size),
    (rows) => {
      throwIfAborted(signal);
      return rows.some((row) => visit(row, row.text == null ? undefined : String(row.text)));
    },
    undefined,
    DENSE_FIRST,
    DENSE_GROWTH,
  );
  if (newest === undefined) return;
  // Then the time index from there, probing each row for the match.
  const probe = "d.id IN (SELECT rowid FROM search_fts WHERE search_fts MATCH ?)";
  const position = walk(
    WALK_PAGES,
    (keyset, at, size) =>
      source.statement(
        `${select} ${walked} ${filter([probe, ...keyset], "CROSS JOIN")} ${order}`,
      ).all(...params, match, ...at, ...bind, size),
    visitAll,
    newest,
  );
  if (position === undefined) return;
  // The best score is rare for this query: read the older candidates in one pass, in any
  // order (sorting them costs more than their texts).
  const rest = source.statement(
    `${select}, f.text FROM search_fts f JOIN search_docs d ON d.id = f.rowid ${
      filter(["search_fts MATCH ?", after])
    }`,
  ).all(...params, match, position[0], position[0], position[1], ...bind);
  for (let i = 0; i < rest.length; i++) {
    if ((i & 1023) === 1023) throwIfAborted(signal);
    visit(rest[i], String(rest[i].text));
  }
}

/**
 * The folded texts of index rows, by id. Read from FTS5's content table (its documented
 * layout: `id`, one `cN` per column), three times faster than FTS5's own rowid lookups.
 */
function readTexts(source: WalkSource, ids: readonly number[]): Map<number, string> {
  // The ids as one JSON parameter: one prepared statement for every batch size.
  const rows = source.statement(
    "SELECT id, c0 AS text FROM search_fts_content WHERE id IN (SELECT value FROM json_each(?))",
  ).all(JSON.stringify(ids));
  return new Map(rows.map((row) => [Number(row.id), String(row.text)]));
}
