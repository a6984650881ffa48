/**
 * A session as the worker opens it for the page: first a context-only look (the store's
 * `loadContext`: the default leaf's context range and the few earlier entries its
 * projection replays, read from indexed columns), enough to show the first context page
 * of a 100k-entry session at once; then, when the page asks for anything else (the tree,
 * raw entries, another leaf, usage), the full load (`OpenedSession`), started once.
 *
 * A store without `loadContext` (IndexedDB, memory), or a context the load cannot decide
 * (`projectLoadedContext` answers `undefined`), opens with the full load at once. A session
 * of `mu serve` gets its first conversation pages from the server, which reads only the
 * start of the branch for them, and its tree's rows until the full load (the server keeps
 * the session open and draws them from its ids and parents).
 *
 * @module
 */
import { canLoadContext, projectLoadedContext } from "../../src/context_load.ts";
import { toJsonLine } from "../../src/jsonl.ts";
import { CURRENT_SESSION_VERSION, isWorkflowInternal } from "../../src/schema.ts";
import type { SessionStore } from "../../src/store.ts";
import type {
  ContextAs,
  ContextPageView,
  SessionOverview,
  TreeRowView,
  TreeStartView,
} from "../types.ts";
import { CONV_PAGE, type ConvItem } from "../conversation/model.ts";
import { ContextPages } from "./context_pages.ts";
import { OpenedSession } from "./opened_session.ts";
import { canOpenLazy, OPEN_LAZY } from "../../src/lazy_store.ts";
import { type TreePage, TreeShape } from "./tree_shape.ts";

type Json = Record<string, unknown>;

/** A page of a branch's conversation (`partial`: `total` only says more items follow). */
export interface ConversationPage {
  total: number;
  items: ConvItem[];
  partial?: boolean;
}

/** The server that answers conversation pages of a session it keeps open (`mu serve`). */
export interface ConversationServer {
  /** Items of the branch to `leafId` (the session's last entry when undefined). */
  serverConversation(
    sessionId: string,
    leafId: string | undefined,
    offset: number,
    limit: number,
  ): Promise<{ leafId: string | null; items: ConvItem[]; total: number | null }>;
  /** Rows of the session's tree (`TreeShape.page`); `null` when only a full load decides it. */
  serverTree?(sessionId: string, page: TreePage): Promise<TreeStartView | null>;
}

/**
 * Items the server answers before the session is loaded here: its cost grows with the
 * offset (it reads the branch up to the page), so far down the list waits for the load.
 */
const SERVER_CONVERSATION_ITEMS = 600;

/** The overview without the page's key and source (added by the worker's API). */
export type OverviewFacts = Omit<SessionOverview, "key" | "source">;

/** Where the tree's rows come from: the loaded session, or its shape before the load. */
export interface TreeRowSource {
  readonly rowCount: number;
  treeRows(leafId: string | null, start: number, count: number): TreeRowView[];
  rowIndex(entryId: string): number;
}

/** What the context-only look knows before the full load. */
interface FirstLook {
  leafId: string;
  overview: OverviewFacts;
  /** The default leaf's context, when the context-only load decides it. */
  pages?: ContextPages;
}

/** An opened session: a first look from the context, the full session on demand. */
export class SessionHandle {
  #first?: FirstLook;
  #full?: Promise<OpenedSession>;
  #loaded?: OpenedSession;
  /** The tree's shape from the store's lazy open, until the full load answers the tree. */
  #shape?: Promise<TreeShape | undefined>;
  /** The default branch's first page, asked of the server at the open (used once). */
  #ahead?: ReturnType<ConversationServer["serverConversation"]>;

  private constructor(
    readonly store: SessionStore,
    readonly sessionId: string,
    readonly server?: ConversationServer,
  ) {}

