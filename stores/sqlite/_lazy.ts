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
import { decodeHeader, decodeListing, decodeRecord } from "../../src/records.ts";
import { SessionStorageError } from "../../src/errors.ts";
import { type Detachable, LazyHolders, type LazySession } from "../../src/lazy_index.ts";
import type { SessionEntry } from "../../src/schema.ts";
import { readTreeText, type StatementSource, TreeText } from "./_context.ts";

const decoding = (sessionId: string) => ({ source: `sqlite:${sessionId}`, keepText: false });

/** The rows behind one lazily opened session; detached rows answer from their own copy. */
export class LazyRows implements Detachable {
  readonly sessionId: string;
  readonly #statement: StatementSource;
  readonly #seqs: number[];
  readonly #ids: string[];
  #detached?: string[];
  #labels?: number[];
  #closed = false;
  readonly key: string;

  constructor(statement: StatementSource, sessionId: string, seqs: number[], ids: string[]) {
    this.#statement = statement;
    this.sessionId = sessionId;
    this.key = sessionId;
    this.#seqs = seqs;
    this.#ids = ids;
  }

  /** The entry at `position`, parsed; its id must still be the one indexed at the open. */
  read(position: number): SessionEntry {
    this.#assertOpen();
    const text = this.#detached
      ? this.#detached[position]
      : this.#statement("SELECT json FROM entries WHERE session_id = ? AND seq = ?")
        .get(this.sessionId, this.#seqs[position])?.json;
    if (text === undefined) throw this.#changed();
    const entry = decodeRecord<SessionEntry>(text, position + 2, decoding(this.sessionId));
    if (entry.id !== this.#ids[position]) throw this.#changed();
    return entry;
  }

  #changed(): SessionStorageError {
    return new SessionStorageError(
      `session ${this.sessionId} was rewritten by another connection since it was opened`,
    );
  }

  /** Positions of the label entries (a scan of the session's rows' type column). */
  labelPositions(): number[] {
    if (this.#labels) return [...this.#labels];
    this.#assertOpen();
    const at = new Map(this.#seqs.map((seq, i) => [seq, i]));
    const rows = this.#statement(
      "SELECT seq FROM entries WHERE session_id = ? AND type = 'label' ORDER BY seq",
    ).all(this.sessionId);
    return rows.map((row) => at.get(Number(row.seq))).filter((i) => i !== undefined);
  }

  /** The store closed: unread rows can no longer be read (see the module notes). */
  close(): void {
    this.#closed = true;
  }

  #assertOpen(): void {
    if (this.#closed && !this.#detached) {
      throw new SessionStorageError(
        `The sqlite session store is closed: session ${this.sessionId}'s unread entries are gone`,
      );
    }
  }

  /** Copy every row's text while the connection and the rows are still there. */
  detach(): void {
    if (this.#detached) return;
    this.#labels = this.labelPositions();
    const rows = this.#statement("SELECT seq, json FROM entries WHERE session_id = ? ORDER BY seq")
      .all(this.sessionId);
    const bySeq = new Map(rows.map((row) => [Number(row.seq), String(row.json)]));
    this.#detached = this.#seqs.map((seq) => bySeq.get(seq)!);
  }
}

/**
 * The lazily opened sessions of one store, held weakly (a manager dropped is forgotten),
 * so the store can detach them before their rows or its connection go away.
 */
export class LazyOpenings {
  readonly #held = new LazyHolders<LazyRows>();

  /** {@link openLazyRows}, remembered for {@link detach} and {@link close}. */
  open(statement: StatementSource, sessionId: string): LazySession | undefined {
    const opened = openLazyRows(statement, sessionId);
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
 * full load answers then). Run inside a read transaction; the reader runs outside it.
 *
 * @example
 * ```ts
 * import { openLazyRows } from "./_lazy.ts";
 * import type { StatementSource } from "./_context.ts";
 * declare const statement: StatementSource;
 * const opened = openLazyRows(statement, "s1"); // { session, rows } or undefined
 * ```
 */
export function openLazyRows(
  statement: StatementSource,
  sessionId: string,
): { session: LazySession; rows: LazyRows } | undefined {
  const row = statement("SELECT header, listing FROM sessions WHERE id = ?").get(sessionId);
  if (!row) return undefined; // the full load raises SessionNotFoundError
  const header = decodeHeader(row.header, decoding(sessionId));
  const listing = decodeListing(row.listing, decoding(sessionId));
  const tree = new TreeText(readTreeText(statement, sessionId));
  const seqs: number[] = [];
  const ids: string[] = [];
  const parents: (string | null)[] = [];
  const flags: number[] = [];
  for (let i = 0; i < tree.length; i++) {
    const id = tree.id(i);
    const flag = tree.flags(i);
    if (id === null || flag === null) return undefined;
    seqs.push(tree.seq(i));
    ids.push(id);
    parents.push(tree.parent(i));
    flags.push(flag);
  }
  const rows = new LazyRows(statement, sessionId, seqs, ids);
  const session: LazySession = {
    header,
    ids,
    parents,
    flags,
    listing,
    read: (position) => rows.read(position),
    labelPositions: () => rows.labelPositions(),
  };
  return { session, rows };
}
