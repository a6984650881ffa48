/**
 * The export index's sidecar text (`export_index.ts` builds and checks indexes): writing it,
 * and reading it back into a {@link ParsedExportIndex} that a range reader can use at once.
 *
 * A reader parses the whole index for every answer, so the wire is made for a cheap parse:
 * the per-entry numbers are strings of base-64 digits (each number's 5-bit groups, lowest
 * first, a digit of 32 or more saying another group follows) instead of JSON arrays, the
 * block digests one hex string, and the ids one string joined by newlines that is never split:
 * an id is sliced out when the reader asks for it, and a leaf is found by one string search.
 * An index of another version (2 had JSON arrays and no `messages`) is refused: export again.
 *
 * @module
 */
import {
  EXPORT_INDEX_FORMAT,
  EXPORT_INDEX_VERSION,
  type ExportIndex,
  ExportIndexError,
  type ExportIndexFacts,
} from "./export_index.ts";

const DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_";
/** Each digit's value by its character code (ASCII), -1 for a character that is no digit. */
const DIGIT_VALUES = /* @__PURE__ */ (() => {
  const values = new Int8Array(128).fill(-1);
  for (let i = 0; i < DIGITS.length; i++) values[DIGITS.charCodeAt(i)] = i;
  return values;
})();
const HEX_DIGEST = /^[0-9a-f]{64}$/;

/** A parsed index, its ids looked up without building a string per entry. */
export interface ParsedExportIndex extends ExportIndexFacts {
  /** Number of entries. */
  count: number;
  /** The id of the entry at `position`. */
  idAt(position: number): string;
  /** The last position whose id is `id` (a later duplicate wins, as in `SessionIndex`), or -1. */
  positionOf(id: string): number;
}

/** Natural numbers as digit strings (see the module comment). */
function naturalsText(list: Iterable<number>): string {
  const digits: string[] = [];
  for (let n of list) {
    for (; n >= 32; n = Math.floor(n / 32)) digits.push(DIGITS[32 + (n % 32)]);
    digits.push(DIGITS[n]);
  }
  return digits.join("");
}

/** `count` natural numbers read from a digit string; `undefined` when it holds any other. */
function naturalsOf(text: unknown, count: number): Float64Array | undefined {
  if (typeof text !== "string") return undefined;
  // Outside the heap: five arrays of an entry count each would otherwise cost collections.
  const out = new Float64Array(count);
  let at = 0;
  for (let i = 0; i < count; i++) {
    let n = 0, scale = 1, digit;
    do {
      const code = text.charCodeAt(at++);
      digit = code < 128 ? DIGIT_VALUES[code] : -1; // NaN past the end: no digit
      if (digit < 0 || scale > 2 ** 50) return undefined;
      n += (digit & 31) * scale;
      scale *= 32;
    } while (digit >= 32);
    out[i] = n;
  }
  return at === text.length ? out : undefined;
}

/**
 * The sidecar text of an index (what `mu export --index` writes to `<file>.jsonl.idx`).
 *
 * @example
 * ```ts
 * import { buildExportIndex, serializeExportIndex } from "./export_index.ts";
 * serializeExportIndex(await buildExportIndex('{"type":"session","version":3,"id":"s"}\n'));
 * ```
 */
export function serializeExportIndex(index: ExportIndex): string {
  const { ids, parents, offsets, lengths } = index;
  let end = index.header[0] + index.header[1];
  const gaps = Array.from(offsets, (offset, i) => {
    const gap = offset - end - 1;
    end = offset + lengths[i];
    return gap;
  });
  const wire = {
    format: index.format,
    version: EXPORT_INDEX_VERSION,
    length: index.length,
    digest: index.digest,
    blockSize: index.blockSize,
    blocks: index.blocks.join(""),
    header: index.header,
    entries: ids.length,
    ids: ids.join("\n"),
    parents: naturalsText(Array.from(parents, (parent, i) => parent < 0 ? 0 : i - parent)),
    flags: naturalsText(index.flags),
    gaps: naturalsText(gaps),
    lengths: naturalsText(lengths),
    messages: naturalsText(index.messages),
    missing: index.missing,
  };
  return JSON.stringify(wire) + "\n";
}

/** The sidecar's JSON shape (see the module comment). */
interface WireIndex {
  format: string;
  version: number;
  length: number;
  digest: string;
  blockSize: number;
  blocks: string;
  header: [number, number];
  entries: number;
  ids: string;
  parents: string;
  flags: string;
  gaps: string;
  lengths: string;
  messages: string;
  missing: string[];
}

const isNatural = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;

