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
 * What a store hands over for a lazy open ({@link LazySession}) and how it offers one are
 * in `lazy_store.ts`; the rows a store answers for while their columns are deferred, in
 * `_lazy_deferred.ts`.
 *
 * @module
 */
import { contextFlags, planContextLoad, projectLoadedContext } from "./context_load.ts";
import { EntryNotFoundError, SessionStorageError } from "./errors.ts";
import type { LazySession } from "./lazy_store.ts";
import { type ContextPositions, DeferredRows } from "./_lazy_deferred.ts";
import {
  buildContextEntries,
  buildSessionProjection,
  projectPath,
  type SessionProjection,
} from "./projection.ts";
import type { CompactionEntry, SessionEntry } from "./schema.ts";
import { SessionIndex, type SessionTreeNode } from "./tree.ts";

export {
  canOpenLazy,
  type DeferredTree,
  type Detachable,
  LazyHolders,
  type LazyOpeningStore,
  type LazySession,
  OPEN_LAZY,
} from "./lazy_store.ts";

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
  /** The rows of the open while their columns are not read (undefined once read, or never deferred). */
  #deferred?: DeferredRows;
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
    if (session.deferred) this.#deferred = new DeferredRows(session.deferred);
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
      this.#deferred?.parsed(entry, position);
    }
    return entry;
  }

  /**
   * Read the deferred columns (a question about the whole tree). The store vouched for
   * the shape; a tree that breaks it was rewritten by someone else since the open.
   */
  #tree(): void {
    if (!this.#deferred) return;
    const deferred = this.#deferred.source;
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
    const { appended } = this.#deferred;
    this.#deferred = undefined;
    for (const entry of appended) this.#push(entry);
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
    return this.#deferred ? this.#deferred.position(id) : this.#at.get(id);
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
    const branch = this.#deferred?.branch(leafId);
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

  getPath(leafId: string | null | undefined): SessionEntry[] {
    if (this.#full) return this.#full.getPath(leafId);
    return this.pathPositions(leafId).map((i) => this.#read(i));
  }

  get lastEntry(): SessionEntry | undefined {
    if (this.#full) return this.#full.lastEntry;
    if (this.#deferred) {
      return this.#deferred.appended.at(-1) ?? this.#read(this.#deferred.source.count - 1);
    }
    return this.#ids.length ? this.#read(this.#ids.length - 1) : undefined;
  }

  /** The id of the last entry, without parsing it. */
  get lastId(): string | undefined {
    if (this.#deferred) return this.#deferred.lastId;
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
      for (const entry of this.#deferred?.appended ?? []) this.#applyLabel(entry);
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
      this.#parsed[deferred.append(entry)] = entry;
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
  #context(leafId: string | null): ContextPositions {
    const planned = leafId === null ? undefined : this.#deferred?.context(leafId, this.#parsed);
    if (planned) return planned;
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
