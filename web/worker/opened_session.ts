/**
 * One session opened in the worker: its entries, index, flattened tree and caches for the
 * current leaf (path, projection). The page asks for pages of it; the session itself
 * never leaves the worker.
 *
 * @module
 */
import { branchSummary, type BranchSummaryView } from "./branch_summary.ts";
import { entryPreview } from "./describe.ts";
import type { ExportBranch } from "../export/html.ts";

import { EntryNotFoundError } from "../../src/errors.ts";
import { serializeEntries, toJsonLine } from "../../src/jsonl.ts";
import { listingStateOf, listingToInfo } from "../../src/_listing.ts";
import { isWorkflowInternal, type SessionEntry, type SessionHeader } from "../../src/schema.ts";
import { SessionIndex } from "../../src/tree.ts";
import type { SessionStore } from "../../src/store.ts";
import type {
  ContextAs,
  ContextPageView,
  EntryPlace,
  RawPageView,
  SessionOverview,
  TreeRowView,
  UsageView,
} from "../types.ts";
import { ContextPages } from "./context_pages.ts";
import { buildSessionProjection } from "../../src/projection.ts";
import { countBranchPoints, flattenTree, type TreeRow, treeRowViews } from "./tree_rows.ts";
import { computeUsage } from "./usage.ts";
import { conversationItems, type ConvItem } from "../conversation/model.ts";

/** Most conversation items an all-branches export carries (shared prefixes count per branch). */
const ALL_BRANCHES_ITEMS = 50_000;

type Json = Record<string, unknown>;

/**
 * Longest raw JSON line sent to the page before "Show all" is needed: ~20 wrapped lines,
 * in flow (the old 260 px box with a scrollbar of its own showed ~14; see `BLOCK_TEXT_LIMIT`).
 */
const RAW_TEXT_LIMIT = 1000;

/** A loaded, indexed session with view caches. */
export class OpenedSession {
  readonly rows: TreeRow[];
  readonly #rowIndex = new Map<string, number>();
  #path?: { leafId: string | null; entries: SessionEntry[]; ids: Set<string> };
  #projection?: { leafId: string | null; value: Json };
  /** Context pages of the projection (and the older agent's reading), per leaf. */
  readonly pages = new ContextPages((leafId) => this.projection(leafId));
  #conversation?: { leafId: string | null; items: ConvItem[] };

  private constructor(
    readonly header: SessionHeader,
    readonly entries: SessionEntry[],
    readonly index: SessionIndex,
    readonly sourceVersion: number,
  ) {
    this.rows = flattenTree(index.getTree());
    this.rows.forEach((row, i) => this.#rowIndex.set(row.node.entry.id, i));
  }

  /** Load and index a session from the store. */
  static async load(store: SessionStore, sessionId: string): Promise<OpenedSession> {
    const loaded = await store.load(sessionId);
    const index = SessionIndex.build(loaded.entries, { source: sessionId });
    return new OpenedSession(loaded.header, loaded.entries, index, loaded.sourceVersion);
  }

  get id(): string {
    return this.header.id;
  }

  /** The header facts and sizes the page shows first. */
  overview(): Omit<SessionOverview, "key" | "source"> {
    const info = listingToInfo(this.header, listingStateOf(this.entries));
    return {
      id: this.id,
      title: info.name ?? info.summary ?? info.firstMessage,
      cwd: info.cwd,
      created: info.created.getTime(),
      header: toJsonLine(this.header),
      sourceVersion: this.sourceVersion,
      entryCount: this.entries.length,
      rowCount: this.rows.length,
      defaultLeafId: this.index.lastEntry?.id ?? null,
      labels: this.index.labels.size,
      branchPoints: countBranchPoints(this.rows),
      internal: isWorkflowInternal(this.header),
      ...(this.header.parentSessionId ? { parentSessionId: this.header.parentSessionId } : {}),
      missingParentIds: this.index.missingParentIds(),
    };
  }

  /** Check a leaf id (null = before any entry). */
  #checkLeaf(leafId: string | null): void {
    if (leafId !== null && !this.index.get(leafId)) throw new EntryNotFoundError(leafId);
  }

  /** The entries from the root to `leafId`, cached for the last leaf asked. */
  path(leafId: string | null): { entries: SessionEntry[]; ids: Set<string> } {
    this.#checkLeaf(leafId);
    if (!this.#path || this.#path.leafId !== leafId) {
      const entries = this.index.getPath(leafId);
      this.#path = { leafId, entries, ids: new Set(entries.map((entry) => entry.id)) };
    }
    return this.#path;
  }

  /** Rows of the tree (= entries with distinct ids). */
  get rowCount(): number {
    return this.rows.length;
  }

  /** Tree rows marked for `leafId`. */
  treeRows(leafId: string | null, start: number, count: number): TreeRowView[] {
    return treeRowViews(this.rows, start, count, this.path(leafId).ids, leafId);
  }

  /** Row index of an entry, -1 when absent. */
  rowIndex(entryId: string): number {
    return this.#rowIndex.get(entryId) ?? -1;
  }

  /** `buildSessionProjection(entries, leafId, index)`, cached for the last leaf asked. */
  projection(leafId: string | null): Json {
    this.#checkLeaf(leafId);
    if (!this.#projection || this.#projection.leafId !== leafId) {
      const value = buildSessionProjection(this.entries, leafId, this.index) as unknown as Json;
      this.#projection = { leafId, value };
    }
    return this.#projection.value;
  }

