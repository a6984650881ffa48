/**
 * How a store offers lazy opens to `SessionManager.open` (src/lazy_index.ts): what it hands
 * over ({@link LazySession}: compact columns and a body reader, or a {@link DeferredTree}),
 * the capability symbol, its feature test, and the weak registry a store keeps of the
 * sessions it opened lazily, so it can detach them before it rewrites, deletes or closes
 * what they read from.
 *
 * @module
 */
import type { ListingState } from "./_listing.ts";
import type { SessionEntry, SessionHeader } from "./schema.ts";

/**
 * What a store hands the manager for a lazy open: the session's compact columns in commit
 * order and a synchronous reader of one entry body. The index takes the column arrays over
 * (appends extend them): a store hands out fresh ones.
 */
export interface LazySession {
  header: SessionHeader;
  /** JSONL file location, when the store keeps one file per session. */
  path?: string;
  /** Entry ids in commit order. */
  ids: string[];
  /** Parent ids, by position. */
  parents: (string | null)[];
  /** `contextFlags` of each entry, by position. */
  flags: number[];
  /** The listing fold over every entry (name, summary freshness). */
  listing: ListingState;
  /** The entry at `position`, parsed (throws the store's typed error when it cannot). */
  read(position: number): SessionEntry;
  /** Positions of the `label` entries, ascending (asked once, when labels are first needed). */
  labelPositions(): number[];
  /**
   * Run `fn`, whose reads are many, as one read of the store (a database's one read
   * transaction instead of one per entry); optional, a reader runs `fn` as it is without it.
   */
  reading?<T>(fn: () => T): T;
  /** Entries the store parsed anyway while opening (the context window), by position. */
  parsed?: ReadonlyMap<number, SessionEntry>;
  /**
   * The position of each id, when the store mapped them while checking the session: the
   * index takes the map over instead of building its own (a second map of every id).
   */
  positions?: Map<string, number>;
  /**
   * The columns not read yet (`ids`, `parents` and `flags` are handed empty): the store
   * vouches that ids are unique and every parent was written before its child, and reads
   * the columns only when a question needs the whole tree.
   */
  deferred?: DeferredTree;
}

/** A store's answers for a session whose compact columns it has not read (see {@link LazySession.deferred}). */
export interface DeferredTree {
  /** Entries at the open. */
  count: number;
  /** The last entry's id. */
  lastId: string;
  /** The compact columns of the entries at the open, in commit order. */
  tree(): { ids: string[]; parents: (string | null)[]; flags: number[] };
  /** The position of the entry with this id, if there is one. */
  find(id: string): number | undefined;
  /**
   * Positions of the branch from the root to the entry at `position` (whose id is
   * `leafId`), root first, without the tree; `undefined` when the store cannot tell.
   */
  branch?(position: number, leafId: string): number[] | undefined;
  /**
   * Positions of a context-only load of the branch ending at `leafId` (as
   * `planContextLoad` plans it over the path), with the entries parsed to plan it;
   * `undefined` when the store cannot tell without the tree.
   */
  context(
    leafId: string,
  ): { prefix: number[]; entries: number[]; parsed: Map<number, SessionEntry> } | undefined;
}

/**
 * The store capability behind a lazy `SessionManager.open`, under a registered symbol so it
 * stays off the stores' public surface while the design settles (a copy of this module in
 * another bundle still finds it).
 */
export const OPEN_LAZY: unique symbol = Symbol.for("@mu/sessions.openLazy") as never;

/** A store that can open a session lazily. */
export interface LazyOpeningStore {
  /** The session's compact columns and a body reader, or `undefined`: load it in full. */
  [OPEN_LAZY](sessionId: string): Promise<LazySession | undefined>;
}

/**
 * Feature test for {@link LazyOpeningStore}.
 *
 * @example
 * ```ts
 * import { canOpenLazy } from "./lazy_index.ts";
 * canOpenLazy({}); // false
 * ```
 */
export function canOpenLazy(store: object): store is LazyOpeningStore {
  return typeof (store as Partial<LazyOpeningStore>)[OPEN_LAZY] === "function";
}

/** A lazily opened session's storage link, which its store can cut (copying what it needs). */
export interface Detachable {
  /** What the store knows it by (session id, file path). */
  readonly key: string;
  detach(): void;
}

/**
 * A store's lazily opened sessions, held weakly (a manager dropped is forgotten), so the
 * store can detach them before it rewrites, deletes or closes what they read from.
 *
 * @example
 * ```ts
 * import { LazyHolders } from "./lazy_index.ts";
 * const holders = new LazyHolders();
 * holders.add({ key: "s1", detach: () => {} });
 * holders.take("s1").forEach((held) => held.detach());
 * ```
 */
export class LazyHolders<T extends Detachable = Detachable> {
  readonly #refs = new Set<WeakRef<T>>();

  add(held: T): void {
    this.#refs.add(new WeakRef(held));
  }

  /** Forget and return the live ones with this key (every one without a key). */
  take(key?: string): T[] {
    const taken: T[] = [];
    for (const ref of this.#refs) {
      const held = ref.deref();
      if (held && key !== undefined && held.key !== key) continue;
      this.#refs.delete(ref);
      if (held) taken.push(held);
    }
    return taken;
  }
}
