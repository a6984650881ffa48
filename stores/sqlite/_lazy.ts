/**
 * The SQLite store's lazy open (`SessionManager.open`, see `src/lazy_index.ts`): the
 * session's ids, parents and context flags from the covering walk index, the listing fold
 * from the `sessions` row, and entry bodies read by primary key when the manager first
 * needs them, through the store's synchronous connection. Nothing else is read or parsed.
 *
 * The store can replace or delete the session under an open manager: before it does, it
 * calls {@link LazyRows.detach}, which copies every row's text, so the manager's getters
 * keep answering what the session held when it was opened (as a fully loaded manager
 * would). Closing the store does not copy (a 100k-entry session would be read whole at
 * every exit): after `close`, an entry the manager has not parsed yet raises the store's
 * closed error (`SessionStorageError`); what it parsed stays.
 *
 * @module
 */
import { decodeHeader, decodeListing, decodeRecord } from "../../src/_records.ts";
import { SessionStorageError } from "../../src/errors.ts";
import {
  type DeferredTree,
  type Detachable,
  LazyHolders,
  type LazySession,
} from "../../src/lazy_index.ts";
import type { SessionEntry } from "../../src/schema.ts";
import { readTreeText, type StatementSource, TreeText } from "./_context.ts";
import { readBranchPositions } from "./_path.ts";
import { committedLookup, planByWalk } from "./_walk.ts";
import { decoding } from "./_rows.ts";

/** A read transaction around `fn` (the store's connection). */
export type ReadTransaction = <T>(fn: () => T) => T;

/**
 * The rows behind one lazily opened session; detached rows answer from their own copy.
 * Positions are seqs (a session's rows are numbered from 0 without gaps: appends take the
 * next seq, a replace numbers from 0 again). The ids are known from the open (the tree was
 * read) or once the deferred tree is read.
 */
export class LazyRows implements Detachable {
  readonly sessionId: string;
  readonly key: string;
  readonly #statement: StatementSource;
  /** Entries at the open. */
  readonly #count: number;
  #ids?: string[];
  #tree?: { ids: string[]; parents: (string | null)[]; flags: number[] };
  #detached?: string[];
  #labels?: number[];
  #closed = false;

  constructor(statement: StatementSource, sessionId: string, count: number, ids?: string[]) {
    this.#statement = statement;
    this.sessionId = sessionId;
    this.key = sessionId;
    this.#count = count;
    this.#ids = ids;
  }

  /** The entry at `position`, parsed; its id must still be the one indexed at the open. */
  read(position: number): SessionEntry {
    this.#assertOpen();
    const text = this.#detached
      ? this.#detached[position]
      : this.#statement("SELECT json FROM entries WHERE session_id = ? AND seq = ?")
        .get(this.sessionId, position)?.json;
    if (text === undefined) throw this.#changed();
    const entry = decodeRecord<SessionEntry>(text, position + 2, decoding(this.sessionId));
    if (this.#ids && entry.id !== this.#ids[position]) throw this.#changed();
    return entry;
  }

  #changed(): SessionStorageError {
    return new SessionStorageError(
      `session ${this.sessionId} was rewritten by another connection since it was opened`,
    );
  }

