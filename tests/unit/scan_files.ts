/**
 * In-memory JSONL files for the tests of the checking pass (`resume_index.test.ts`,
 * `range_scan.test.ts`): their index kept beside them, every byte streamed counted, and the
 * full parser's answer to compare with.
 */
import assert from "node:assert/strict";
import {
  buildSessionProjection,
  parseSessionJsonlSync,
  serializeSessionJsonl,
} from "../../core.ts";
import { projectLoadedContext } from "../../src/context_load.ts";
import { scanContext, type ScanFile } from "../../stores/jsonl/scan/_scan.ts";
import { generatedSession } from "./context_sessions.ts";
import { processIndexKey } from "../../stores/jsonl/_backend.ts";

const encoder = new TextEncoder();
/** Block size of the test indexes: every file spans many blocks and ends in a partial one. */
export const BLOCK = 1000;

/** A file held in memory, its index kept beside it, every byte streamed counted. */
export function memoryFile(bytes: Uint8Array, kept: { index?: Uint8Array } = {}) {
  const counts = { streamed: 0, reads: 0, saves: 0, from: [] as number[] };
  const file: ScanFile & { counts: typeof counts; kept: typeof kept } = {
    counts,
    kept,
    stream: async function* (start = 0) {
      counts.from.push(start);
      for (let at = start; at < bytes.length; at += 977) {
        const chunk = bytes.slice(at, at + 977);
        counts.streamed += chunk.length;
        yield chunk;
      }
    },
    read(start, end) {
      counts.reads++;
      return Promise.resolve(bytes.slice(start, end));
    },
    index: {
      load: () => Promise.resolve(kept.index),
      save(index) {
        counts.saves++;
        kept.index = index;
        return Promise.resolve();
      },
      minBytes: 0,
      blockBytes: BLOCK,
      key: processIndexKey,
      boundTo: "memory.jsonl",
    },
  };
  return file;
}

/** A generated session of `count` entries and its bytes. */
export function sessionBytes(count: number, seed: number) {
  const { header, entries } = generatedSession(count, seed);
  return { header, entries, bytes: encoder.encode(serializeSessionJsonl(header, entries)) };
}

/** `parts` as one buffer. */
export function join(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) (out.set(part, at), at += part.length);
  return out;
}

/** The full parser's projection of `leaf`, or the error it raises. */
export function fullAnswer(bytes: Uint8Array, leaf: string | undefined) {
  try {
    return { projection: buildSessionProjection(parseSessionJsonlSync(bytes).entries, leaf) };
  } catch (error) {
    return { error: error as Error };
  }
}

/** Scan `file` for `leaf` and require the full parser's answer (or a decline). */
export async function agrees(
  file: ScanFile,
  bytes: Uint8Array,
  leaf: string | undefined,
  what: string,
) {
  const scanned = await scanContext(file, leaf);
  const full = fullAnswer(bytes, leaf);
  if (!scanned) return "declined";
  assert.ok(!full.error, `${what}: accepted what the full parser rejects: ${full.error}`);
  const projected = projectLoadedContext(scanned);
  if (projected) assert.deepStrictEqual(projected, full.projection, what);
  return "answered";
}
