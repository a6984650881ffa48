/**
 * Copy sessions between two stores over the `SessionStore` seam: the union of two copies of
 * an append-only session with unique entry ids is again a valid session, so sync only ever
 * creates sessions and appends missing entries. It never overwrites or deletes; the same
 * entry id (or session id) with other content is reported as a conflict and that session
 * is left as it was on both sides.
 *
 * Crash safety rests on the store contract: `create` is atomic and `append` is atomic per
 * call and skips entries already stored byte for byte, so a sync killed anywhere and run
 * again converges without losing or duplicating an entry.
 *
 * Past 400 lines: the copy path (streamed creates, merges, appends to a copy the cursor
 * shows held, batching) and the bookkeeping that lets a later run skip sessions or the
 * reading of the receiving copy (cursor, change tokens) read as one algorithm.
 *
 * @module
 */
import { EntryConflictError, SessionExistsError, SessionNotFoundError } from "./errors.ts";
import { type ParsedSession, parseSessionJsonlSync, toJsonLine } from "./jsonl.ts";
import type { SessionEntry, SessionHeader } from "./schema.ts";
import type { SessionInfo, SessionStore } from "./store.ts";
import { inFlight, readAhead } from "./_in_flight.ts";
import { changeTokens, receivingTokens } from "./_sync_tokens.ts";
import { cursorValue, type HeldCopy, heldCopy, senderDigest, sentToken } from "./_sync_held.ts";

/**
 * Options of {@link syncStores}.
 *
 * @example
 * ```ts
 * import type { SyncOptions } from "@mu/sessions";
 * const options: SyncOptions = { direction: "both", sessions: { cwd: "/work/project" } };
 * ```
 */
export interface SyncOptions {
  /** Which sessions to consider: by header `cwd`, by id, or modified at or after `since`. */
  sessions?: { cwd?: string; ids?: readonly string[]; since?: Date };
  /** `push` copies source -> target (default), `pull` target -> source, `both` each way. */
  direction?: "push" | "pull" | "both";
  /**
   * `report.cursor` of the previous run between the same two stores: sessions whose change
   * token is unchanged since their last complete copy are not read.
   */
  cursor?: SyncReport["cursor"];
  /**
   * Abort: no session starts after it, and those in flight (a few are copied at once) stop
   * before their next store call, each leaving a prefix of itself; the promise rejects with
   * the signal's reason once they have stopped, and `onProgress` is not called after it.
   */
  signal?: AbortSignal;
  /** Called after each session: `(done, total)` for the current direction. */
  onProgress?: (done: number, total: number) => void;
}

/**
 * What {@link syncStores} did.
 *
 * @example
 * ```ts
 * import type { SyncReport } from "@mu/sessions";
 * const clean = (report: SyncReport) => report.conflicts.length === 0;
 * ```
 */
export interface SyncReport {
  sessionsCreated: number;
  entriesCopied: number;
  /** Entries found already stored byte for byte on the receiving side. */
  alreadyPresent: number;
  /** Sessions not read because their change token matched the cursor. */
  sessionsUnchanged: number;
  /**
   * The same id holds different content on the two sides; that session was not written.
   * `entryId` is undefined when the headers differ; `field` is the dotted path of the first
   * field whose JSON differs ("" when the values differ as a whole).
   */
  conflicts: { sessionId: string; entryId?: string; field: string }[];
  /** Sessions not copied; `sessionId` is a file path for a session that could not be read. */
  skipped: { sessionId: string; reason: string }[];
  /**
   * Plain JSON to keep beside the source and pass back as `options.cursor`: per direction,
   * session id -> a change token of the sending store at which the receiving side held all
   * of that session (after a complete copy, or when the receiving copy was found to hold
   * nothing the other side lacks, so a later run in the other direction skips it too).
   * A value may go on past the token with what the receiving side held then, so a later
   * run appends a session's new entries without reading that side's copy.
   */
  cursor: { push: Record<string, string>; pull: Record<string, string> };
}

/**
 * Copy what `target` lacks from `source` (and with `direction: "both"` the reverse).
 *
 * @example
 * ```ts
 * import { MemorySessionStore, syncStores } from "@mu/sessions";
 * const report = await syncStores(new MemorySessionStore(), new MemorySessionStore());
 * report.sessionsCreated; // 0
 * ```
 */
