/**
 * A context-only load from JSONL bytes: one streaming pass that runs every check the full
 * parser runs (JSON, header, format version, every entry's validation, so an invalid entry
 * anywhere still stops it) but keeps only a compact index (id, parent, context flags, byte
 * offset) and the rare entries a projection may need from anywhere (settings, system and
 * compaction entries). The entries of the context range are then read back by their
 * offsets, a run of consecutive entries in one read.
 *
 * A file with a resume index (`_resume_index.ts`) whose digests still match is not checked
 * again: the pass starts from the index's state and checks only the lines appended since.
 * A large file checked in full leaves an index for the next open.
 *
 * The pass never decides anything the full parser would decide differently: on any doubt
 * (any error, an older or future format, duplicate ids, a parent written after its child,
 * an unknown leaf, a file that changed between reads) it answers `undefined`, and the store
 * falls back to its full load, which raises the exact error the full parser raises.
 *
 * @module
 */
import {
  CONTEXT_VERBATIM,
  type LoadedContext,
  planContextLoad,
} from "../../../src/context_load.ts";
import { appendListing, emptyListingState } from "../../../src/_listing.ts";
import {
  BlockHasher,
  decodeResumeIndex,
  encodeResumeIndex,
  type FileIdentity,
  type IndexSeal,
  RACY_MS,
  RESUME_INDEX_MIN_BYTES,
  type ResumeIndex,
  type ResumeIndexFile,
  type ScanSnapshot,
  verifyBlocks,
} from "./_resume_index.ts";
import {
  type ByteText,
  type RangeReader,
  type RangeScan,
  scanRange,
  Unsure,
} from "./_line_checks.ts";
import type { CompactionEntry, SessionEntry, SessionHeader } from "../../../src/schema.ts";
import { headerProblem, validateEntry } from "../../../src/_entry_check.ts";
import { MAX_NESTING_DEPTH, nestsDeeperThan } from "../../../src/_wellformed.ts";

export { Unsure } from "./_line_checks.ts";

/**
 * The pass's state: the compact index, the listing fold and the rare entries, from the
 * ranges of the file absorbed in order. Restored from a resume index, it holds the columns
 * of the indexed entries but none of their bodies ({@link entryAt} answers `undefined` for
 * them; they are read back by offset).
 */
export class ContextScanner {
  header: Record<string, unknown> | undefined;
  ids: string[] = [];
  parents: (string | null)[] = [];
  flags: number[] = [];
  /** Byte offset of each entry's line. */
  offsets: number[] = [];
  /** Positions of the `label` entries. */
  labels: number[] = [];
  listing = emptyListingState();
  readonly at = new Map<string, number>();
  /** Parent ids not yet seen when their child came (dangling, or written later: unsure). */
  unseenParents = new Set<string>();
  readonly rare = new Map<number, SessionEntry>();
  /** Bytes passed (the file's length once the pass is over). */
  end = 0;
  /** 1-based number of the line at {@link end}. */
  nextLine = 1;

  /** The scanner as it was after the pass `snapshot` describes (no entry bodies kept). */
  static restore(snapshot: ScanSnapshot): ContextScanner {
    const scanner = new ContextScanner();
    scanner.header = snapshot.header;
    scanner.ids = snapshot.ids;
    scanner.parents = snapshot.parents;
    scanner.flags = snapshot.flags;
    scanner.offsets = snapshot.offsets;
    scanner.labels = snapshot.labels;
    scanner.listing = snapshot.listing;
    scanner.unseenParents = new Set(snapshot.unseenParents);
    const { ids, at } = scanner;
    for (let i = 0; i < ids.length; i++) at.set(ids[i], i);
    scanner.end = snapshot.bytes;
    scanner.nextLine = snapshot.nextLine;
    return scanner;
  }

  /** What a resume index keeps of this pass (its {@link end} is a line break's end). */
  snapshot(): ScanSnapshot {
    return {
      bytes: this.end,
      nextLine: this.nextLine,
      header: this.header!,
      ids: this.ids,
      parents: this.parents,
      flags: this.flags,
      offsets: this.offsets,
      labels: this.labels,
      listing: this.listing,
      unseenParents: [...this.unseenParents],
    };
  }

  /**
   * Take the next range of the file (it starts where the last one ended): the checks that
   * depend on the lines before it (duplicate ids, parents not seen yet), in file order.
   */
  absorb(scan: RangeScan): void {
    if (scan.start !== this.end) throw new Unsure(); // the file changed between ranges
    if (scan.header) {
      if (this.header) throw new Unsure();
      this.header = scan.header;
    }
    const { at, unseenParents } = this;
    const base = this.ids.length;
    for (let i = 0; i < scan.ids.length; i++) {
      const id = scan.ids[i];
      const parent = scan.parents[i];
      if (at.has(id)) throw new Unsure(); // duplicate ids: the tree index decides
      if (parent !== null && !at.has(parent)) unseenParents.add(parent); // self-parents too
      at.set(id, base + i);
    }
    if (base === 0) { // the first range (a whole file checked on one thread): its columns
      ({ ids: this.ids, parents: this.parents, flags: this.flags, offsets: this.offsets } = scan);
    } else {
      const { ids, parents, flags, offsets } = this;
      for (let i = 0; i < scan.ids.length; i++) {
        ids.push(scan.ids[i]);
        parents.push(scan.parents[i]);
        flags.push(scan.flags[i]);
        offsets.push(scan.offsets[i]);
      }
    }
    for (const label of scan.labels) this.labels.push(base + label);
    for (const [index, entry] of scan.kept) this.rare.set(base + index, entry);
    appendListing(this.listing, scan.listing, scan.kept.map(([, entry]) => entry));
    this.end = scan.end;
    this.nextLine += scan.lines;
  }

