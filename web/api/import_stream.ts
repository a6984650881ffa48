/**
 * `POST /api/import` without holding the whole session: a new session is parsed and stored
 * in batches of whole lines as the upload arrives, so the server's memory follows the
 * batch (or the largest entry, when one line is larger), not the session.
 *
 * Each batch is parsed by the library's parser behind the session's header line, so every
 * line gets the verdict a whole-file parse gives it, and the first batch with a bad line
 * ends the import (a whole-file parse reports a line that is not JSON before an entry
 * that does not validate, wherever they are; here the earlier batch's comes first).
 * Errors name the line and byte offset in the upload. The first batch creates the session, later ones append to it. A batch that
 * fails to parse or store removes the session again (it did not exist before), so a
 * refused import leaves nothing behind. While an import runs, readers see the lines stored
 * so far.
 *
 * What needs the whole session goes through the import rule (`importSession`) as before:
 * an id the store already holds (compared with what is stored), and an older format
 * (upgraded as a whole).
 *
 * @module
 */
import { SessionFormatError } from "../../src/errors.ts";
import { type ImportOutcome, importSession } from "../../src/import_rule.ts";
import { parseSessionJsonlSync } from "../../src/jsonl.ts";
import { CURRENT_SESSION_VERSION, type SessionHeader } from "../../src/schema.ts";
import type { SessionStore } from "../../src/store.ts";

/** Bytes of whole lines parsed and stored at a time (a longer line is a batch alone). */
export const IMPORT_BATCH_BYTES = 1024 * 1024;

const NEWLINE = 0x0a;

function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(parts.reduce((n, part) => n + part.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

function countNewlines(bytes: Uint8Array): number {
  let count = 0;
  for (let at = bytes.indexOf(NEWLINE); at !== -1; at = bytes.indexOf(NEWLINE, at + 1)) count++;
  return count;
}

/** The stream's bytes in batches of whole lines of at least `size` bytes (the last one: the rest). */
async function* lineBatches(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  size: number,
): AsyncGenerator<Uint8Array> {
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    pending.push(value);
    pendingBytes += value.byteLength;
    if (pendingBytes < size) continue;
    const bytes = concat(pending);
    const cut = bytes.lastIndexOf(NEWLINE) + 1;
    if (cut === 0) { // one line longer than a batch: keep reading until it ends
      pending = [bytes];
      continue;
    }
    pending = cut < bytes.byteLength ? [bytes.subarray(cut)] : [];
    pendingBytes = bytes.byteLength - cut;
    yield bytes.subarray(0, cut);
  }
  if (pendingBytes > 0) yield concat(pending);
}

/** `first`, then whatever `reader` still holds, as one stream. */
function replay(
  first: Uint8Array,
  reader: ReadableStreamDefaultReader<Uint8Array>,
): ReadableStream<Uint8Array> {
  let sentFirst = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!sentFirst) {
        sentFirst = true;
        return controller.enqueue(first);
      }
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/**
 * Import the JSONL upload `body` into `store` (the outcomes of `importSession`), streaming
 * a new session into the store in batches.
 *
 * @example
 * ```ts
 * import { MemorySessionStore } from "@mu/sessions/core";
 * import { importStreamed } from "./import_stream.ts";
 * const jsonl = '{"type":"session","version":4,"id":"s1","createdAt":"2026-01-01T00:00:00.000Z","cwd":"/p"}\n';
 * (await importStreamed(new MemorySessionStore(), new Response(jsonl).body!)).status; // "imported"
 * ```
 */
export async function importStreamed(
  store: SessionStore,
  body: ReadableStream<Uint8Array>,
  options: { source?: string; batchBytes?: number } = {},
): Promise<ImportOutcome> {
  const { source } = options;
  const reader = body.getReader();
  const batches = lineBatches(reader, options.batchBytes ?? IMPORT_BATCH_BYTES);
  const first = (await batches.next()).value ?? new Uint8Array();
  const whole = () => importSession(store, replay(first, reader), { source });
  let parsed;
  try {
    parsed = parseSessionJsonlSync(first, { source });
  } catch (error) {
    if (!(error instanceof SessionFormatError)) throw error;
    if (error.line === 0) return await whole(); // no header yet: only blank lines so far
    reader.cancel().catch(() => {});
    return { status: "invalid", error };
  }
  if (
    !parsed || parsed.header.version !== CURRENT_SESSION_VERSION || parsed.upgraded ||
    await store.has(parsed.header.id)
  ) return await whole();

  const header: SessionHeader = parsed.header;
  const headerLine = new TextEncoder().encode(JSON.stringify(header) + "\n");
  await store.create(header, parsed.entries);
  let lines = countNewlines(first);
  let bytes = first.byteLength;
  try {
    for await (const batch of batches) {
      let entries;
      try {
        entries = parseSessionJsonlSync(concat([headerLine, batch]), { source }).entries;
      } catch (error) {
        if (!(error instanceof SessionFormatError) || error.line < 2) throw error;
        // The batch's line 2 is the upload's line `lines + 1`.
        const line = lines + error.line - 1;
        const byteOffset = bytes + error.byteOffset - headerLine.byteLength;
        throw new SessionFormatError(error.reason, { line, byteOffset, source });
      }
      if (entries.length) await store.append(header.id, entries);
      lines += countNewlines(batch);
      bytes += batch.byteLength;
    }
  } catch (error) {
    reader.cancel().catch(() => {});
    await store.delete(header.id); // it did not exist before this import
    if (error instanceof SessionFormatError) return { status: "invalid", error };
    throw error;
  }
  return { status: "imported", sessionId: header.id };
}
