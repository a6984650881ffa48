/**
 * Lazy entries (issue 12): a session opened through a store that can hand out single entry
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
 * @module
 */
import { contextFlags, planContextLoad, projectLoadedContext } from "./context_load.ts";
import { EntryNotFoundError } from "./errors.ts";
import type { ListingState } from "./listing.ts";
import {
  buildContextEntries,
  buildSessionProjection,
  projectPath,
  type SessionProjection,
} from "./projection.ts";
import type { CompactionEntry, SessionEntry, SessionHeader } from "./schema.ts";
import { SessionIndex, type SessionTreeNode } from "./tree.ts";

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
  /** Entries the store parsed anyway while opening (the context window), by position. */
  parsed?: ReadonlyMap<number, SessionEntry>;
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
  /** Ids whose parent is set but not in the session (kept as roots), as the full index. */
  readonly danglingParents = new Set<string>();
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
    this.#opened = session.ids.length;
    this.#at = at;
    // Sized up front: writing position 99,999 of an empty array first would make it a dictionary.
    this.#parsed = new Array(session.ids.length);
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
    const { ids, parents } = session;
    if (ids.length !== parents.length || ids.length !== session.flags.length) return undefined;
    const at = new Map<string, number>();
    const unseen: number[] = []; // positions whose parent was not written before them
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      if (typeof id !== "string" || at.has(id)) return undefined;
      const parent = parents[i];
      if (parent !== null && !at.has(parent)) unseen.push(i); // before its own id: self-parents too
      at.set(id, i);
    }
    const index = new LazyIndex(session, at);
    for (const i of unseen) {
      if (at.has(parents[i]!)) return undefined; // written after its child: cycles possible
      index.danglingParents.add(ids[i]);
    }
    return index;
  }

  /** The entry at a position, parsed once. */
  #read(position: number): SessionEntry {
    let entry = this.#parsed[position];
    if (!entry) this.#parsed[position] = entry = this.#session.read(position);
    return entry;
  }

  /** Every entry parsed, as a full index; from then on every question goes to it. */
  #whole(): SessionIndex {
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
    return this.#full?.byId ?? { has: (id: string) => this.#at.has(id) };
  }

  /** Whether an entry with this id exists. */
  has(id: string): boolean {
    return this.#full ? this.#full.byId.has(id) : this.#at.has(id);
  }

  get(id: string): SessionEntry | undefined {
    if (this.#full) return this.#full.get(id);
    const at = this.#at.get(id);
    return at === undefined ? undefined : this.#read(at);
  }

  /** Positions from the root to `leafId`, root first (unknown or null leaf: none). */
  #pathPositions(leafId: string | null | undefined): number[] {
    const path: number[] = [];
    if (leafId === null || leafId === undefined) return path;
    for (let i = this.#at.get(leafId); i !== undefined;) {
      path.push(i);
      const parent = this.#parents[i];
      i = parent === null ? undefined : this.#at.get(parent);
    }
    return path.reverse();
  }

  getPath(leafId: string | null | undefined): SessionEntry[] {
    if (this.#full) return this.#full.getPath(leafId);
    return this.#pathPositions(leafId).map((i) => this.#read(i));
  }

  get lastEntry(): SessionEntry | undefined {
    if (this.#full) return this.#full.lastEntry;
    return this.#ids.length ? this.#read(this.#ids.length - 1) : undefined;
  }

  /** The id of the last entry, without parsing it. */
  get lastId(): string | undefined {
    return this.#ids[this.#ids.length - 1];
  }

  getChildren(parentId: string | null): SessionEntry[] {
    if (this.#full) return this.#full.getChildren(parentId);
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
    const missing = new Set<string>();
    for (const id of this.danglingParents) missing.add(this.#parents[this.#at.get(id)!]!);
    return [...missing];
  }

  /** Add an entry that was committed after the open (its parent indexed or null). */
  add(entry: SessionEntry): void {
    if (!this.#full && this.#at.has(entry.id)) this.#whole(); // a duplicate id: full rules
    if (this.#full) this.#full.add(entry);
    const position = this.#ids.length;
    this.#ids.push(entry.id);
    this.#parents.push(entry.parentId);
    this.#flags.push(contextFlags(entry));
    this.#at.set(entry.id, position);
    this.#parsed[position] = entry;
    if (this.#children) this.#childAdded(position);
    if (this.#labels) this.#applyLabel(entry);
  }

  /**
   * The projection of the branch ending at `leafId`, parsing only what a context-only load
   * reads (the full path when that cannot decide it). Equal to `buildSessionProjection`.
   */
  projection(leafId: string | null): SessionProjection {
    if (this.#full) return buildSessionProjection(this.#full.entries, leafId, this.#full);
    const { path, start, prefix } = this.#plan(leafId);
    const read = (i: number) => this.#read(path[i]);
    const loaded = {
      header: this.#session.header,
      prefix: prefix.map(read),
      entries: path.slice(start).map((i) => this.#read(i)),
    };
    return projectLoadedContext(loaded) ?? projectPath(path.map((i) => this.#read(i)));
  }

  /** `buildContextEntries` of the branch ending at `leafId`, from the planned range only. */
  contextEntries(leafId: string | null): SessionEntry[] {
    if (this.#full) return buildContextEntries(this.#full.entries, leafId, this.#full);
    const { path, start } = this.#plan(leafId);
    const range = path.slice(start).map((i) => this.#read(i));
    return range.length ? buildContextEntries(range, range[range.length - 1].id) : [];
  }

  #plan(leafId: string | null) {
    if (leafId !== null && !this.#at.has(leafId)) throw new EntryNotFoundError(leafId);
    const path = this.#pathPositions(leafId);
    const plan = planContextLoad(
      path.length,
      (i) => this.#flags[path[i]],
      (i) => this.#ids[path[i]],
      (i) => this.#read(path[i]) as CompactionEntry,
    );
    return { path, ...plan };
  }
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
