/**
 * The sessions `mu serve` keeps open between page requests. A viewer reads a session as
 * pages of entries (`GET /api/sessions/:id?offset=&limit=`); loading the whole session
 * for every page made a large one cost a full load per page. Here a session is opened once
 * and its pages are read from that open:
 *
 * - through the store's lazy open (the one behind `SessionManager.open`) where it has one:
 *   compact columns and an entry reader, so a page parses only its own entries and the
 *   server holds no parsed session;
 * - otherwise (older formats, sessions the lazy open declines, stores without one) from
 *   one full load, kept.
 *
 * The tree's rows (`tree`) come from the same open, as the browser store's worker draws them
 * before a full load (`TreeShape`: ids and parents, a page of entries parsed per answer),
 * so a viewer shows the tree of a 100k-entry session without loading it first.
 *
 * An open is trusted only while the store's `changeToken` for the session is unchanged
 * (appends and rewrites by any process move it), and only a few sessions stay open (least
 * recently used first out). A store without `changeToken` cannot say when an open goes
 * stale, so there every request loads the session afresh, as before.
 *
 * @module
 */
import { EntryNotFoundError } from "../../src/errors.ts";
import { LazyIndex, type LazySession } from "../../src/lazy_index.ts";
import { canOpenLazy, OPEN_LAZY } from "../../src/lazy_store.ts";
import type { SessionEntry, SessionHeader } from "../../src/schema.ts";
import type { LoadedSession, SessionStore } from "../../src/store.ts";
import { SessionIndex } from "../../src/tree.ts";
import type { ConvItem } from "../conversation/model.ts";
import { type BranchReader, conversationPrefix } from "../conversation/prefix.ts";
import type { TreeStartView } from "../types.ts";
import { type ShapeColumns, type TreePage, TreeShape } from "../worker/tree_shape.ts";

/** One page of a session's entries, in commit order. */
export interface EntryPage {
  header: SessionHeader;
  sourceVersion: number;
  entries: SessionEntry[];
  total: number;
}

/** A page of a branch's conversation; `total` is `null` until the whole branch was read. */
export interface ConversationPage {
  /** The branch's leaf (the session's last entry when none was asked; null: no entries). */
  leafId: string | null;
  items: ConvItem[];
  total: number | null;
}

/** An open session: its header, entry count and a reader of a range of entries. */
interface OpenSession {
  header: SessionHeader;
  sourceVersion: number;
  total: number;
  slice(start: number, end: number): SessionEntry[];
  /** The branch to `leafId` (the last entry when undefined), its entries parsed as read. */
  branch(leafId: string | undefined): BranchReader & { leafId: string | null };
  /** The tree's shape (built on the first ask, kept with the open; undefined: none). */
  shape(): TreeShape | undefined;
}

/** How many sessions stay open by default. */
export const DEFAULT_OPEN_SESSIONS = 4;

function lazyOpen(session: LazySession): OpenSession | undefined {
  // The same admission as `SessionManager.open`: what the lazy index declines (duplicate
  // ids, parents written after their children) the full load decides, with its errors.
  const index = LazyIndex.from(session);
  if (!index) return undefined;
  const total = session.deferred?.count ?? session.ids.length;
  return {
    shape: keptShape(() => TreeShape.from(session)),
    header: session.header,
    sourceVersion: 4,
    total,
    slice(start, end) {
      const entries: SessionEntry[] = [];
      for (let at = start; at < Math.min(end, total); at++) entries.push(session.read(at));
      return entries;
    },
    branch(leafId) {
      // Positions from the compact columns; entries parsed one by one as the reader asks
      // (read from the session, not through the index, which would keep each one).
      const leaf = leafId ?? index.lastId;
      if (leaf !== undefined && !index.has(leaf)) throw new EntryNotFoundError(leaf);
      const positions = index.pathPositions(leaf);
      return {
        leafId: leaf ?? null,
        length: positions.length,
        entry: (i) => session.read(positions[i]),
      };
    },
  };
}

/** `build` once, on the first ask. */
function keptShape(build: () => TreeShape | undefined): () => TreeShape | undefined {
  let shape: { value: TreeShape | undefined } | undefined;
  return () => (shape ??= { value: build() }).value;
}

/** A loaded session as the lazy open's columns, for its tree's shape. */
function loadedColumns(loaded: LoadedSession): ShapeColumns {
  const { entries } = loaded;
  return {
    ids: entries.map((e) => e.id),
    parents: entries.map((e) => e.parentId),
    read: (at) => entries[at],
    labelPositions: () => entries.flatMap((e, at) => e.type === "label" ? [at] : []),
  };
}

