/**
 * The index of a session's entries, built in one pass: lookup by id, children in file
 * order, resolved labels, roots (including entries whose parent is missing), and the
 * walks the manager and projection need. Parent cycles are rejected while indexing, so no
 * walk can loop.
 *
 * @module
 */
import { SessionFormatError } from "./errors.ts";
import type { SessionEntry } from "./schema.ts";

/**
 * A node of {@link SessionIndex.getTree}.
 *
 * @example
 * ```ts
 * import { type SessionTreeNode, SessionManager } from "@mu/sessions";
 * const manager = SessionManager.inMemory("/project");
 * await manager.appendMessage({ role: "user", content: "hi", timestamp: 1 });
 * const depth = (node: SessionTreeNode): number => 1 + Math.max(0, ...node.children.map(depth));
 * Math.max(...manager.getTree().map(depth)); // 1
 * ```
 */
export interface SessionTreeNode {
  entry: SessionEntry;
  children: SessionTreeNode[];
  /** The entry's current label, if any. */
  label?: string;
}

/**
 * Options for {@link SessionIndex.build}.
 *
 * @example
 * ```ts
 * import { type IndexOptions, SessionIndex } from "@mu/sessions";
 * const options: IndexOptions = { source: "/sessions/s1.jsonl" }; // named in errors
 * SessionIndex.build([], options);
 * ```
 */
export interface IndexOptions {
  /** Label for error messages (file path, session id). */
  source?: string;
}

/**
 * An index over a session's entries (file order). Mutated only through {@link add}, which
 * the manager calls after an append committed.
 *
 * @example
 * ```ts
 * import { SessionIndex } from "@mu/sessions";
 * const index = SessionIndex.build([
 *   { type: "label", id: "a", parentId: null, timestamp: "2026-01-01T00:00:00.000Z", targetId: "a", label: "x" },
 * ]);
 * index.getLabel("a"); // "x"
 * ```
 */
export class SessionIndex {
  readonly entries: SessionEntry[] = [];
  readonly byId: Map<string, SessionEntry> = new Map();
  /** Ids whose `parentId` is set but not present in the session (kept as roots). */
  readonly danglingParents: Set<string> = new Set();
  readonly #children = new Map<string | null, SessionEntry[]>();
  readonly #labels = new Map<string, string>();
  readonly #depth = new Map<string, number>();

  /** Index entries in file order; throws {@link SessionFormatError} on a parent cycle. */
  static build(entries: readonly SessionEntry[], options: IndexOptions = {}): SessionIndex {
    const index = new SessionIndex();
    for (const entry of entries) index.#insert(entry);
    index.#checkAcyclic(options.source);
    return index;
  }