export async function syncStores(
  source: SessionStore,
  target: SessionStore,
  options: SyncOptions = {},
): Promise<SyncReport> {
  const direction = options.direction ?? "push";
  const report: SyncReport = {
    sessionsCreated: 0,
    entriesCopied: 0,
    alreadyPresent: 0,
    sessionsUnchanged: 0,
    conflicts: [],
    skipped: [],
    cursor: {
      push: { ...options.cursor?.push },
      pull: { ...options.cursor?.pull },
    },
  };
  const { push, pull } = report.cursor;
  if (direction !== "pull") {
    const pass = { from: source, to: target, sent: push, received: pull, readBack: false };
    await copyMissing({ ...pass, held: new Map() }, report, options);
  }
  if (direction !== "push") {
    const pass = { from: target, to: source, sent: pull, received: push, readBack: true };
    await copyMissing({ ...pass, held: new Map() }, report, options);
  }
  return report;
}

/** One pass of a sync: the sessions `from` has that `to` lacks in part or in whole. */
interface Pass {
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
}

async function copyMissing(pass: Pass, report: SyncReport, options: SyncOptions): Promise<void> {
  const { from, sent } = pass;
  // Tokens are read before the sessions (the listing's, where the store reports them), so
  // a write landing while one is copied changes it again.
  const listedTokens = new Map<string, string>();
  const sessions = selectSessions(
    await from.list({
      cwd: options.sessions?.cwd,
      includeInternal: true,
      signal: options.signal,
      onSkipped: ({ path, error }) =>
        report.skipped.push({ sessionId: path, reason: `cannot be read: ${error.message}` }),
      onChangeToken: (id, token) => listedTokens.set(id, token),
    }),
    options.sessions,
  );
  const tokens = await changeTokens(
    from,
    sessions.map((info) => info.id),
    options.signal,
    listedTokens,
  );
  const changed = sessions.filter(({ id }, i) =>
    tokens[i] === undefined || sentToken(sent[id]) !== tokens[i]
  );
  const receiving = await receivingTokens(pass.to, changed, options.signal);
  // Each session's conflicts and skips, joined in listing order whatever order they finish.
  const found = sessions.map(() => ({ conflicts: [], skipped: [] } as SessionFindings));
  let done = 0;
  await inFlight(sessions.length, SESSIONS_IN_FLIGHT, async (i) => {
    options.signal?.throwIfAborted();
    const { id } = sessions[i];
    const token = tokens[i];
    if (token !== undefined && sentToken(sent[id]) === token) {
      report.sessionsUnchanged++;
    } else if (await copySession(pass, id, report, found[i], options.signal, receiving?.get(id))) {
      // Recorded only after a complete copy, so an interrupted run redoes the session.
      if (token !== undefined) sent[id] = cursorValue(token, pass.held.get(id));
    }
    // Sessions in flight when the signal fired stop at their next store call or here.
    options.signal?.throwIfAborted();
    options.onProgress?.(++done, sessions.length);
  });
  for (const { conflicts, skipped } of found) {
    report.conflicts.push(...conflicts);
    report.skipped.push(...skipped);
  }
}

/** What one session's copy found; joined into the report in listing order. */
type SessionFindings = Pick<SyncReport, "conflicts" | "skipped">;

/**
 * Sessions copied at once: a server's round trips and commits of one session overlap the
 * reading of the next (each session's own writes stay in order).
 */
const SESSIONS_IN_FLIGHT = 4;

function selectSessions(
  sessions: SessionInfo[],
  filter: SyncOptions["sessions"] = {},
): SessionInfo[] {
  const ids = filter.ids && new Set(filter.ids);
  const since = filter.since?.getTime();
  return sessions.filter((info) =>
    (!ids || ids.has(info.id)) && (since === undefined || info.modified.getTime() >= since)
  );
}

/** Copy one session; false when it was skipped or conflicts (nothing written then). */
async function copySession(
  pass: Pass,
  sessionId: string,
  report: SyncReport,
  found: SessionFindings,
  signal: AbortSignal | undefined,
  receiving: { token: string | undefined } | undefined,
): Promise<boolean> {
  const { from, to, received } = pass;
  if (receiving ? receiving.token === undefined : !(await to.has(sessionId))) {
    const created = await createStreaming(pass, sessionId, report, found, signal, receiving);
    if (created !== "exists") return created;
  }
  const loaded = await readExact(from, sessionId);
  if (loaded.upgraded) {
    found.skipped.push(upgradeSkip(sessionId, loaded.sourceVersion));
    return false;
  }
  const receiverToken = receiving?.token ?? await to.changeToken?.(sessionId);
  if (await appendToHeldCopy(pass, sessionId, loaded, receiverToken, report, signal)) return true;
  const present = await readExact(to, sessionId);
  const conflicts = sessionConflicts(sessionId, loaded.header, loaded.entries, present);
  if (present.upgraded) {
    found.skipped.push({
      sessionId,
      reason: `the receiving copy is in format ${present.sourceVersion}; open it once to upgrade`,
    });
    return false;
  }
  if (conflicts.length > 0) {
    found.conflicts.push(...conflicts);
    return false;
  }
  const storedIds = new Set(present.entries.map((entry) => entry.id));
  // Source order is commit order, so parents land before their children.
  const missing = loaded.entries.filter((entry) => !storedIds.has(entry.id));
  report.alreadyPresent += loaded.entries.length - missing.length;
  if (missing.length === 0 && receiverToken !== undefined) {
    // The receiving copy held nothing the sender lacks at that token: the other direction
    // need not read it while the token stands. After a write it is read once more instead,
    // since a write by someone else could land between ours and a token read after it.
    const sendingIds = idsOf(loaded.entries);
    if (present.entries.every((entry) => sendingIds.has(entry.id))) {
      received[sessionId] = receiverToken;
    }
  }
  for (const batch of batches(missing)) await appendBatch(to, sessionId, batch, report, signal);
  // Only when `to` now holds exactly the sender's entries (none of its own besides).
  const exact = present.entries.length + missing.length === loaded.entries.length;
  await afterCopy(pass, sessionId, loaded, missing.length > 0, exact ? receiverToken : null);
  return true;
}