  /**
   * Open a session: a context-only first look when the store can give one, else the full
   * load.
   *
   * @example
   * ```ts
   * import { SessionHandle } from "./session_handle.ts";
   * import { MemorySessionStore } from "../../src/memory_store.ts";
   * const store = new MemorySessionStore();
   * await store.create({ type: "session", version: 4, id: "s", createdAt: "2026-01-01T00:00:00.000Z", cwd: "/p" });
   * (await SessionHandle.open(store, "s")).overview().entryCount; // 0
   * ```
   */
  static async open(
    store: SessionStore,
    sessionId: string,
    server?: ConversationServer,
  ): Promise<SessionHandle> {
    const handle = new SessionHandle(store, sessionId, server);
    // The default branch's first conversation page, asked beside the first look: the server
    // works on it while the worker reads the context and the page gets ready for it.
    const ahead = server?.serverConversation(sessionId, undefined, 0, CONV_PAGE);
    ahead?.catch(() => {}); // asked again, with its error, if it is wanted
    if (canLoadContext(store)) handle.#first = await firstLook(store, sessionId);
    // Undecided from the context-only load, the context waits for the full load; a server
    // that answers conversation pages still shows the conversation before it.
    if (!handle.#first || (!handle.#first.pages && !server)) await handle.full();
    handle.#ahead = ahead;
    return handle;
  }

  /** The fully loaded session, once {@link full} has resolved. */
  get loaded(): OpenedSession | undefined {
    return this.#loaded;
  }

  /** The overview: `pending` (no counts, no tree yet) until the full load is done. */
  overview(): OverviewFacts {
    return this.#loaded?.overview() ?? this.#first!.overview;
  }

  /** The fully loaded session (the load starts on the first call and runs once). */
  full(): Promise<OpenedSession> {
    if (!this.#full) {
      // After the tree's shape when it is being read: the tree shows before the load.
      const shape = this.#shape?.catch(() => undefined) ?? Promise.resolve();
      this.#full = shape.then(() => OpenedSession.load(this.store, this.sessionId)).then(
        (opened) => {
          this.#loaded = opened;
          this.#first = undefined; // the full session answers everything from now on
          this.#shape = undefined;
          return opened;
        },
      );
      this.#full.catch(() => this.#full = undefined); // a later call tries again
    }
    return this.#full;
  }

