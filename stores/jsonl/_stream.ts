/**
 * Reading one session file in batches of entries (`streamExact`): the file is read in
 * chunks and each batch is checked as a whole load checks it, so a sync of a long session
 * holds one batch of it, never the file. A torn final record is read once more under the
 * writer's lock, as `_load.ts` does for a whole load, from where it starts.
 *
 * @module
 */
import { SessionNotFoundError } from "../../src/errors.ts";
import { JsonlLineSplitter, type JsonlRecord, SessionAssembler } from "../../src/jsonl.ts";
import type { SessionHeader } from "../../src/schema.ts";
import type { LoadedSession } from "../../src/store.ts";
import type { JsonlFolderFs } from "./_folder.ts";
import { isTornRecord, type LoadHow, underWritersLock } from "./_load.ts";

/** Entry JSON per batch unless the caller asks otherwise. */
export const DEFAULT_BATCH_CHARS = 4 * 1024 * 1024;

/**
 * The session in the file at `path` (which should hold `sessionId`), in batches of about
 * `batchChars` characters of entry JSON; an older format comes upgraded in one batch.
 *
 * @example
 * ```ts
 * import { streamSessionFile } from "./_stream.ts";
 * import { NodeJsonlFolderFs } from "@mu/sessions/stores/jsonl";
 * const fs = new NodeJsonlFolderFs("/tmp/sessions");
 * const how = { retainRaw: true, lockOptions: { timeoutMs: 10_000 }, forget() {} };
 * for await (const batch of streamSessionFile(fs, "a.jsonl", "s1", how)) {
 *   console.log(batch.entries.length);
 * }
 * ```
 */
export async function* streamSessionFile(
  fs: JsonlFolderFs,
  path: string,
  sessionId: string,
  how: LoadHow,
  batchChars = DEFAULT_BATCH_CHARS,
): AsyncGenerator<LoadedSession> {
  const source = fs.describe(path);
  const assembler = new SessionAssembler({ source, retainRaw: how.retainRaw });
  let header: SessionHeader | undefined;
  let whole = false; // an older format: upgraded as a whole at the end
  /** Parts cut as records come (a chunk may hold many), handed out after each chunk. */
  const cut: LoadedSession[] = [];
  let handedOut = false;
  const flush = () => {
    handedOut ||= cut.length > 0;
    return cut.splice(0);
  };
  const take = (): LoadedSession => {
    const entries = assembler.takeEntries();
    return {
      header: header!,
      entries,
      sourceVersion: header!.version,
      upgraded: false,
      path: source,
    };
  };
  const onRecord = (record: JsonlRecord) => {
    assembler.onRecord(record);
    if (!header && !whole && assembler.header) {
      if (assembler.header.id !== sessionId) {
        how.forget(path);
        throw new SessionNotFoundError(sessionId);
      }
      header = assembler.streamableHeader();
      whole = header === undefined;
    }
    if (header && assembler.pendingChars >= batchChars) cut.push(take());
  };
  /** Feeds bytes; the parts cut before a failure are handed out before it rejects. */
  async function* feed(bytes: () => void): AsyncGenerator<LoadedSession> {
    let failure: { error: unknown } | undefined;
    try {
      bytes();
    } catch (error) {
      failure = { error };
    }
    yield* flush();
    if (failure) throw failure.error;
  }
  let splitter = new JsonlLineSplitter(onRecord, source);
  for await (const chunk of fs.readStream(path)) yield* feed(() => splitter.push(chunk));
  try {
    yield* feed(() => splitter.end());
  } catch (error) {
    if (!isTornRecord(error)) throw error;
    // A writer in another process may be mid-append: read the rest once more under its
    // lock, from the start of the torn line (what came before it was complete).
    const { byteOffset, line } = error as { byteOffset?: number; line?: number };
    if (byteOffset === undefined || line === undefined) throw error;
    await underWritersLock(fs, path, how, error, async () => {
      splitter = new JsonlLineSplitter(onRecord, source, { byteOffset, line });
      for await (const chunk of fs.readStream(path, byteOffset)) splitter.push(chunk);
      splitter.end();
    });
    yield* flush();
  }
  if (header) {
    // The rest, or the header alone: every session has at least one part.
    if (assembler.entries.length > 0 || !handedOut) yield take();
    return;
  }
  // An older format, or no header at all: checked and upgraded as a whole load does.
  yield { ...assembler.finish(), path: source };
}
