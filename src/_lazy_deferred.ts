/**
 * A lazy index's rows of the open while their columns are deferred
 * (`LazySession.deferred`): the store answers id lookups, branches and context plans
 * over those rows, and entries appended since wait here (an append needs its parent's id
 * and the last id, not the tree). `lazy_index.ts` drops this once a question needs the
 * whole tree and the columns are read.
 *
 * @module
 */
import type { DeferredTree } from "./lazy_store.ts";
import type { SessionEntry } from "./schema.ts";

/** Positions of a context-only load: the replayed prefix and the context range. */
export interface ContextPositions {
  prefix: number[];
  range: number[];
}

/**
 * The rows of the open, answered by the store, and the entries appended since.
 *
 * @example
 * ```ts
 * import { DeferredRows } from "./_lazy_deferred.ts";
 * const rows = new DeferredRows({ count: 1, lastId: "a", tree: () => ({ ids: ["a"], parents: [null], flags: [0] }), find: (id) => id === "a" ? 0 : undefined, context: () => undefined });
 * rows.position("a"); // 0
 * ```
 */
export class DeferredRows {
  /** The store's answers (see {@link DeferredTree}). */
  readonly source: DeferredTree;
  /** Ids of the parsed entries (what still answers after the store closed). */
  readonly #parsedAt = new Map<string, number>();
  /** Entries appended since the open, at positions `count`, `count + 1`, ... */
  readonly appended: SessionEntry[] = [];
  /**
   * The last id the store said is not among the rows of the open (an append asks twice: the
   * new id is checked when it is made, and again when the entry is added). Those rows do not
   * change under the index (a rewrite is refused), so the answer holds.
   */
  #absent?: string;
  /** The last context plan, by leaf (answers again after the store closed). */
  #planned?: ContextPositions & { leaf: string };

  constructor(source: DeferredTree) {
    this.source = source;
  }

  /** The last entry's id, appended ones included. */
  get lastId(): string {
    return this.appended.at(-1)?.id ?? this.source.lastId;
  }

  /** Note that the entry at `position` was parsed (its id then answers without the store). */
  parsed(entry: SessionEntry, position: number): void {
    this.#parsedAt.set(entry.id, position);
  }

  /** Take an entry appended since the open; answers its position. */
  append(entry: SessionEntry): number {
    const position = this.source.count + this.appended.length;
    this.appended.push(entry);
    this.#parsedAt.set(entry.id, position);
    return position;
  }

  /** The position of an id, asking the store only for ids not parsed. */
  position(id: string): number | undefined {
    const parsed = this.#parsedAt.get(id);
    if (parsed !== undefined || id === this.#absent) return parsed;
    const found = this.source.find(id);
    if (found === undefined) this.#absent = id;
    return found;
  }

  /**
   * The branch to a leaf among the rows of the open, from the store (`undefined`: a leaf
   * appended since, or a store that cannot tell; walk the columns then).
   */
  branch(leafId: string): number[] | undefined {
    if (!this.source.branch) return undefined;
    const position = this.position(leafId);
    if (position === undefined || position >= this.source.count) return undefined;
    return this.source.branch(position, leafId);
  }

  /**
   * The store's plan of the context load of `leafId`; the entries it parsed to plan go into
   * `parsed` (the index's cache by position) where that has none. `undefined`: plan over the
   * path.
   */
  context(leafId: string, parsed: (SessionEntry | undefined)[]): ContextPositions | undefined {
    // The store plans over the rows of the open; a branch through an entry appended since
    // is planned over the path (the store's positions of those rows are not vouched for).
    if ((this.#parsedAt.get(leafId) ?? 0) >= this.source.count) return undefined;
    if (this.#planned?.leaf === leafId) return this.#planned;
    const plan = this.source.context(leafId);
    if (!plan) return undefined;
    for (const [position, entry] of plan.parsed) {
      if (parsed[position]) continue;
      parsed[position] = entry;
      this.#parsedAt.set(entry.id, position);
    }
    this.#planned = { leaf: leafId, prefix: plan.prefix, range: plan.entries };
    return this.#planned;
  }
}