  /**
   * The tree's shape before the full load (`tree_shape.ts`): from the store's lazy open,
   * its ids and parents; `undefined` when the store has none, the session is one only the
   * full load decides, or the session is loaded already.
   */
  async shape(): Promise<TreeShape | undefined> {
    const store = this.store;
    if (this.#loaded || !canOpenLazy(store)) return undefined;
    this.#shape ??= store[OPEN_LAZY](this.sessionId).then((lazy) => lazy && TreeShape.from(lazy));
    // A shape that cannot be read is the full load's to report (with its typed error).
    const shape = await this.#shape.catch(() => undefined);
    return this.#loaded ? undefined : shape;
  }

  /** The tree's rows: the loaded session's, else its shape, else the full load's. */
  async tree(): Promise<TreeRowSource> {
    return this.#loaded ?? await this.shape() ?? await this.full();
  }

  /**
   * The tree's size and a page of its rows before the full load: from the store's lazy
   * open, else from a server that keeps the session open; `null` when neither can (the
   * tree waits for the full load).
   */
  async treeStart(page: TreePage): Promise<TreeStartView | null> {
    const shape = await this.shape();
    if (shape) return shape.page(page);
    if (this.#loaded || !this.server?.serverTree) return null;
    return await this.server.serverTree(this.sessionId, page);
  }

  /** Rows `[start, start+count)` of the tree marked for `leafId` (see {@link treeStart}). */
  async treeRows(leafId: string | null, start: number, count: number): Promise<TreeRowView[]> {
    const served = await this.#servedTree({ leafId, start, count });
    return served ? served.rows : (await this.tree()).treeRows(leafId, start, count);
  }

  /** The row of an entry in the tree, -1 when absent. */
  async treeRowIndex(entryId: string): Promise<number> {
    const served = await this.#servedTree({ leafId: null, focusId: entryId, start: 0, count: 0 });
    return served ? served.focusRow : (await this.tree()).rowIndex(entryId);
  }

  /** A page of the tree from the server, until the session is loaded here or has a shape. */
  async #servedTree(page: TreePage): Promise<TreeStartView | null> {
    if (this.#loaded || canOpenLazy(this.store) || !this.server?.serverTree) return null;
    return await this.server.serverTree(this.sessionId, page);
  }

  /**
   * Items `[start, start + count)` of the branch's conversation. Before the session is
   * loaded, a server that can answer them from the branch's first entries does (the first
   * pages of a 100k-entry session in a fraction of its load); its `total` is then unknown
   * until the server has read the whole branch: `partial`, with a total one past the items
   * so far so the list asks for more.
   */
  async conversation(
    leafId: string | null,
    start: number,
    count: number,
  ): Promise<ConversationPage> {
    const from = Math.max(0, start);
    const wanted = Math.max(0, count);
    if (!this.#loaded && this.server && from + wanted <= SERVER_CONVERSATION_ITEMS) {
      if (leafId === null) return { total: 0, items: [] }; // before any entry
      const ahead = this.#ahead;
      this.#ahead = undefined;
      // The page asked at the open, when it is this one (the branch it names is this leaf's:
      // an append in between makes it another's) and it was answered.
      const early = from === 0 && wanted === CONV_PAGE
        ? await ahead?.catch(() => undefined)
        : undefined;
      const page = early?.leafId === leafId
        ? early
        : await this.server.serverConversation(this.sessionId, leafId, from, wanted);
      if (page.total !== null) return { total: page.total, items: page.items };
      return { total: from + page.items.length + 1, items: page.items, partial: true };
    }
    const items = (await this.full()).conversation(leafId);
    return { total: items.length, items: items.slice(from, from + wanted) };
  }

  /** The context pages of a leaf: from the first look when it covers the leaf. */
  async #pages(leafId: string | null): Promise<ContextPages> {
    const first = this.#first;
    if (!this.#loaded && first?.pages && first.leafId === leafId) return first.pages;
    return (await this.full()).pages;
  }

  /** A page of the projected context (see `OpenedSession.context`). */
  async context(
    leafId: string | null,
    start: number,
    count: number,
    as?: ContextAs,
  ): Promise<ContextPageView> {
    return (await this.#pages(leafId)).context(leafId, start, count, as);
  }

  /** The whole text of one block of the projected context. */
  async contextBlock(
    leafId: string | null,
    item: number,
    message: number,
    block: number,
    as?: ContextAs,
  ): Promise<string> {
    return (await this.#pages(leafId)).contextBlock(leafId, item, message, block, as);
  }
}

/**
 * The header facts the page shows first from a context-only load, with the default leaf's
 * projection when the load decides it; `undefined` when the session has no entries (the
 * full load of an empty session costs nothing).
 */
async function firstLook(store: SessionStore, sessionId: string): Promise<FirstLook | undefined> {
  if (!canLoadContext(store)) return undefined;
  const loaded = await store.loadContext(sessionId);
  const leaf = loaded.entries.at(-1);
  if (!leaf) return undefined;
  const projection = projectLoadedContext(loaded) as unknown as Json | undefined;
  const { header } = loaded;
  // The listing row (name, summary, first message) is kept current by every write.
  const info = (await store.list({ includeInternal: true })).find((s) => s.id === sessionId);
  const overview: OverviewFacts = {
    id: header.id,
    title: info ? info.name ?? info.summary ?? info.firstMessage : header.id,
    cwd: info?.cwd ?? header.cwd ?? "",
    created: info?.created.getTime() ?? Date.parse(header.createdAt),
    header: toJsonLine(header),
    sourceVersion: CURRENT_SESSION_VERSION,
    entryCount: 0,
    rowCount: 0,
    defaultLeafId: leaf.id,
    labels: 0,
    branchPoints: 0,
    internal: isWorkflowInternal(header),
    ...(header.parentSessionId ? { parentSessionId: header.parentSessionId } : {}),
    missingParentIds: [],
    pending: true,
  };
  const pages = projection && new ContextPages((leafId) => {
    if (leafId !== leaf.id) throw new RangeError("the first look covers the default leaf only");
    return projection;
  });
  return { leafId: leaf.id, overview, pages };
}