/**
 * The sender's entries past what `to` held at the last complete copy, appended without
 * reading `to`: only while `to`'s token is the one read right after that copy (nothing
 * wrote to it since) and the sender's first entries still digest as then (not rewritten),
 * and in one store call, which is atomic: an id `to` holds with other content rejects it
 * whole (`EntryConflictError`), and then, as for a session gone, the session is merged by
 * reading both sides, which reports the conflict. False when it did not apply.
 */
async function appendToHeldCopy(
  pass: Pass,
  sessionId: string,
  loaded: ParsedSession,
  receiverToken: string | undefined,
  report: SyncReport,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  const held = heldCopy(pass.sent[sessionId]);
  if (!held || receiverToken === undefined || held.token !== receiverToken) return false;
  if (held.count > loaded.entries.length) return false;
  if (senderDigest(loaded.header, loaded.entries.slice(0, held.count)) !== held.digest) {
    return false;
  }
  const missing = loaded.entries.slice(held.count);
  if (batches(missing).length > 1) return false; // more than one atomic call: merge instead
  if (missing.length > 0) {
    signal?.throwIfAborted();
    const appended = await pass.to.append(sessionId, missing).then(() => true, (error) => {
      if (error instanceof EntryConflictError || error instanceof SessionNotFoundError) {
        return false;
      }
      throw error;
    });
    if (!appended) return false;
  }
  report.entriesCopied += missing.length;
  report.alreadyPresent += held.count;
  await afterCopy(pass, sessionId, loaded, missing.length > 0, receiverToken);
  return true;
}

/**
 * After a merge into `to`: with `heldAt` not null (`to` holds exactly the sender's entries)
 * keep that for the cursor, at `heldAt` when nothing was written, else at `to`'s token read
 * now. A write by someone else landing between ours and that read goes unnoticed by a
 * later `appendToHeldCopy`; its append still refuses an id held with other content. What
 * was written into a source is read back for the other direction (`recordHeldCopy`).
 */
async function afterCopy(
  pass: Pass,
  sessionId: string,
  loaded: ParsedSession,
  wrote: boolean,
  heldAt: string | undefined | null,
): Promise<void> {
  // Read once after a write, before any entries are read back: both uses want that order.
  const written = wrote && (heldAt !== null || pass.readBack)
    ? await pass.to.changeToken?.(sessionId)
    : undefined;
  if (heldAt !== null) {
    const token = wrote ? written : heldAt;
    if (token !== undefined) {
      const digest = senderDigest(loaded.header, loaded.entries);
      pass.held.set(sessionId, { count: loaded.entries.length, digest, token });
    }
  }
  if (wrote && pass.readBack && written !== undefined) {
    await recordHeldCopy(pass, sessionId, loaded.header, idsOf(loaded.entries), written);
  }
}

function upgradeSkip(sessionId: string, sourceVersion: number) {
  // Copying the in-memory upgrade would change the entries' bytes; the owner persists it.
  return {
    sessionId,
    reason: `stored in format ${sourceVersion}; open it once to upgrade it to format 4`,
  };
}

function idsOf(entries: readonly SessionEntry[]): Set<string> {
  return new Set(entries.map((entry) => entry.id));
}

/**
 * A session the receiving side lacks, created from its first batch and appended to batch
 * by batch as the source streams it (the next batch is read while one is written): a long
 * session is never held whole. "exists" when another writer created it meanwhile (merge).
 */
