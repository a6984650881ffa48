/**
 * Lazy entries: a session opened through a store that can hand out single entry
 * bodies synchronously ({@link LazySession}) is indexed from compact columns (id, parent,
 * context flags per position) and its entries are parsed only when a getter or builder
 * needs them. `buildSessionContext` plans its reads like a context-only load
 * (`planContextLoad`), so opening and resuming a large session parses the context range and
 * a few replayed entries, not the whole session.
 *
 * The lazy index answers exactly like {@link SessionIndex} over the same entries. It only
 * takes sessions where that is easy to keep true: unique ids, and every parent that exists
 * written before its child (so the tree is acyclic and depths are trivial). Anything else
 * (duplicate ids, a parent written after its child, a self-parent) makes
 * {@link LazyIndex.from} answer `undefined` and the caller loads the session in full, which
 * raises the exact error the full index raises. Whole-session questions (`entries`,
 * `getTree`) parse everything once and from then on delegate to a full `SessionIndex`.
 *
 * Parsed entries are kept (one object per entry, as the full index keeps them), so a
 * getter returns the same object every time; memory grows only with what was asked for.
 *
 * Longer than 400 lines on purpose: every question of the index has a deferred, a columns
 * and a full answer over the same private fields, and splitting them would expose those.
 *
 * @module
 */
import { contextFlags, planContextLoad, projectLoadedContext } from "./context_load.ts";
import { EntryNotFoundError, SessionStorageError } from "./errors.ts";
import type { ListingState } from "./_listing.ts";
import {
  buildContextEntries,
  buildSessionProjection,
  projectPath,
  type SessionProjection,
} from "./projection.ts";
import type { CompactionEntry, SessionEntry, SessionHeader } from "./schema.ts";
import { SessionIndex, type SessionTreeNode } from "./tree.ts";

export {
  canOpenLazy,
  type Detachable,
  LazyHolders,
  type LazyOpeningStore,
  OPEN_LAZY,
} from "./lazy_store.ts";

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
 * The index behind a `SessionView`: the full {@link SessionIndex} or a {@link LazyIndex}.
 * Only what the view and manager use.
 */
export type EntryIndex = SessionIndex | LazyIndex;

/** A lazily materialised session index (see the module notes). */
export class LazyIndex {
  readonly #session: LazySession;
  readonly #ids: string[];
  readonly #parents: (string | null)[];
  readonly #flags: number[];
  readonly #at: Map<string, number>;
  readonly #parsed: (SessionEntry | undefined)[];
  /** Columns the store has not read yet (undefined once read, or never deferred). */
  #deferred?: DeferredTree;
  /** Ids of the parsed entries while the columns are deferred (what stays after a close). */
  readonly #parsedAt = new Map<string, number>();
  /**
   * Entries appended while the columns are deferred, at positions `count`, `count + 1`, ...:
   * an append needs its parent's id and the last id, not the tree, so the columns are read
   * only when a question needs the whole tree (then these follow them).
   */
  readonly #appended: SessionEntry[] = [];
  /**
   * The last id the store said is not among the rows of the open (an append asks twice: the
   * new id is checked when it is made, and again when the entry is added). Those rows do not
   * change under the index (a rewrite is refused), so the answer holds.
   */
  #absent?: string;
  /** The last deferred context plan, by leaf (answers again after the store closed). */
  #planned?: { leaf: string; prefix: number[]; range: number[] };
  /** Ids whose parent is set but not in the session (kept as roots), as the full index. */
  readonly danglingParents: Set<string> = new Set();
  #children?: Map<string | null, number[]>;
  #labels?: Map<string, string>;
  #full?: SessionIndex;
  /** Entries at the open (later positions were appended). */
  readonly #opened: number;

  private constructor(session: LazySession, at: Map<string, number>) {
    this.#session = session;
    this.#ids = session.ids; // taken over, not copied (100k entries: 3 arrays of 100k)
    this.#parents = session.parents;
    this.#flags = session.flags;
    this.#deferred = session.deferred;
    this.#opened = session.deferred?.count ?? session.ids.length;
    this.#at = at;
    // Sized up front: writing position 99,999 of an empty array first would make it a dictionary.
    this.#parsed = new Array(this.#opened);
    for (const [position, entry] of session.parsed ?? []) this.#parsed[position] = entry;
  }

