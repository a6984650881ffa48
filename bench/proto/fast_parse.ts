/**
 * PROTOTYPE (benchmark-only): `parseSessionJsonl`'s pipeline with its two costly choices
 * made switchable, to measure what each costs and what the proposed fixes gain:
 *
 * - `raw`: how the exact text of each record is kept for byte-identical export.
 *   "string" = today (a WeakMap from each parsed object to its line string: the strings
 *   survive, get promoted and copied by the GC, and a line with one non-Latin-1 character
 *   costs two bytes per character); "bytes" = a view of the chunk bytes (off the V8 heap,
 *   one byte per byte, decoded only when exported); "none".
 * - `validate`: "zod" = the zod schemas per entry (zod builds a full output copy that is
 *   thrown away); "fast" = the structural validator the library now uses
 *   (`src/_entry_check.ts`, which agrees with zod and replaced the fast path this prototype
 *   first measured); "none".
 *
 * Splitting, decoding (fatal UTF-8), the upgrade step and header validation are the
 * library's own, so only the switched parts differ.
 * @module
 */
import { upgradeRecords } from "../../src/_migrate.ts";
import {
  describeSchemaError,
  KnownSessionEntrySchema,
  SessionHeaderSchema,
  UnknownSessionEntrySchema,
} from "../../src/_zod_schema.ts";
import { KNOWN_ENTRY_TYPES } from "../../src/schema.ts";
import type { SessionEntry } from "../../core.ts";
import { validateEntry } from "../../src/_entry_check.ts";

/** What the zod schemas say about an entry. */
function zodProblem(entry: Record<string, unknown>): string | undefined {
  const schema = KNOWN_ENTRY_TYPES.has(entry.type as string)
    ? KnownSessionEntrySchema
    : UnknownSessionEntrySchema;
  const result = schema.safeParse(entry);
  return result.success ? undefined : describeSchemaError(result.error);
}

export interface ProtoOptions {
  raw: "string" | "bytes" | "none";
  validate: "zod" | "fast" | "none";
}

/** Raw text kept per record (the prototype's equivalent of `rememberRawJson`). */
const rawText = new WeakMap<object, string>();
const rawBytes = new WeakMap<object, Uint8Array>();
const lazyDecoder = new TextDecoder();

/** The exact text of a record parsed by the prototype (decoded on demand for "bytes"). */
export function protoRawOf(value: object): string | undefined {
  const bytes = rawBytes.get(value);
  return bytes ? lazyDecoder.decode(bytes) : rawText.get(value);
}

/** Parse a chunk stream into header + entries with the given choices; counts zod calls. */
export async function protoParse(
  chunks: AsyncIterable<Uint8Array>,
  options: ProtoOptions,
): Promise<{ entries: SessionEntry[]; zodCalls: number }> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let header: Record<string, unknown> | undefined;
  const entries: Record<string, unknown>[] = [];
  let parts: Uint8Array[] = [];
  const record = (bytes: Uint8Array) => {
    if (bytes.length === 0) return;
    const text = decoder.decode(bytes);
    const value = JSON.parse(text);
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      throw new Error("record is not a JSON object");
    }
    if (options.raw === "string") rawText.set(value, text);
    else if (options.raw === "bytes") rawBytes.set(value, bytes);
    if (header) entries.push(value);
    else header = value;
  };
  for await (const chunk of chunks) {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      const tail = chunk.subarray(start, nl);
      if (parts.length) {
        parts.push(tail);
        record(join(parts));
        parts = [];
      } else record(tail);
      start = nl + 1;
    }
    if (start < chunk.length) parts.push(chunk.subarray(start));
  }
  if (parts.length) record(join(parts));
  if (!header) throw new Error("no header");
  const upgraded = upgradeRecords(header, entries);
  if (!SessionHeaderSchema.safeParse(upgraded.header).success) throw new Error("bad header");
  let zodCalls = 0;
  if (options.validate !== "none") {
    for (const entry of upgraded.entries) {
      if (options.validate === "zod") zodCalls++;
      const problem = options.validate === "zod" ? zodProblem(entry) : validateEntry(entry);
      if (problem) throw new Error(problem);
    }
  }
  return { entries: upgraded.entries as unknown as SessionEntry[], zodCalls };
}

function join(parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