  /** A kept entry (a rare one parsed by this pass), or undefined. */
  entryAt(index: number): SessionEntry | undefined {
    return this.rare.get(index);
  }

  /** Byte range `[start, end)` of the entry at `index` (its line and any blank lines after). */
  rangeOf(index: number): [number, number] {
    return [this.offsets[index], this.offsets[index + 1] ?? this.end];
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

/** A JSONL file as the pass reads it. */
export interface ScanFile {
  /** The file's bytes from `start` (0 when omitted), streamed. */
  stream(start?: number): AsyncIterable<Uint8Array>;
  /** Bytes `[start, end)` (fewer at end of file). */
  read(start: number, end: number): Promise<Uint8Array>;
  /** The file as shown to people (error messages). */
  source?: string;
  /** The file's resume index, when its store keeps one. */
  index?: ResumeIndexFile;
  /** Sees every byte read, in file order; `clear` forgets them (an index that did not match). */
  keep?: { add(chunk: Uint8Array): void; clear(): void };
  /** The runtime's native conversions of bytes to text, which spare most lines a decode. */
  text?: ByteText;
}

/**
 * The index in `file.index`, when it still describes the file's bytes: the file has the
 * identity the index names (nothing read), or the prefix it covers still hashes to its
 * digests (`lastBlock` then lets the hashing go on).
 */
async function matchingIndex(file: ScanFile, identity: FileIdentity | undefined) {
  const stored = await file.index?.load().catch(() => undefined);
  const index = stored && await decodeResumeIndex(stored, await sealOf(file.index!));
  if (!index) return undefined;
  const unchanged = identity !== undefined && index.identity !== undefined &&
    identity.key === index.identity && identity.size === index.snapshot.bytes;
  if (unchanged && !file.keep) return { index, lastBlock: undefined };
  const read = (start: number, end: number) => file.read(start, end);
  const add = file.keep && ((block: Uint8Array) => file.keep!.add(block));
  const lastBlock = await verifyBlocks(read, index, add, file.index!.digest)
    .catch(() => undefined);
  if (lastBlock) return { index, lastBlock };
  file.keep?.clear();
  return undefined;
}

/** How the file's index is sealed. */
async function sealOf(index: ResumeIndexFile): Promise<IndexSeal> {
  return { key: await index.key(), boundTo: index.boundTo };
}

/** The file's identity, when its backend tells one. */
async function identityOf(file: ScanFile): Promise<FileIdentity | undefined> {
  return await file.index?.identity?.().catch(() => undefined);
}

/**
 * The checking pass over `file`: from its resume index's state when that still matches,
 * else from the start.
 * Keeps the index current: written once a large file was checked whole, and again whenever
 * lines were checked after it. Throws (`Unsure`, a parse error) on any doubt.
 */
export async function scanFile(
  file: ScanFile,
): Promise<{ scanner: ContextScanner; header: SessionHeader }> {
  const before = await identityOf(file);
  const resumed = file.index && await matchingIndex(file, before);
  const snapshot = resumed?.index.snapshot;
  const scanner = snapshot ? ContextScanner.restore(snapshot) : new ContextScanner();
  const from = scanner.end;
  const minBytes = file.index?.minBytes ?? RESUME_INDEX_MIN_BYTES;
  // A file known to be too small for an index is not hashed (most sessions are).
  const small = before !== undefined && before.size < minBytes;
  const reader: RangeReader = {
    stream: (at) => file.stream(at),
    source: file.source,
    text: file.text,
  };
  const hashed = !file.index
    ? undefined
    : !resumed
    ? small ? undefined : new BlockHasher(file.index.blockBytes, file.index.digest)
    : resumed.lastBlock
    ? BlockHasher.resume(resumed.index, resumed.lastBlock, file.index.digest)
    : undefined; // unchanged by its identity: nothing to write (the file grew since: next time)
  const onBytes = (chunk: Uint8Array) => {
    hashed?.push(chunk);
    file.keep?.add(chunk);
  };
  const job = { start: from, aligned: true, line: scanner.nextLine };
  const scan = await scanRange(reader, job, onBytes);
  scanner.absorb(scan);
  const newlineEnded = scan.newlineEnded;
  const scanned = { scanner, header: scanner.checkedHeader() }; // only an accepted file is indexed
  if (!hashed || !newlineEnded || hashed.length !== scanner.end) return scanned;
  const checked = scanner.end - from;
  if (from === 0 && checked < minBytes) return scanned;
  const after = before && await identityOf(file);
  const steady = after?.key === before?.key && after?.size === scanner.end &&
    Date.now() - after.changedMs >= RACY_MS;
  // After an index: the file grew, or was touched and can now go unhashed.
  if (from > 0 && checked === 0 && !(steady && resumed!.index.identity !== after!.key)) {
    return scanned;
  }
  const index: ResumeIndex = {
    snapshot: scanner.snapshot(),
    blockBytes: hashed.blockBytes,
    blocks: await hashed.digests(),
  };
  if (steady) index.identity = after!.key;
  await sealOf(file.index!)
    .then((seal) => encodeResumeIndex(index, seal))
    .then((bytes) => file.index!.save(bytes))
    .catch(() => {});
  return scanned;
}

/**
 * The entry in `text` (its line, and any blank lines after it) when it is the entry the
 * pass indexed: it parses, passes the full parser's entry checks, and carries `id` under
 * `parentId`; `undefined` when the file changed since the pass indexed it. Only the first
 * line is parsed: a line the parser takes for blank (one holding only a byte-order mark or
 * other Unicode space, which `String.prototype.trim` removes) is no JSON whitespace.
 */
export function entryFromText(
  text: string,
  id: string,
  parentId: string | null,
): SessionEntry | undefined {
  const newline = text.indexOf("\n");
  let entry: SessionEntry | undefined;
  try {
    entry = JSON.parse(newline === -1 ? text : text.slice(0, newline));
  } catch {
    return undefined;
  }
  if (entry?.id !== id || entry.parentId !== parentId || validateEntry(entry)) return undefined;
  return entry;
}

/** Lines up to this far apart are read together rather than in two reads. */
const READ_GAP_BYTES = 64 << 10;

/** Parse the entries at `wanted` (entry indices) from their bytes, checking their ids. */
async function readEntries(
  file: ScanFile,
  scanner: ContextScanner,
  wanted: number[],
): Promise<Map<number, SessionEntry>> {
  const found = new Map<number, SessionEntry>();
  const sorted = [...new Set(wanted)].sort((a, b) => a - b);
  const decoder = new TextDecoder();
  for (let i = 0; i < sorted.length;) {
    let j = i; // entries close together are one read (the lines between are skipped)
    while (
      j + 1 < sorted.length &&
      scanner.rangeOf(sorted[j + 1])[0] - scanner.rangeOf(sorted[j])[1] <= READ_GAP_BYTES
    ) j++;
    const start = scanner.rangeOf(sorted[i])[0];
    const bytes = await file.read(start, scanner.rangeOf(sorted[j])[1]);
    for (let k = i; k <= j; k++) {
      const [from, to] = scanner.rangeOf(sorted[k]);
      const text = decoder.decode(bytes.subarray(from - start, to - start));
      const entry = entryFromText(text, scanner.ids[sorted[k]], scanner.parents[sorted[k]]);
      if (!entry) throw new Unsure(); // the file changed
      found.set(sorted[k], entry);
    }
    i = j + 1;
  }
  return found;
}

/**
 * A context-only load (see `LoadedContext`) of the format-4 JSONL session in `file`, or
 * `undefined` whenever the full parser should decide instead.
 *
 * @example
 * ```ts
 * import { scanContext } from "./_scan.ts";
 * const bytes = new TextEncoder().encode('{"type":"session","version":4,"id":"s","createdAt":"2026-01-01T00:00:00.000Z","cwd":"/p"}\n');
 * const file = {
 *   stream: async function* (start = 0) { yield bytes.subarray(start); },
 *   read: (start: number, end: number) => Promise.resolve(bytes.subarray(start, end)),
 * };
 * (await scanContext(file, undefined))?.entries; // []
 * ```
 */
export async function scanContext(
  file: ScanFile,
  leafId: string | null | undefined,
): Promise<LoadedContext | undefined> {
  try {
    const { scanner, header } = await scanFile(file);
    const path = scanner.pathTo(leafId);
    const entryAt = (index: number) => scanner.entryAt(index) ?? extra.get(index)!;
    // The boundary the plan reads first (when the index holds it), then the entries it wants.
    let extra = new Map<number, SessionEntry>();
    const boundary = path.findLast((i) => scanner.flags[i] & CONTEXT_VERBATIM);
    if (boundary !== undefined && !scanner.entryAt(boundary)) {
      extra = await readEntries(file, scanner, [boundary]);
    }
    const plan = planContextLoad(
      path.length,
      (i) => scanner.flags[path[i]],
      (i) => scanner.ids[path[i]],
      (i) => entryAt(path[i]) as CompactionEntry,
    );
    const wanted = [...plan.prefix.map((i) => path[i]), ...path.slice(plan.start)];
    const missing = wanted.filter((index) => !scanner.entryAt(index) && !extra.has(index));
    if (missing.length) {
      for (const [i, entry] of await readEntries(file, scanner, missing)) extra.set(i, entry);
    }
    return {
      header,
      prefix: plan.prefix.map((i) => entryAt(path[i])),
      entries: path.slice(plan.start).map(entryAt),
    };
  } catch {
    return undefined; // any doubt: the caller's full load decides (and words any error)
  }
}
