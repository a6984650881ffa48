/**
 * Seeded mutations of session files for the fuzzer: byte flips, truncations, duplicated and
 * deleted ranges, splices from other files, and hostile JSON put into a record (deep
 * nesting, huge numbers, `__proto__` and `constructor` keys, NUL, lone surrogates, odd
 * line breaks). Each case says what was done, so a failure report can be read.
 *
 * @module
 */
import type { Rng } from "./_shared.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** One fuzz input and how it was made. */
export interface Mutated {
  bytes: Uint8Array;
  steps: string[];
  /** Only one truncation of an unmutated source: the torn-record rule applies. */
  pureTruncation: boolean;
  /** The corpus file it was made from. */
  source: Uint8Array;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function nested(depth: number, open: string, close: string, inner: string): string {
  return open.repeat(depth) + inner + close.repeat(depth);
}

/** Hostile JSON values put into records. */
function hostileValue(rng: Rng): unknown {
  const depth = rng.pick([50, 1_000, 6_000, 20_000]);
  const choices: (() => unknown)[] = [
    () => JSON.parse(nested(depth, '{"a":', "}", "1")),
    () => JSON.parse(nested(depth, "[", "]", "0")),
    () => JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}'),
    () => rng.pick([1e300, -1e300, 5e-324, 2 ** 53 + 1, -0, 1.7976931348623157e308]),
    () => rng.pick(["\u0000", "a\u0000b", "\ud800", "\udc00x", "\u2028\u2029", "\r", "\uFEFF"]),
    () => rng.pick(["", "x".repeat(70_000), "../../etc/passwd", "<script>alert(1)</script>"]),
    () => rng.pick([null, true, 0, [], {}, "toString", "__proto__", "hasOwnProperty"]),
  ];
  return rng.pick(choices)();
}

/** Set or replace a value somewhere inside a parsed record. */
function mutateRecord(rng: Rng, record: Record<string, unknown>): string {
  let target: Record<string, unknown> = record;
  for (let hops = rng.int(4); hops > 0; hops--) {
    const objects = Object.keys(target).filter((key) =>
      target[key] !== null && typeof target[key] === "object"
    );
    if (objects.length === 0) break;
    target = target[rng.pick(objects)] as Record<string, unknown>;
  }
  const keys = Object.keys(target);
  const key = keys.length && rng.next() < 0.7
    ? rng.pick(keys)
    : rng.pick(["__proto__", "constructor", "prototype", "id", "parentId", "timestamp"]);
  const value = hostileValue(rng);
  if (key === "__proto__") {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true });
  } else target[key] = value;
  return key;
}

/** Structure-aware: parse one line, put a hostile value into it, write it back. */
function jsonMutation(rng: Rng, bytes: Uint8Array): { bytes: Uint8Array; step: string } {
  const lines = decoder.decode(bytes).split("\n");
  const index = rng.int(lines.length);
  try {
    const record = JSON.parse(lines[index]);
    if (record === null || typeof record !== "object") throw new Error("not an object");
    const key = mutateRecord(rng, record);
    lines[index] = JSON.stringify(record);
    return { bytes: encoder.encode(lines.join("\n")), step: `json line ${index + 1} key ${key}` };
  } catch {
    return { bytes, step: `json line ${index + 1} (not JSON, unchanged)` };
  }
}

function lineStarts(bytes: Uint8Array): number[] {
  const starts = [0];
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === 10) starts.push(i + 1);
  return starts;
}

/** Apply 1-3 seeded mutations to one of `corpus`, sometimes splicing in another. */
export function mutate(rng: Rng, corpus: readonly Uint8Array[]): Mutated {
  const source = rng.pick(corpus);
  let bytes = source;
  const steps: string[] = [];
  // Mostly one mutation: more inputs stay acceptable and reach the later checks.
  const count = rng.next() < 0.7 ? 1 : 2 + rng.int(2);
  for (let n = 0; n < count; n++) {
    const at = rng.int(bytes.length + 1);
    const kind = rng.int(9);
    if (kind === 0 || kind === 1) {
      const mutated = jsonMutation(rng, bytes);
      bytes = mutated.bytes;
      steps.push(mutated.step);
    } else if (kind === 2) {
      bytes = bytes.slice();
      if (at < bytes.length) bytes[at] ^= 1 << rng.int(8);
      steps.push(`flip byte ${at}`);
    } else if (kind === 3) {
      bytes = bytes.subarray(0, at);
      steps.push(`truncate at ${at}`);
    } else if (kind === 4) {
      const starts = lineStarts(bytes);
      const from = rng.pick(starts);
      const to = Math.min(bytes.length, rng.pick(starts) + rng.int(3));
      const [a, b] = from <= to ? [from, to] : [to, from];
      bytes = concat(bytes.subarray(0, at), bytes.subarray(a, b), bytes.subarray(at));
      steps.push(`duplicate ${a}-${b} at ${at}`);
    } else if (kind === 5) {
      const end = Math.min(bytes.length, at + rng.int(200));
      bytes = concat(bytes.subarray(0, at), bytes.subarray(end));
      steps.push(`delete ${at}-${end}`);
    } else if (kind === 6) {
      const other = rng.pick(corpus);
      const from = rng.int(other.length + 1);
      const piece = other.subarray(from, from + rng.int(400));
      bytes = concat(bytes.subarray(0, at), piece, bytes.subarray(at));
      steps.push(`splice ${piece.length} bytes at ${at}`);
    } else if (kind === 7) {
      const token = rng.pick([
        "\n",
        "\r\n",
        "\uFEFF",
        "\u2028",
        "\u0000",
        "\\u0000",
        "\xff\xfe",
        '"__proto__":{"polluted":1},',
        "1e400",
        "-0",
        nested(5_000, "[", "]", ""),
        "\n\n\n",
      ]);
      const raw = token === "\xff\xfe" ? new Uint8Array([0xff, 0xfe]) : encoder.encode(token);
      bytes = concat(bytes.subarray(0, at), raw, bytes.subarray(at));
      steps.push(`insert ${JSON.stringify(token.slice(0, 20))} at ${at}`);
    } else {
      // Cut inside the last record, maybe inside a multi-byte character (finding 10's case).
      const starts = lineStarts(bytes);
      const last = starts.length > 1 ? starts[starts.length - 2] : 0;
      const cut = last + rng.int(Math.max(1, bytes.length - last));
      bytes = bytes.subarray(0, cut);
      steps.push(`truncate last record at ${cut}`);
    }
  }
  const pureTruncation = steps.length === 1 && /^truncate/.test(steps[0]);
  return { bytes, steps, pureTruncation, source };
}

/** Split bytes into a stream of random-sized chunks (1 byte up to 4 KiB). */
export function chunkedStream(rng: Rng, bytes: Uint8Array): ReadableStream<Uint8Array> {
  const sizes: number[] = [];
  for (let at = 0; at < bytes.length;) {
    const size = 1 + rng.int(rng.next() < 0.3 ? 8 : 4096);
    sizes.push(Math.min(size, bytes.length - at));
    at += size;
  }
  let at = 0;
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i === sizes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + sizes[i]));
      at += sizes[i++];
    },
  });
}
