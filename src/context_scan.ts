/**
 * A context-only load from JSONL bytes: one streaming pass that runs every check the full
 * parser runs (JSON, header, format version, every entry's validation, so an invalid entry
 * anywhere still stops it) but keeps only a compact index (id, parent, context flags) and
 * the entries a projection may need: everything since the next-to-last verbatim compaction
 * in file order, plus the rare settings, system and compaction entries. The projection of
 * a leaf usually lies inside that window; when it does not, a second pass parses just the
 * missing lines.
 *
 * The pass never decides anything the full parser would decide differently: on any doubt
 * (any error, an older or future format, duplicate ids, a parent written after its child,
 * an unknown leaf, a file that changed between passes) it answers `undefined`, and the store
 * falls back to its full load, which raises the exact error the full parser raises.
 *
 * @module
 */
import {
  CONTEXT_SYSTEM,
  CONTEXT_THINKING,
  CONTEXT_VERBATIM,
  CONTEXT_WINDOW,
  contextFlags,
  type LoadedContext,
  planContextLoad,
} from "./context_load.ts";
import { JsonlLineSplitter, type JsonlRecord } from "./jsonl.ts";
import { upgradeRecords } from "./migrate.ts";
import type { CompactionEntry, SessionEntry, SessionHeader } from "./schema.ts";
import { headerProblem, validateEntry } from "./entry_check.ts";
import { MAX_NESTING_DEPTH, nestsDeeperThan } from "./wellformed.ts";

/** Thrown inside the pass to stop it; never escapes {@link scanContext} or the lazy scan. */
export class Unsure extends Error {}

/** Entries kept whatever their position: few per session, and the plan may need any of them. */
const RARE = CONTEXT_THINKING | CONTEXT_WINDOW | CONTEXT_SYSTEM | CONTEXT_VERBATIM;

/**
 * The pass's state: the compact index and the kept entries. `onEntry` sees every checked
 * entry with its record (the lazy open, `lazy_scan.ts`, indexes byte offsets with it).
 */
export class ContextScanner {
  onEntry?: (entry: SessionEntry, record: JsonlRecord) => void;
  header: Record<string, unknown> | undefined;
  readonly ids: string[] = [];
  readonly parents: (string | null)[] = [];
  readonly flags: number[] = [];
  readonly at = new Map<string, number>();
  /** Parent ids not yet seen when their child came (dangling, or written later: unsure). */
  readonly unseenParents = new Set<string>();
  readonly rare = new Map<number, SessionEntry>();
  kept: SessionEntry[] = [];
  keptStart = 0;
  #lastVerbatim = -1;