  /**
   * The lazy index of `session`, or `undefined` when the session is not one the lazy index
   * answers for (duplicate ids, a parent written after its child): load it in full then.
   *
   * @example
   * ```ts
   * import { LazyIndex } from "./lazy_index.ts";
   * const header = { type: "session" as const, version: 4 as const, id: "s", createdAt: "2026-01-01T00:00:00.000Z", cwd: "/p" };
   * const listing = { hasName: false, messageCount: 0, lastMessageMs: 0 };
   * LazyIndex.from({ header, ids: [], parents: [], flags: [], listing, read: () => { throw new Error(); }, labelPositions: () => [] })?.lastEntry; // undefined
   * ```
   */
  static from(session: LazySession): LazyIndex | undefined {
    if (session.deferred) return new LazyIndex(session, new Map());
    const { ids, parents } = session;
    if (ids.length !== parents.length || ids.length !== session.flags.length) return undefined;
    const at = session.positions ?? new Map<string, number>();
    if (!session.positions) {
      for (let i = 0; i < ids.length; i++) {
        if (typeof ids[i] !== "string" || at.has(ids[i])) return undefined; // duplicate ids
        at.set(ids[i], i);
      }
    } else if (at.size !== ids.length) return undefined;
    const index = new LazyIndex(session, at);
    for (let i = 0; i < ids.length; i++) {
      const parent = parents[i];
      if (parent === null) continue;
      const position = at.get(parent);
      if (position === undefined) index.danglingParents.add(ids[i]);
      else if (position >= i) return undefined; // written after its child (or itself): cycles possible
    }
    return index;
  }

  /** The entry at a position, parsed once. */
  #read(position: number): SessionEntry {
    let entry = this.#parsed[position];
    if (!entry) {
      this.#parsed[position] = entry = this.#session.read(position);
      if (this.#deferred) this.#parsedAt.set(entry.id, position);
    }
    return entry;
  }

  /**
   * Read the deferred columns (a question about the whole tree). The store vouched for
   * the shape; a tree that breaks it was rewritten by someone else since the open.
   */
  #tree(): void {
    const deferred = this.#deferred;
    if (!deferred) return;
    const { ids, parents, flags } = deferred.tree();
    const changed = ids.length !== deferred.count || ids[ids.length - 1] !== deferred.lastId;
    for (let i = 0; i < ids.length && !changed; i++) {
      if (this.#at.has(ids[i]) || (parents[i] !== null && !this.#at.has(parents[i]!))) {
        throw new SessionStorageError(
          `session ${this.#session.header.id} changed under its reader`,
        );
      }
      this.#at.set(ids[i], i);
    }
    if (changed) {
      throw new SessionStorageError(`session ${this.#session.header.id} changed under its reader`);
    }
    for (let i = 0; i < ids.length; i++) { // (a spread of 100k arguments overflows the stack)
      this.#ids.push(ids[i]);
      this.#parents.push(parents[i]);
      this.#flags.push(flags[i]);
    }
    this.#deferred = undefined;
    this.#planned = undefined;
    for (const entry of this.#appended.splice(0)) this.#push(entry);
  }