/**
 * Parse and check an index's own consistency; a torn, foreign, other-version or inconsistent
 * index is an {@link ExportIndexError}. It is still untrusted about the JSONL until checked
 * against its bytes (`checkExportBlock`, `checkExportFile`).
 *
 * @example
 * ```ts
 * import { parseExportIndex } from "./export_index.ts";
 * try { parseExportIndex('{"format":"other"}'); } catch (e) { console.log((e as Error).name); } // ExportIndexError
 * ```
 */
export function parseExportIndex(text: string): ParsedExportIndex {
  let value: Partial<WireIndex>;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new ExportIndexError("the export index is not JSON (torn or not an index)", { cause });
  }
  const fail = (why: string): never => {
    throw new ExportIndexError(`the export index is inconsistent: ${why}`);
  };
  if (value === null || typeof value !== "object" || value.format !== EXPORT_INDEX_FORMAT) {
    throw new ExportIndexError("not a mu export index");
  }
  if (value.version !== EXPORT_INDEX_VERSION) {
    throw new ExportIndexError(
      `export index version ${value.version} is not supported (this reader takes ${EXPORT_INDEX_VERSION}; export again with --index)`,
    );
  }
  const { length, blockSize, header, blocks, entries: count, ids, missing } = value;
  if (!isNatural(length)) fail("length");
  if (typeof value.digest !== "string" || !HEX_DIGEST.test(value.digest)) fail("digest");
  if (!isNatural(blockSize) || !blockSize) fail("blockSize");
  // One hex string, 64 digits per block.
  if (typeof blocks !== "string" || /[^0-9a-f]/.test(blocks)) fail("blocks");
  if (blocks!.length !== 64 * Math.ceil(length! / blockSize!)) fail("block count");
  if (!Array.isArray(header) || header.length !== 2 || !header.every(isNatural)) fail("header");
  if (typeof ids !== "string") fail("ids");
  if (!Array.isArray(missing) || !missing.every((id) => typeof id === "string")) fail("missing");
  if (!isNatural(count)) fail("entries");
  const numbers = (name: keyof WireIndex) => naturalsOf(value[name], count!) ?? fail(name);
  const lengths = numbers("lengths"), gaps = numbers("gaps"), flags = numbers("flags");
  const messages = numbers("messages"), parents = numbers("parents");
  const offsets = new Float64Array(count!);
  let end = header![0] + header![1];
  if (end > length!) fail("header past the end");
  for (let i = 0; i < count!; i++) {
    const back = parents[i];
    if (back > i) fail(`entry ${i}'s parent`);
    parents[i] = back === 0 ? -1 : i - back;
    // Lines are newline-separated, so each starts past the previous line's newline.
    offsets[i] = end + 1 + gaps[i];
    end = offsets[i] + lengths[i];
    if (end > length!) fail(`entry ${i} past the end`);
    if (messages[i] >= lengths[i]) fail(`entry ${i}'s message`);
  }
  const digests: string[] = [];
  for (let at = 0; at < blocks!.length; at += 64) digests.push(blocks!.slice(at, at + 64));
  return withIds(
    {
      format: EXPORT_INDEX_FORMAT,
      version: EXPORT_INDEX_VERSION,
      length: length!,
      digest: value.digest!,
      blockSize: blockSize!,
      blocks: digests,
      header: header as [number, number],
      parents,
      flags,
      offsets,
      lengths,
      messages,
      missing: value.missing!,
    },
    ids!,
    count!,
  ) ?? fail("ids");
}

/**
 * The index with its ids, `joined` by newlines, looked up in place; `undefined` when
 * `joined` does not hold `count` ids.
 */
function withIds(
  fields: ExportIndexFacts,
  joined: string,
  count: number,
): ParsedExportIndex | undefined {
  // Each id followed by a newline; starts[i] is where id i starts, starts[count] the end.
  const text = joined + "\n";
  const starts = new Float64Array(count + 1);
  let at = -1;
  for (let i = 0; i < count && (i === 0 || at >= 0); i++) {
    starts[i] = at + 1;
    at = text.indexOf("\n", at + 1);
  }
  if (count ? at !== text.length - 1 : joined !== "") return undefined;
  starts[count] = text.length;
  const idAt = (position: number) => text.slice(starts[position], starts[position + 1] - 1);
  return {
    ...fields,
    count,
    idAt,
    positionOf(id) {
      if (id.includes("\n")) return -1;
      const found = text.lastIndexOf(`\n${id}\n`) + 1; // where the id starts, or 0
      if (!found) return text.startsWith(`${id}\n`) ? 0 : -1;
      let low = 0, high = count - 1; // the position whose id starts there
      while (low < high) {
        const middle = (low + high + 1) >> 1;
        if (starts[middle] <= found) low = middle;
        else high = middle - 1;
      }
      return low;
    },
  };
}