  /**
   * Add one entry appended after the index was built. Its parent must already be indexed
   * (or be null), which keeps the tree acyclic without a check.
   */
  add(entry: SessionEntry): void {
    this.#insert(entry);
    const parent = entry.parentId;
    this.#depth.set(
      entry.id,
      parent === null || !this.byId.has(parent) ? 0 : this.#depthOf(parent) + 1,
    );
  }

  #insert(entry: SessionEntry): void {
    this.entries.push(entry);
    // Duplicate ids: the later entry wins lookups, both stay in `entries` (anchor behaviour).
    this.byId.set(entry.id, entry);
    const parentKey = entry.parentId;
    let siblings = this.#children.get(parentKey);
    if (!siblings) this.#children.set(parentKey, siblings = []);
    siblings.push(entry);
    if (entry.type === "label") {
      if (entry.label) this.#labels.set(entry.targetId, entry.label);
      else this.#labels.delete(entry.targetId);
    }
  }

  /**
   * Depth of every entry, O(n). Append-only files write parents before children, so one
   * pass in file order settles almost everything; only an entry whose parent comes later
   * in the file is walked, and a walk that meets itself is a parent cycle.
   */
  #checkAcyclic(source: string | undefined): void {
    const pending: SessionEntry[] = [];
    for (const entry of this.entries) {
      const parentId = entry.parentId;
      if (parentId === null) {
        this.#depth.set(entry.id, 0);
      } else if (!this.byId.has(parentId)) {
        this.danglingParents.add(entry.id);
        this.#depth.set(entry.id, 0);
      } else {
        const parentDepth = this.#depth.get(parentId);
        if (parentDepth !== undefined && parentId !== entry.id) {
          this.#depth.set(entry.id, parentDepth + 1);
        } else pending.push(entry);
      }
    }
    for (const start of pending) this.#walkToKnownDepth(start, source);
  }

  #walkToKnownDepth(start: SessionEntry, source: string | undefined): void {
    if (this.#depth.has(start.id)) return; // settled by an earlier walk
    const trail: string[] = [];
    const onTrail = new Set<string>();
    let cursor: SessionEntry | undefined = start;
    let base = -1;
    while (cursor) {
      const known = this.#depth.get(cursor.id);
      if (known !== undefined) {
        base = known;
        break;
      }
      if (onTrail.has(cursor.id)) {
        const line = this.entries.indexOf(cursor) + 2; // header is line 1
        throw new SessionFormatError(`entry ${cursor.id} is its own ancestor (parentId cycle)`, {
          line,
          source,
        });
      }
      trail.push(cursor.id);
      onTrail.add(cursor.id);
      cursor = cursor.parentId === null ? undefined : this.byId.get(cursor.parentId);
    }
    for (let i = trail.length - 1; i >= 0; i--) this.#depth.set(trail[i], ++base);
  }

  #depthOf(id: string): number {
    return this.#depth.get(id) ?? 0;
  }

  /**
   * The parent ids that entries point at but the session does not contain, distinct, in file
   * order. Each marks where history is missing: its children show as extra roots and a
   * context built through them starts mid-conversation, so viewers and the CLI name them.
   *
   * @example
   * ```ts
   * import { SessionIndex } from "@mu/sessions";
   * const t = "2026-01-01T00:00:00.000Z";
   * SessionIndex.build([
   *   { type: "label", id: "a", parentId: "gone", timestamp: t, targetId: "a" },
   * ]).missingParentIds(); // ["gone"]
   * ```
   */
  missingParentIds(): string[] {
    const missing = new Set<string>();
    for (const id of this.danglingParents) {
      const parentId = this.byId.get(id)?.parentId;
      if (parentId !== null && parentId !== undefined && !this.byId.has(parentId)) {
        missing.add(parentId);
      }
    }
    return [...missing];
  }

  /** The entry with this id, if any. */
  get(id: string): SessionEntry | undefined {
    return this.byId.get(id);
  }

  /** Direct children of an entry (or the roots for `null`), in file order. */
  getChildren(parentId: string | null): SessionEntry[] {
    const children = this.#children.get(parentId) ?? [];
    if (parentId !== null) return [...children];
    // Entries whose parent is missing are roots too.
    return this.entries.filter((entry) =>
      entry.parentId === null || this.danglingParents.has(entry.id)
    );
  }

  /** The current label of an entry. */
  getLabel(id: string): string | undefined {
    return this.#labels.get(id);
  }

  /** All current labels, by target id. */
  get labels(): ReadonlyMap<string, string> {
    return this.#labels;
  }

  /**
   * The path from the root to `leafId`, root first. Unknown or null leaf: `[]`. O(depth).
   */
  getPath(leafId: string | null | undefined): SessionEntry[] {
    if (leafId === null || leafId === undefined) return [];
    const path: SessionEntry[] = [];
    let cursor = this.byId.get(leafId);
    // Bounded by the entry count: duplicate ids can never make the walk loop.
    while (cursor && path.length <= this.entries.length) {
      path.push(cursor);
      cursor = cursor.parentId === null ? undefined : this.byId.get(cursor.parentId);
    }
    return path.reverse();
  }

  /** The last entry in file order, which is where a reopened session's leaf sits. */
  get lastEntry(): SessionEntry | undefined {
    return this.entries[this.entries.length - 1];
  }

  /**
   * The whole tree: roots in file order, children sorted by timestamp (stable: equal or
   * unparseable timestamps keep file order). Built iteratively, so deep trees are safe.
   */
  getTree(): SessionTreeNode[] {
    const nodes = new Map<string, SessionTreeNode>();
    const roots: SessionTreeNode[] = [];
    for (const entry of this.entries) {
      if (nodes.has(entry.id)) continue; // duplicate id: one node, the indexed entry
      const indexed = this.byId.get(entry.id)!;
      const node: SessionTreeNode = { entry: indexed, children: [] };
      const label = this.#labels.get(entry.id);
      if (label !== undefined) node.label = label;
      nodes.set(entry.id, node);
    }
    for (const node of nodes.values()) {
      const parentId = node.entry.parentId;
      const parent = parentId === null ? undefined : nodes.get(parentId);
      if (parent) parent.children.push(node);
      else roots.push(node);
    }
    const time = (node: SessionTreeNode) => {
      const ms = Date.parse(node.entry.timestamp);
      return Number.isNaN(ms) ? 0 : ms;
    };
    for (const node of nodes.values()) {
      if (node.children.length > 1) node.children.sort((a, b) => time(a) - time(b));
    }
    return roots;
  }
}
