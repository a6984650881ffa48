/**
 * How the edge handler answers a projection without holding it twice: the JSON is written
 * piece by piece into the response stream (one array element per pull, so a slow client
 * holds back the serialising instead of buffering it), messages whose JSON is known as
 * bytes (a range read's verified spans) copied instead of serialised, and an optional compact
 * form refers to the caller's own entries by id instead of copying them back. Plus the
 * admission gate that bounds how many requests parse and project at once.
 *
 * @module
 */
import type { ProjectedEntry, SessionProjection } from "../src/projection.ts";
import { concatBytes } from "../src/_bytes.ts";

/**
 * One entry of the compact form: everything of a {@link ProjectedEntry} but the copy of the
 * caller's entry (`sourceEntryId` names it) and its messages (they are, in order, the next
 * `messageCount` items of the top-level `messages`).
 *
 * @example
 * ```ts
 * import { type CompactProjectedEntry } from "./_edge_response.ts";
 * const row: CompactProjectedEntry = { sourceEntryId: "a1b2c3d4", messageCount: 1 };
 * ```
 */
export type CompactProjectedEntry =
  & Omit<ProjectedEntry, "sourceEntry" | "messages">
  & { sourceEntryId: string; messageCount: number };

function compactEntry(entry: ProjectedEntry): CompactProjectedEntry {
  const { sourceEntry, messages, ...rest } = entry;
  return { sourceEntryId: sourceEntry.id, messageCount: messages.length, ...rest };
}

const encoder = new TextEncoder();
const SLICE_CHARS = 256 * 1024;
/** Pieces are joined up to this many characters, and bytes per written chunk (fewer writes). */
const BATCH_CHARS = 32 * 1024;

/** Objects whose JSON text is known as bytes (the range reader's verified message spans). */
export type RawJson = Pick<WeakMap<object, Uint8Array>, "get">;

/**
 * The JSON text of `{ ...fields, projection }`, exactly as `JSON.stringify` would write it,
 * produced lazily: the projection's `entries` and `messages` one element at a time, each
 * element dropped once written so the projection can be collected as it goes out; a message
 * found in `raw` is copied from its bytes. Written into an identity `TransformStream` (the one
 * stream every Workers compatibility date has; `new ReadableStream` needs 2022-11-30), each
 * write awaited, so a slow client holds back the serialising instead of buffering it.
 *
 * @example
 * ```ts
 * import { projectionJson } from "./_edge_response.ts";
 * declare const projection: import("../src/projection.ts").SessionProjection;
 * const body = projectionJson({ sessionId: "s" }, projection, false);
 * new Response(body, { headers: { "content-type": "application/json" } });
 * ```
 */
export function projectionJson(
  fields: Record<string, unknown>,
  projection: SessionProjection,
  compact: boolean,
  onDone: () => void = () => {},
  raw?: RawJson,
): ReadableStream<Uint8Array> {
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  (async () => {
    // Strings are joined once per batch: appending piece by piece builds a rope that
    // encoding must flatten, measured three times slower. Known bytes join the chunk as
    // they are.
    let batch: string[] = [];
    let length = 0;
    let chunk: Uint8Array[] = [];
    let size = 0;
    const encodeBatch = () => {
      const bytes = encoder.encode(batch.join(""));
      chunk.push(bytes), size += bytes.length, batch = [], length = 0;
    };
    for (const piece of jsonPieces(fields, projection, compact, raw)) {
      if (typeof piece !== "string") encodeBatch(), chunk.push(piece), size += piece.length;
      else if (batch.push(piece), length += piece.length, length >= BATCH_CHARS) encodeBatch();
      if (size >= BATCH_CHARS) {
        await writer.ready;
        await writer.write(concatBytes(chunk));
        chunk = [], size = 0;
      }
    }
    encodeBatch();
    await writer.ready;
    if (size) await writer.write(concatBytes(chunk));
    await writer.close();
  })().catch((error) => writer.abort(error).catch(() => {})) // a client gone: stop writing
    .finally(onDone);
  return readable;
}