async function createStreaming(
  pass: Pass,
  sessionId: string,
  report: SyncReport,
  found: SessionFindings,
  signal: AbortSignal | undefined,
  receiving: { token: string | undefined } | undefined,
): Promise<boolean | "exists"> {
  const { from, to } = pass;
  const source = readAhead(streamExact(from, sessionId)[Symbol.asyncIterator]());
  try {
    let step = await source.next();
    if (step.done) throw new Error(`${from.kind} streamed no batch of ${sessionId}`);
    const { header, upgraded, sourceVersion } = step.value;
    if (upgraded) {
      found.skipped.push(upgradeSkip(sessionId, sourceVersion));
      return false;
    }
    // Only ids are kept, and only when the copy is read back (`recordHeldCopy`).
    const sentIds = pass.readBack ? idsOf(step.value.entries) : undefined;
    let calls = batches(step.value.entries);
    const first = calls.shift() ?? [];
    signal?.throwIfAborted();
    const created = await to.create(header, first).then(() => true, (error) => {
      // Created meanwhile by another writer (the batch of tokens was read before): merge.
      if (receiving && error instanceof SessionExistsError) return false;
      throw error;
    });
    if (!created) return "exists";
    report.sessionsCreated++;
    report.entriesCopied += first.length;
    while (true) {
      for (const batch of calls) await appendBatch(to, sessionId, batch, report, signal);
      step = await source.next();
      if (step.done) break;
      calls = batches(step.value.entries);
      for (const entry of sentIds ? step.value.entries : []) sentIds!.add(entry.id);
    }
    if (sentIds) await recordHeldCopy(pass, sessionId, header, sentIds);
    return true;
  } finally {
    await source.return();
  }
}

/**
 * After writing a session into `to`, record it in `received` if `to` now holds nothing the
 * sender lacks: its token read first, then its entries, so a write by someone else landing
 * meanwhile is either read here (and the session not recorded) or changes the token again.
 */
async function recordHeldCopy(
  { to, received }: Pass,
  sessionId: string,
  sentHeader: SessionHeader,
  sentIds: ReadonlySet<string>,
  // `to`'s token if the caller read it after the write (the read must precede the entries').
  read?: string,
): Promise<void> {
  const token = read ?? await to.changeToken?.(sessionId);
  if (token === undefined) return;
  const present = await readExact(to, sessionId);
  if (
    !present.upgraded && present.entries.every((entry) => sentIds.has(entry.id)) &&
    toJsonLine(present.header, "header") === toJsonLine(sentHeader, "header")
  ) {
    received[sessionId] = token;
  }
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
function batches(entries: readonly SessionEntry[]): SessionEntry[][] {
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

async function appendBatch(
  to: SessionStore,
  sessionId: string,
  batch: SessionEntry[],
  report: SyncReport,
  signal: AbortSignal | undefined,
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
async function readExact(store: SessionStore, sessionId: string): Promise<ParsedSession> {
  if (store.loadExact) return await store.loadExact(sessionId);
  if (!store.exportJsonl) return await store.load(sessionId);
  return parseSessionJsonlSync(await store.exportJsonl(sessionId), { source: sessionId });
}

/** The session in batches where the store streams it, else whole as one batch. */
async function* streamExact(store: SessionStore, sessionId: string): AsyncGenerator<ParsedSession> {
  if (!store.streamExact) return yield await readExact(store, sessionId);
  yield* await store.streamExact(sessionId, { batchChars: STREAM_CHARS });
}

function sessionConflicts(
  sessionId: string,
  header: SessionHeader,
  entries: readonly SessionEntry[],
  present: { header: SessionHeader; entries: readonly SessionEntry[] },
): SyncReport["conflicts"] {
  const conflicts: SyncReport["conflicts"] = [];
  if (toJsonLine(header, "header") !== toJsonLine(present.header, "header")) {
    conflicts.push({ sessionId, field: firstDifference(header, present.header) });
  }
  const stored = new Map(present.entries.map((entry) => [entry.id, entry]));
  for (const entry of entries) {
    const other = stored.get(entry.id);
    if (other !== undefined && toJsonLine(entry, "entry") !== toJsonLine(other, "entry")) {
      conflicts.push({ sessionId, entryId: entry.id, field: firstDifference(entry, other) });
    }
  }
  return conflicts;
}

/**
 * The dotted path of the first field whose JSON differs, descending into objects present
 * on both sides; "" when the two values differ as a whole (or only in key order/spacing).
 */
function firstDifference(left: unknown, right: unknown, path = ""): string {
  if (!isRecord(left) || !isRecord(right)) return path;
  const keys = [...new Set([...Object.keys(left), ...Object.keys(right)])];
  for (const key of keys) {
    if (JSON.stringify(left[key]) !== JSON.stringify(right[key])) {
      return firstDifference(left[key], right[key], path ? `${path}.${key}` : key);
    }
  }
  return path;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