  readonly onRecord = (record: JsonlRecord): void => {
    const value = JSON.parse(record.text) as unknown; // a parse error: the full parser words it
    if (value === null || typeof value !== "object" || Array.isArray(value)) throw new Unsure();
    if (!this.header) {
      const header = value as Record<string, unknown>;
      if (header.type !== "session") throw new Unsure();
      if (upgradeRecords(header, []).upgraded) throw new Unsure(); // older formats: full load
      this.header = header;
      return;
    }
    const entry = value as SessionEntry;
    if (validateEntry(entry)) throw new Unsure();
    const index = this.ids.length;
    if (this.at.has(entry.id)) throw new Unsure(); // duplicate ids: the tree index decides
    if (entry.parentId !== null && !this.at.has(entry.parentId)) {
      this.unseenParents.add(entry.parentId); // checked before its own id: self-parents too
    }
    this.at.set(entry.id, index);
    this.ids.push(entry.id);
    this.parents.push(entry.parentId);
    const flags = contextFlags(entry);
    this.flags.push(flags);
    if (flags & RARE || entry.type === "model_change") this.rare.set(index, entry);
    if (flags & CONTEXT_VERBATIM) {
      // Keep the entries since the previous verbatim compaction: the newest boundary's kept
      // tail starts after it in append-only sessions.
      if (this.#lastVerbatim >= 0) {
        this.kept = this.kept.slice(this.#lastVerbatim - this.keptStart);
        this.keptStart = this.#lastVerbatim;
      }
      this.#lastVerbatim = index;
    }
    this.kept.push(entry);
    this.onEntry?.(entry, record);
  };

  /** A kept entry, or undefined when the window has moved past it. */
  entryAt(index: number): SessionEntry | undefined {
    return this.rare.get(index) ??
      (index >= this.keptStart ? this.kept[index - this.keptStart] : undefined);
  }

  /** The header, checked as the full parser checks it. */
  checkedHeader(): SessionHeader {
    const header = this.header;
    if (!header || nestsDeeperThan(header, MAX_NESTING_DEPTH)) throw new Unsure();
    if (headerProblem(header)) throw new Unsure();
    for (const parent of this.unseenParents) {
      if (this.at.has(parent)) throw new Unsure(); // a parent after its child: cycles possible
    }
    return header as SessionHeader;
  }

  /** Entry indices of the root-to-leaf path. */
  pathTo(leafId: string | null | undefined): number[] {
    if (leafId === null) return [];
    const leaf = leafId === undefined ? this.ids.length - 1 : this.at.get(leafId);
    if (leaf === undefined) throw new Unsure(); // unknown leaf: the full load raises it
    const path: number[] = [];
    for (let i: number | undefined = leaf; i !== undefined && i >= 0;) {
      path.push(i);
      const parent: string | null = this.parents[i];
      i = parent === null ? undefined : this.at.get(parent);
    }
    return path.reverse();
  }
}

/** Run `onRecord` over every record of `chunks`. */
export async function feed(
  chunks: AsyncIterable<Uint8Array>,
  onRecord: (record: JsonlRecord) => void,
  source: string | undefined,
): Promise<void> {
  const splitter = new JsonlLineSplitter(onRecord, source);
  for await (const chunk of chunks) splitter.push(chunk);
  splitter.end();
}

/** Second pass: parse only the entries at `wanted` (entry indices), checking their ids. */
async function readMissing(
  chunks: AsyncIterable<Uint8Array>,
  wanted: Set<number>,
  scanner: ContextScanner,
  source: string | undefined,
): Promise<Map<number, SessionEntry>> {
  const found = new Map<number, SessionEntry>();
  let index = -1; // the header is record -1
  await feed(chunks, (record) => {
    if (wanted.has(index)) {
      const entry = JSON.parse(record.text) as SessionEntry;
      if (entry?.id !== scanner.ids[index]) throw new Unsure(); // the file changed
      found.set(index, entry);
    }
    index++;
  }, source);
  if (found.size !== wanted.size) throw new Unsure();
  return found;
}

/**
 * A context-only load (see `LoadedContext`) of the format-4 JSONL session in `read()`'s
 * bytes, or `undefined` whenever the full parser should decide instead. `read` may be
 * called twice (a second pass for entries outside the kept window).
 *
 * @example
 * ```ts
 * import { scanContext } from "./context_scan.ts";
 * const text = '{"type":"session","version":4,"id":"s","createdAt":"2026-01-01T00:00:00.000Z","cwd":"/p"}\n';
 * const read = async function* () { yield new TextEncoder().encode(text); };
 * (await scanContext(read, undefined))?.entries; // []
 * ```
 */
export async function scanContext(
  read: () => AsyncIterable<Uint8Array>,
  leafId: string | null | undefined,
  source?: string,
): Promise<LoadedContext | undefined> {
  const scanner = new ContextScanner();
  try {
    await feed(read(), scanner.onRecord, source);
    const header = scanner.checkedHeader();
    const path = scanner.pathTo(leafId);
    const plan = planContextLoad(
      path.length,
      (i) => scanner.flags[path[i]],
      (i) => scanner.ids[path[i]],
      (i) => scanner.entryAt(path[i]) as CompactionEntry,
    );
    const wanted = [...plan.prefix.map((i) => path[i]), ...path.slice(plan.start)];
    const missing = new Set(wanted.filter((index) => !scanner.entryAt(index)));
    const extra = missing.size ? await readMissing(read(), missing, scanner, source) : undefined;
    const entryAt = (index: number) => scanner.entryAt(index) ?? extra!.get(index)!;
    return {
      header,
      prefix: plan.prefix.map((i) => entryAt(path[i])),
      entries: path.slice(plan.start).map(entryAt),
    };
  } catch {
    return undefined; // any doubt: the caller's full load decides (and words any error)
  }
}