function loadedOpen(loaded: LoadedSession): OpenSession {
  let index: SessionIndex | undefined;
  return {
    shape: keptShape(() => TreeShape.from(loadedColumns(loaded))),
    header: loaded.header,
    sourceVersion: loaded.sourceVersion,
    total: loaded.entries.length,
    slice: (start, end) => loaded.entries.slice(start, end),
    branch(leafId) {
      index ??= SessionIndex.build(loaded.entries, { source: loaded.header.id });
      const leaf = leafId ?? index.lastEntry?.id;
      if (leaf !== undefined && !index.get(leaf)) throw new EntryNotFoundError(leaf);
      const path = index.getPath(leaf);
      return { leafId: leaf ?? null, length: path.length, entry: (i) => path[i] };
    },
  };
}

/**
 * A bounded set of open sessions over one store, answering entry pages.
 *
 * @example
 * ```ts
 * import { MemorySessionStore } from "@mu/sessions/core";
 * import { SessionPages } from "./session_pages.ts";
 * const store = new MemorySessionStore();
 * await store.create({ type: "session", version: 4, id: "s", createdAt: "2026-01-01T00:00:00.000Z", cwd: "/p" });
 * (await new SessionPages(store).page("s", 0, 100)).total; // 0
 * ```
 */
export class SessionPages {
  readonly #store: SessionStore;
  readonly #capacity: number;
  /** Open sessions (or opens under way) by the token they were opened at, least recently used first. */
  readonly #open = new Map<string, { token: string; opening: Promise<OpenSession> }>();
  #opens = 0;

  constructor(store: SessionStore, capacity = DEFAULT_OPEN_SESSIONS) {
    this.#store = store;
    this.#capacity = Math.max(1, capacity);
  }

  /** Sessions opened so far (tests count opens, not time). */
  get opens(): number {
    return this.#opens;
  }

  /** The entries `offset` to `offset + limit` of a session, from its open. */
  page(sessionId: string, offset: number, limit: number): Promise<EntryPage> {
    return this.#fromOpen(sessionId, (open) => answer(open, offset, limit));
  }

  /**
   * The conversation items `offset` to `offset + limit` of the branch to `leafId` (the
   * session's last entry when undefined), parsing only the part of the branch that decides
   * them (`conversationPrefix`): the first page of a 100k-entry session without its load.
   */
  conversation(
    sessionId: string,
    leafId: string | undefined,
    offset: number,
    limit: number,
  ): Promise<ConversationPage> {
    return this.#fromOpen(sessionId, (open) => {
      const branch = open.branch(leafId);
      const { items, total } = conversationPrefix(branch, offset + limit);
      return { leafId: branch.leafId, items: items.slice(offset), total };
    });
  }

  /**
   * Rows of the session's tree (`TreeShape`) with its size and the focused entry's row;
   * `null` for a session only a full load decides (repeated ids, a parent after its child).
   */
  tree(sessionId: string, page: TreePage): Promise<TreeStartView | null> {
    return this.#fromOpen(sessionId, (open) => open.shape()?.page(page) ?? null);
  }

  /** `answer(open)` from the session's current open. */
  async #fromOpen<T>(sessionId: string, answer: (open: OpenSession) => T): Promise<T> {
    const store = this.#store;
    if (!store.changeToken) return answer(await this.#openNow(sessionId));
    const token = await store.changeToken(sessionId);
    const opening = this.#current(sessionId, token);
    try {
      return answer(await opening);
    } catch (error) {
      if (this.#open.get(sessionId)?.opening === opening) this.#open.delete(sessionId);
      // Rewritten between the token and the read (the lazy reader says so): answer from a
      // new open; an error the new open repeats is the answer. A leaf that is not there is
      // the caller's error, whatever the open.
      if (error instanceof EntryNotFoundError) throw error;
      if (!(await opening.then(() => true, () => false))) throw error;
      const fresh = this.#current(sessionId, await store.changeToken(sessionId));
      return answer(await fresh);
    }
  }

  /** The open at `token`: the kept one when its token is current, else a new open. */
  #current(sessionId: string, token: string): Promise<OpenSession> {
    const known = this.#open.get(sessionId);
    this.#open.delete(sessionId);
    if (known?.token === token) {
      this.#open.set(sessionId, known); // most recently used
      return known.opening;
    }
    const opening = this.#openNow(sessionId);
    this.#open.set(sessionId, { token, opening });
    opening.catch(() => {
      if (this.#open.get(sessionId)?.opening === opening) this.#open.delete(sessionId);
    });
    for (const oldest of this.#open.keys()) {
      if (this.#open.size <= this.#capacity) break;
      this.#open.delete(oldest);
    }
    return opening;
  }

  async #openNow(sessionId: string): Promise<OpenSession> {
    this.#opens++;
    const store = this.#store;
    if (canOpenLazy(store)) {
      const session = await store[OPEN_LAZY](sessionId);
      const open = session && lazyOpen(session);
      if (open) return open;
    }
    return loadedOpen(await store.load(sessionId));
  }
}

function answer(open: OpenSession, offset: number, limit: number): EntryPage {
  const { header, sourceVersion, total } = open;
  return { header, sourceVersion, total, entries: open.slice(offset, offset + limit) };
}
