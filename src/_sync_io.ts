/**
 * What one pass of a sync works with (`Pass`, one session's `SessionCopy`) and its store
 * calls: sessions read with their stored JSON text, streamed in parts where the store can,
 * and entries written in calls of bounded size. Split from `sync.ts`, which plans and
 * merges; `_sync_held.ts` keeps the held-copy bookkeeping on top of these.
 *
 * @module
 */
import { type ParsedSession, parseSessionJsonlSync, toJsonLine } from "./jsonl.ts";
import type { SessionEntry } from "./schema.ts";
import type { SessionStore } from "./store.ts";
import type { SyncReport } from "./sync.ts";
import type { HeldCopy } from "./_sync_held.ts";

/** One pass of a sync: the sessions `from` has that `to` lacks in part or in whole. */
export interface Pass {
  from: SessionStore;
  to: SessionStore;
  /** Change tokens of `from` at which `to` held all of a session (this pass's cursor). */
  sent: Record<string, string>;
  /** Change tokens of `to` at which `from` held all of a session (the other pass's cursor). */
  received: Record<string, string>;
  /**
   * Read a session back after writing it, to record it in `received`: set when `to` is the
   * source, whose changed token would otherwise make the next push read the session again
   * on both sides (a push's own writes are read in the same run's pull, if one follows).
   */
  readBack: boolean;
  /** What `to` held after a session's copy in this run, kept in `sent` beside its token. */
  held: Map<string, HeldCopy>;
  /**
   * The same for sessions written into a `to` that answers many change tokens at once:
   * their tokens are asked for in one call after the pass (`heldAfterPass`).
   */
  awaitingToken: Map<string, Omit<HeldCopy, "token">>;
  /** The run's report, counted into as sessions are copied. */
  report: SyncReport;
  signal: AbortSignal | undefined;
}

/** What one session's copy found; joined into the report in listing order. */
export type SessionFindings = Pick<SyncReport, "conflicts" | "skipped">;

/** The copy of one session within a pass. */
export interface SessionCopy {
  pass: Pass;
  sessionId: string;
  found: SessionFindings;
  /** `to`'s token read before the pass (undefined token: `to` lacked the session then). */
  receiving: { token: string | undefined } | undefined;
}

/** At most this many entries, or about this many bytes of JSON, per store call. */
const BATCH_ENTRIES = 2_000;
const BATCH_BYTES = 4 * 1024 * 1024;
/**
 * Entry JSON per part of a streamed session: each part is one store call, and with the next
 * part read ahead two are held at a time; smaller parts keep the heap of a long copy small
 * (the garbage collector lets it grow with what is live), larger ones save round trips.
 */
const STREAM_CHARS = 1024 * 1024;

/**
 * Entries in order, cut into store calls of bounded size: one call per entry would be one
 * round trip per entry to a server, one call for a whole long session one huge statement.
 * Each call is atomic, so a run stopped between calls leaves a prefix of the session.
 */
export function batches(entries: readonly SessionEntry[]): SessionEntry[][] {
  const result: SessionEntry[][] = [];
  let batch: SessionEntry[] = [];
  let bytes = 0;
  for (const entry of entries) {
    const size = toJsonLine(entry, "entry").length;
    if (batch.length > 0 && (batch.length >= BATCH_ENTRIES || bytes + size > BATCH_BYTES)) {
      result.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(entry);
    bytes += size;
  }
  if (batch.length > 0) result.push(batch);
  return result;
}

/** Whether {@link batches} would keep `entries` in one store call (without building it). */
export function fitsOneCall(entries: readonly SessionEntry[]): boolean {
  if (entries.length <= 1) return true;
  if (entries.length > BATCH_ENTRIES) return false;
  let bytes = 0;
  for (const entry of entries) {
    bytes += toJsonLine(entry, "entry").length;
    if (bytes > BATCH_BYTES) return false;
  }
  return true;
}

/** One store call of a copy, counted into the report. */
export async function appendBatch(
  { to, report, signal }: Pass,
  sessionId: string,
  batch: SessionEntry[],
): Promise<void> {
  signal?.throwIfAborted();
  await to.append(sessionId, batch);
  report.entriesCopied += batch.length;
}

/**
 * A session whose entries carry their stored JSON text: through `loadExact` or else
 * `exportJsonl` where the store has them (a plain `load` re-serialises, which would change
 * bytes on the other side and make equal entries look different).
 */
export async function readExact(store: SessionStore, sessionId: string): Promise<ParsedSession> {
  if (store.loadExact) return await store.loadExact(sessionId);
  if (!store.exportJsonl) return await store.load(sessionId);
  return parseSessionJsonlSync(await store.exportJsonl(sessionId), { source: sessionId });
}

/** The session in batches where the store streams it, else whole as one batch. */
export async function* streamExact(
  store: SessionStore,
  sessionId: string,
): AsyncGenerator<ParsedSession> {
  if (!store.streamExact) return yield await readExact(store, sessionId);
  yield* await store.streamExact(sessionId, { batchChars: STREAM_CHARS });
}

/** The ids of `entries`. */
export function idsOf(entries: readonly SessionEntry[]): Set<string> {
  return new Set(entries.map((entry) => entry.id));
}