  /** A page of the projected context (or of the older agent's reading of it). */
  context(leafId: string | null, start: number, count: number, as?: ContextAs): ContextPageView {
    return this.pages.context(leafId, start, count, as);
  }

  /** The whole text of one block of the projected context. */
  contextBlock(
    leafId: string | null,
    item: number,
    message: number,
    block: number,
    as?: ContextAs,
  ): string {
    return this.pages.contextBlock(leafId, item, message, block, as);
  }

  /** A page of raw path entries. */
  raw(leafId: string | null, start: number, count: number): RawPageView {
    const { entries } = this.path(leafId);
    const from = Math.max(0, start);
    const items = entries.slice(from, from + Math.max(0, count)).map((entry) => {
      const json = toJsonLine(entry);
      return {
        id: entry.id,
        type: entry.type,
        json: json.length > RAW_TEXT_LIMIT ? json.slice(0, RAW_TEXT_LIMIT) : json,
        fullLength: json.length,
      };
    });
    return { total: entries.length, start: from, items };
  }

  /** The conversation of the branch to `leafId` (`conversation/model.ts`), cached for the last leaf. */
  conversation(leafId: string | null): ConvItem[] {
    const { entries } = this.path(leafId);
    if (!this.#conversation || this.#conversation.leafId !== leafId) {
      this.#conversation = { leafId, items: conversationItems(entries) };
    }
    return this.#conversation.items;
  }

  /**
   * Where to show `entryId` without cutting a branch: on the branch to `leafId` when it is
   * there, else on the session's default branch, else on the newest branch through it (the
   * leaf under it appended last); with its conversation item there (or the nearest earlier
   * entry's, for an entry the conversation shows inside another item or not at all).
   */
  locate(leafId: string | null, entryId: string): EntryPlace {
    if (!this.index.get(entryId)) throw new EntryNotFoundError(entryId);
    const tip = this.index.lastEntry?.id ?? null;
    const leaf = this.path(leafId).ids.has(entryId)
      ? leafId
      : this.path(tip).ids.has(entryId)
      ? tip
      : this.#newestLeafUnder(entryId);
    const items = this.conversation(leaf);
    const itemOf = new Map(items.map((item, i) => [item.id, i]));
    for (let id: string | null = entryId; id !== null;) {
      const found = itemOf.get(id);
      if (found !== undefined) return { leafId: leaf, item: found };
      id = this.index.get(id)?.parentId ?? null;
    }
    return { leafId: leaf, item: -1 };
  }

  /** The leaf under `entryId` that was appended last (the entry itself when it has none). */
  #newestLeafUnder(entryId: string): string {
    const order = new Map(this.entries.map((entry, i) => [entry.id, i]));
    let newest = entryId;
    const stack = [entryId];
    while (stack.length) {
      const id = stack.pop()!;
      const children = this.index.getChildren(id);
      if (!children.length && (order.get(id) ?? -1) > (order.get(newest) ?? -1)) newest = id;
      for (const child of children) stack.push(child.id);
    }
    return newest;
  }

  /** The full JSON line of an entry. */
  rawEntry(entryId: string): string {
    const entry = this.index.get(entryId);
    if (!entry) throw new EntryNotFoundError(entryId);
    return toJsonLine(entry);
  }

  /**
   * Every branch (one per leaf of the tree, in tree order) with its conversation and
   * summary, for the all-branches HTML export. Refuses (a plain Error the page shows) when
   * the branches hold more items together than one file should carry.
   */
  allBranches(): ExportBranch[] {
    const branches: ExportBranch[] = [];
    let total = 0;
    for (const row of this.rows) {
      if (row.node.children.length > 0) continue;
      const entries = this.index.getPath(row.node.entry.id);
      const items = conversationItems(entries);
      total += items.length;
      if (total > ALL_BRANCHES_ITEMS) {
        throw new Error(
          `the branches hold more than ${ALL_BRANCHES_ITEMS} items together; export one branch`,
        );
      }
      branches.push({
        leafId: row.node.entry.id,
        name: `${entryPreview(row.node.entry).slice(0, 70)} (${items.length})`,
        items,
        summary: branchSummary(entries),
      });
    }
    return branches;
  }

  /** The summary block's facts for the branch to `leafId`. */
  summary(leafId: string | null): BranchSummaryView {
    return branchSummary(this.path(leafId).entries);
  }

  /** Usage of the session and of the branch to `leafId`. */
  usage(leafId: string | null): UsageView {
    return computeUsage(this.entries, this.path(leafId).entries);
  }

  /**
   * The branch to `leafId` in JSONL, meaning what `mu export --leaf` and the serve API's
   * `export?leaf=` mean: the session's own header (same id, provider, model, thinking
   * level) and the entries on the path to the leaf, root first, their lines unchanged.
   * Importing it beside the session it came from asks, like any file with a stored id.
   */
  exportBranch(leafId: string): Blob {
    this.#checkLeaf(leafId);
    return jsonlBlob(this.header, this.path(leafId).entries);
  }

  /** The whole session as JSONL (every branch, file order). */
  exportAll(): Blob {
    return jsonlBlob(this.header, this.entries);
  }
}

/** A session as a JSONL blob, serialised in slices (no one huge string). */
function jsonlBlob(header: SessionHeader, entries: readonly SessionEntry[]): Blob {
  const parts: string[] = [toJsonLine(header) + "\n"];
  for (let i = 0; i < entries.length; i += 1000) {
    parts.push(serializeEntries(entries.slice(i, i + 1000)));
  }
  return new Blob(parts, { type: "application/jsonl" });
}