function* jsonPieces(
  fields: Record<string, unknown>,
  projection: SessionProjection,
  compact: boolean,
  raw?: RawJson,
): Generator<string | Uint8Array> {
  let head = "{";
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    head += `${JSON.stringify(key)}:${JSON.stringify(value)},`;
  }
  yield `${head}"projection":`;
  let separator = "{";
  for (const key of Object.keys(projection) as (keyof SessionProjection)[]) {
    const value = projection[key];
    if (value === undefined) continue;
    if (key === "entries" || key === "messages") {
      yield `${separator}${JSON.stringify(key)}:[`;
      const list = value as unknown[];
      for (let i = 0; i < list.length; i++) {
        const item = key === "entries" && compact
          ? compactEntry(list[i] as ProjectedEntry)
          : list[i];
        const bytes = key === "messages" ? raw?.get(item as object) : undefined;
        if (bytes) {
          if (i > 0) yield ",";
          yield bytes;
        } else if (!hasLongString(item, SLICE_CHARS)) {
          // The common case, an item without long strings, in one piece without a generator.
          yield (i > 0 ? "," : "") + (JSON.stringify(item) ?? "null");
        } else {
          if (i > 0) yield ",";
          yield* jsonValue(item);
        }
        list[i] = undefined; // written: let it be collected
      }
      yield "]";
    } else {
      yield `${separator}${JSON.stringify(key)}:${JSON.stringify(value)}`;
    }
    separator = ",";
  }
  yield separator === "{" ? "{}}" : "}}";
}

/** Whether a value holds a string longer than `limit` (nesting is bounded at parse). */
function hasLongString(value: unknown, limit: number): boolean {
  if (typeof value === "string") return value.length > limit;
  if (value === null || typeof value !== "object") return false;
  // Indexed and for-in loops: no array of values allocated per object walked.
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (hasLongString(value[i], limit)) return true;
    return false;
  }
  for (const key in value) {
    if (hasLongString((value as Record<string, unknown>)[key], limit)) return true;
  }
  return false;
}

const skipped = (v: unknown) => v === undefined || typeof v === "function" || typeof v === "symbol";

/**
 * `JSON.stringify(value)` as pieces: a subtree without long strings in one piece, a long
 * string in slices, so a huge message never exists a second time as one JSON string.
 */
function* jsonValue(value: unknown): Generator<string> {
  if (!hasLongString(value, SLICE_CHARS)) {
    yield JSON.stringify(value) ?? "null";
  } else if (typeof value === "string") {
    yield '"';
    for (let at = 0; at < value.length;) {
      let end = Math.min(value.length, at + SLICE_CHARS);
      const last = value.charCodeAt(end - 1);
      if (end < value.length && last >= 0xd800 && last <= 0xdbff) end++; // keep pairs whole
      yield JSON.stringify(value.slice(at, end)).slice(1, -1);
      at = end;
    }
    yield '"';
  } else if (Array.isArray(value)) {
    yield "[";
    for (let i = 0; i < value.length; i++) {
      if (i > 0) yield ",";
      if (skipped(value[i])) yield "null";
      else yield* jsonValue(value[i]);
    }
    yield "]";
  } else {
    let separator = "{";
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
      if (skipped(child)) continue;
      yield `${separator}${JSON.stringify(key)}:`;
      yield* jsonValue(child);
      separator = ",";
    }
    yield separator === "{" ? "{}" : "}";
  }
}

/**
 * Admission for memory-bound work: at most `limit` holders at once, at most `queue` more
 * waiting; beyond that {@link Gate.enter} answers `undefined` at once (the caller refuses).
 *
 * @example
 * ```ts
 * import { Gate } from "./_edge_response.ts";
 * const gate = new Gate(4, 16);
 * const leave = await gate.enter();
 * if (leave) leave();
 * ```
 */
export class Gate {
  #active = 0;
  readonly #waiting: (() => void)[] = [];
  constructor(readonly limit: number, readonly queue: number) {}

  /** Resolves a `leave` function once admitted, or `undefined` when the queue is full. */
  async enter(): Promise<(() => void) | undefined> {
    if (this.#active >= this.limit) {
      if (this.#waiting.length >= this.queue) return undefined;
      await new Promise<void>((admit) => this.#waiting.push(admit));
    } else this.#active++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const next = this.#waiting.shift();
      if (next) next(); // the slot passes on
      else this.#active--;
    };
  }
}