  /** The compact columns of the entries at the open (read once, from the walk index). */
  tree(): { ids: string[]; parents: (string | null)[]; flags: number[] } {
    if (this.#tree) return this.#tree;
    this.#assertOpen();
    const columns = treeColumns(readTreeText(this.#statement, this.sessionId, this.#count));
    if (!columns) throw this.#changed();
    this.#ids = [...columns.ids]; // the index extends its arrays with appends
    return this.#tree = columns;
  }

  /** Positions of the label entries (a scan of the session's rows' type column). */
  labelPositions(): number[] {
    if (this.#labels) return [...this.#labels];
    this.#assertOpen();
    const rows = this.#statement(
      "SELECT seq FROM entries WHERE session_id = ? AND type = 'label' AND seq < ? ORDER BY seq",
    ).all(this.sessionId, this.#count);
    return rows.map((row) => Number(row.seq));
  }

  /**
   * `fn`'s reads in one read transaction while the rows are live (a lock per statement was
   * most of the cost of reading a page of rows on OPFS); detached or closed, `fn` as it is.
   */
  reading<T>(fn: () => T, transaction: ReadTransaction): T {
    return this.#detached || this.#closed ? fn() : transaction(fn);
  }

  /** The store closed: unread rows can no longer be read (see the module notes). */
  close(): void {
    this.#closed = true;
  }

  get closed(): boolean {
    return this.#closed;
  }

  get detached(): boolean {
    return this.#detached !== undefined;
  }

  #assertOpen(): void {
    if (this.#closed && !this.#detached) {
      throw new SessionStorageError(
        `The sqlite session store is closed: session ${this.sessionId}'s unread entries are gone`,
      );
    }
  }

  /** Copy every row's text (and the tree) while the connection and the rows are still there. */
  detach(): void {
    if (this.#detached) return;
    this.tree();
    this.#labels = this.labelPositions();
    const rows = this.#statement(
      "SELECT seq, json FROM entries WHERE session_id = ? AND seq < ? ORDER BY seq",
    ).all(this.sessionId, this.#count);
    this.#detached = rows.map((row) => String(row.json));
    if (this.#detached.length !== this.#count) throw this.#changed();
  }
}

/**
 * The lazily opened sessions of one store, held weakly (a manager dropped is forgotten),
 * so the store can detach them before their rows or its connection go away.
 */
export class LazyOpenings {
  readonly #held = new LazyHolders<LazyRows>();

  /** {@link openLazyRows}, remembered for {@link detach} and {@link close}. */
  open(
    statement: StatementSource,
    sessionId: string,
    transaction: ReadTransaction,
  ): LazySession | undefined {
    const opened = openLazyRows(statement, sessionId, transaction);
    if (opened) this.#held.add(opened.rows);
    return opened?.session;
  }

  /** Detach the open rows of `sessionId` (before it is replaced or deleted). */
  detach(sessionId: string): void {
    for (const rows of this.#held.take(sessionId)) rows.detach();
  }

  /** The store is closing: every open session's unread rows become unreadable. */
  close(): void {
    for (const rows of this.#held.take()) rows.close();
  }
}

/**
 * The lazy open of `sessionId`, or `undefined` when a row predates the flags column (the
 * full load answers then). When every row has path pointers (`_walk.ts`) the tree is not
 * read at all: the open reads the header, the listing and the last row, and the manager's
 * context comes from a walk over the context range. Run inside a read transaction; the
 * reader runs outside it (`transaction` wraps its walks).
 *
 * @example
 * ```ts
 * import { openLazyRows } from "./_lazy.ts";
 * import type { StatementSource } from "./_context.ts";
 * declare const statement: StatementSource;
 * const opened = openLazyRows(statement, "s1", (fn) => fn()); // { session, rows } or undefined
 * ```
 */
export function openLazyRows(
  statement: StatementSource,
  sessionId: string,
  transaction: ReadTransaction,
): { session: LazySession; rows: LazyRows } | undefined {
  const row = statement("SELECT header, listing FROM sessions WHERE id = ?").get(sessionId);
  if (!row) return undefined; // the full load raises SessionNotFoundError
  const header = decodeHeader(row.header, decoding(sessionId));
  const listing = decodeListing(row.listing, decoding(sessionId));
  const common = { header, listing };
  const last = statement(
    "SELECT seq, entry_id FROM entries WHERE session_id = ? ORDER BY seq DESC LIMIT 1",
  ).get(sessionId);
  const unwalked = statement(
    "SELECT 1 AS x FROM entries WHERE session_id = ? AND walk IS NULL LIMIT 1",
  );
  if (last && typeof last.entry_id === "string" && !unwalked.get(sessionId)) {
    const rows = new LazyRows(statement, sessionId, Number(last.seq) + 1);
    const deferred = deferredTree(
      statement,
      rows,
      Number(last.seq) + 1,
      last.entry_id,
      transaction,
    );
    const session: LazySession = {
      ...common,
      ids: [],
      parents: [],
      flags: [],
      read: (position) => rows.read(position),
      labelPositions: () => rows.labelPositions(),
      reading: (fn) => rows.reading(fn, transaction),
      deferred,
    };
    return { session, rows };
  }
  const columns = treeColumns(readTreeText(statement, sessionId));
  if (!columns) return undefined;
  const { ids, parents, flags } = columns;
  const rows = new LazyRows(statement, sessionId, ids.length, [...ids]);
  const session: LazySession = {
    ...common,
    ids,
    parents,
    flags,
    read: (position) => rows.read(position),
    labelPositions: () => rows.labelPositions(),
    reading: (fn) => rows.reading(fn, transaction),
  };
  return { session, rows };
}

/** The store's side of a deferred tree: the rows', plus id lookups and walks by pointers. */
function deferredTree(
  statement: StatementSource,
  rows: LazyRows,
  count: number,
  lastId: string,
  transaction: ReadTransaction,
): DeferredTree {
  const sessionId = rows.sessionId;
  /** Walks read the live rows: only while attached, and only while the open's last row is. */
  const live = <T>(fn: () => T): T | undefined => {
    if (rows.detached) return undefined;
    if (rows.closed) rows.read(count - 1); // raises the store's closed error
    return transaction(() => {
      const at = statement("SELECT entry_id FROM entries WHERE session_id = ? AND seq = ?")
        .get(sessionId, count - 1);
      if (at?.entry_id !== lastId) rows.read(count - 1); // raises "rewritten"
      return fn();
    });
  };
  return {
    count,
    lastId,
    tree: () => rows.tree(),
    find(id) {
      if (rows.detached) {
        const at = rows.tree().ids.lastIndexOf(id);
        return at < 0 ? undefined : at;
      }
      const found = live(() => committedLookup(statement, sessionId)(id));
      return found && found.seq < count ? found.seq : undefined;
    },
    branch(position, leafId) {
      if (position >= count) return undefined;
      return live(() => readBranchPositions(statement, sessionId, position, leafId));
    },
    context(leafId) {
      const parsed = new Map<number, SessionEntry>();
      const read = (seq: number) => {
        let entry = parsed.get(seq);
        if (!entry) parsed.set(seq, entry = rows.read(seq));
        return entry;
      };
      const plan = live(() => planByWalk(statement, sessionId, leafId, read));
      return plan && { ...plan, parsed };
    },
  };
}

/**
 * The id, parent and flags columns of a session's rows, in order; `undefined` when a row
 * lacks its id or flags (written before schema step 6) or the positions have gaps.
 */
function treeColumns(
  text: ReturnType<typeof readTreeText>,
): { ids: string[]; parents: (string | null)[]; flags: number[] } | undefined {
  const tree = new TreeText(text);
  const ids: string[] = [];
  const parents: (string | null)[] = [];
  const flags: number[] = [];
  for (let i = 0; i < tree.length; i++) {
    const id = tree.id(i);
    const flag = tree.flags(i);
    if (id === null || flag === null || tree.seq(i) !== i) return undefined;
    ids.push(id);
    parents.push(tree.parent(i));
    flags.push(flag);
  }
  return { ids, parents, flags };
}