  /** Every entry parsed, as a full index; from then on every question goes to it. */
  #whole(): SessionIndex {
    this.#tree();
    if (!this.#full) {
      const entries: SessionEntry[] = [];
      for (let i = 0; i < this.#ids.length; i++) entries.push(this.#read(i));
      this.#full = SessionIndex.build(entries, {
        source: this.#session.path ?? this.#session.header.id,
      });
    }
    return this.#full;
  }

  /** All entries in commit order (parses every entry once). */
  get entries(): readonly SessionEntry[] {
    return this.#whole().entries;
  }

  /** Id lookups without parsing. */
  get byId(): { has(id: string): boolean } {
    return this.#full?.byId ?? { has: (id: string) => this.has(id) };
  }

  /** Whether an entry with this id exists. */
  has(id: string): boolean {
    return this.#full ? this.#full.byId.has(id) : this.#position(id) !== undefined;
  }

  /** The position of an id: from the store while the columns are deferred. */
  #position(id: string): number | undefined {
    if (!this.#deferred) return this.#at.get(id);
    const parsed = this.#parsedAt.get(id);
    if (parsed !== undefined || id === this.#absent) return parsed;
    const found = this.#deferred.find(id);
    if (found === undefined) this.#absent = id;
    return found;
  }

  get(id: string): SessionEntry | undefined {
    if (this.#full) return this.#full.get(id);
    const at = this.#position(id);
    return at === undefined ? undefined : this.#read(at);
  }

  /**
   * Positions from the root to `leafId`, root first (unknown or null leaf: none): the
   * branch without parsing it, for a reader that parses only the part it shows.
   */
  pathPositions(leafId: string | null | undefined): number[] {
    if (leafId === null || leafId === undefined) return [];
    const branch = this.#deferredBranch(leafId);
    if (branch) return branch;
    this.#tree();
    const path: number[] = [];
    for (let i = this.#at.get(leafId); i !== undefined;) {
      path.push(i);
      const parent = this.#parents[i];
      i = parent === null ? undefined : this.#at.get(parent);
    }
    return path.reverse();
  }

  /**
   * The branch to a leaf among the rows of the open, from the store while the columns are
   * deferred (a branch through an entry appended since is walked over the columns).
   */
  #deferredBranch(leafId: string): number[] | undefined {
    if (!this.#deferred?.branch) return undefined;
    const position = this.#position(leafId);
    if (position === undefined || position >= this.#opened) return undefined;
    return this.#deferred.branch(position, leafId);
  }

  getPath(leafId: string | null | undefined): SessionEntry[] {
    if (this.#full) return this.#full.getPath(leafId);
    return this.pathPositions(leafId).map((i) => this.#read(i));
  }

  get lastEntry(): SessionEntry | undefined {
    if (this.#full) return this.#full.lastEntry;
    if (this.#deferred) return this.#appended.at(-1) ?? this.#read(this.#deferred.count - 1);
    return this.#ids.length ? this.#read(this.#ids.length - 1) : undefined;
  }

  /** The id of the last entry, without parsing it. */
  get lastId(): string | undefined {
    if (this.#deferred) return this.#appended.at(-1)?.id ?? this.#deferred.lastId;
    return this.#ids[this.#ids.length - 1];
  }

  getChildren(parentId: string | null): SessionEntry[] {
    if (this.#full) return this.#full.getChildren(parentId);
    this.#tree();
    if (parentId === null) {
      const roots: SessionEntry[] = [];
      for (let i = 0; i < this.#ids.length; i++) {
        if (this.#parents[i] === null || this.danglingParents.has(this.#ids[i])) {
          roots.push(this.#read(i));
        }
      }
      return roots;
    }
    if (!this.#children) {
      this.#children = new Map();
      for (let i = 0; i < this.#parents.length; i++) this.#childAdded(i);
    }
    return (this.#children.get(parentId) ?? []).map((i) => this.#read(i));
  }

  #childAdded(position: number): void {
    const parent = this.#parents[position];
    let siblings = this.#children!.get(parent);
    if (!siblings) this.#children!.set(parent, siblings = []);
    siblings.push(position);
  }

  getTree(): SessionTreeNode[] {
    return this.#whole().getTree();
  }

  /** All current labels, by target id (parses the label entries once). */
  get labels(): ReadonlyMap<string, string> {
    if (this.#full) return this.#full.labels;
    if (!this.#labels) {
      this.#labels = new Map();
      const positions = this.#session.labelPositions();
      for (let i = this.#opened; i < this.#ids.length; i++) positions.push(i);
      for (const i of positions) this.#applyLabel(this.#read(i));
      for (const entry of this.#appended) this.#applyLabel(entry);
    }
    return this.#labels;
  }

  #applyLabel(entry: SessionEntry): void {
    if (entry.type !== "label") return;
    if (entry.label) this.#labels!.set(entry.targetId, entry.label);
    else this.#labels!.delete(entry.targetId);
  }

  getLabel(id: string): string | undefined {
    return this.labels.get(id);
  }

  missingParentIds(): string[] {
    if (this.#full) return this.#full.missingParentIds();
    this.#tree();
    const missing = new Set<string>();
    for (const id of this.danglingParents) missing.add(this.#parents[this.#at.get(id)!]!);
    return [...missing];
  }

  /** Add an entry that was committed after the open (its parent indexed or null). */
  add(entry: SessionEntry): void {
    const deferred = this.#deferred;
    if (deferred && this.#position(entry.id) === undefined) {
      const position = deferred.count + this.#appended.length;
      this.#appended.push(entry);
      this.#parsed[position] = entry;
      this.#parsedAt.set(entry.id, position);
      if (this.#labels) this.#applyLabel(entry);
      return;
    }
    this.#tree();
    if (!this.#full && this.#at.has(entry.id)) this.#whole(); // a duplicate id: full rules
    if (this.#full) this.#full.add(entry);
    this.#push(entry);
    if (this.#labels) this.#applyLabel(entry);
  }

  /** Index an entry after the last one (its parent indexed or null). */
  #push(entry: SessionEntry): void {
    const position = this.#ids.length;
    this.#ids.push(entry.id);
    this.#parents.push(entry.parentId);
    this.#flags.push(contextFlags(entry));
    this.#at.set(entry.id, position);
    this.#parsed[position] = entry;
    if (this.#children) this.#childAdded(position);
  }

  /**
   * The projection of the branch ending at `leafId`, parsing only what a context-only load
   * reads (the full path when that cannot decide it). Equal to `buildSessionProjection`.
   */
  projection(leafId: string | null): SessionProjection {
    if (this.#full) return buildSessionProjection(this.#full.entries, leafId, this.#full);
    const { prefix, range } = this.#context(leafId);
    const read = (i: number) => this.#read(i);
    const loaded = {
      header: this.#session.header,
      prefix: prefix.map(read),
      entries: range.map(read),
    };
    return projectLoadedContext(loaded) ?? projectPath(this.pathPositions(leafId).map(read));
  }

  /** `buildContextEntries` of the branch ending at `leafId`, from the planned range only. */
  contextEntries(leafId: string | null): SessionEntry[] {
    if (this.#full) return buildContextEntries(this.#full.entries, leafId, this.#full);
    const range = this.#context(leafId).range.map((i) => this.#read(i));
    return range.length ? buildContextEntries(range, range[range.length - 1].id) : [];
  }

  /**
   * Positions of the context load of `leafId`: the replayed prefix and the context range,
   * planned by the store while the columns are deferred, else over the path.
   */
  #context(leafId: string | null): { prefix: number[]; range: number[] } {
    // The store plans over the rows of the open; a branch through an entry appended since
    // is planned over the path (the store's positions of those rows are not vouched for).
    const appended = leafId !== null && (this.#parsedAt.get(leafId) ?? 0) >= this.#opened;
    if (leafId !== null && this.#deferred && !appended) {
      if (this.#planned?.leaf === leafId) return this.#planned;
      const plan = this.#deferred.context(leafId);
      if (plan) {
        for (const [position, entry] of plan.parsed) {
          if (this.#parsed[position]) continue;
          this.#parsed[position] = entry;
          this.#parsedAt.set(entry.id, position);
        }
        this.#planned = { leaf: leafId, prefix: plan.prefix, range: plan.entries };
        return this.#planned;
      }
    }
    const { path, start, prefix } = this.#plan(leafId);
    return { prefix: prefix.map((i) => path[i]), range: path.slice(start) };
  }

  #plan(leafId: string | null) {
    this.#tree();
    if (leafId !== null && !this.#at.has(leafId)) throw new EntryNotFoundError(leafId);
    const path = this.pathPositions(leafId);
    const plan = planContextLoad(
      path.length,
      (i) => this.#flags[path[i]],
      (i) => this.#ids[path[i]],
      (i) => this.#read(path[i]) as CompactionEntry,
    );
    return { path, ...plan };
  }
}
