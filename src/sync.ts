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
 * Here: the plan of a pass (which sessions changed since the cursor), a new session's
 * streamed create, and the merge that reads both sides. Beside it: the store calls and a
 * pass's context (`_sync_io.ts`), the change tokens (`_sync_tokens.ts`), the held-copy
 * record that lets a later run append without reading the receiving copy
 * (`_sync_held.ts`) and the conflict check (`_sync_conflicts.ts`).
 *
 * @module
 */
import { SessionExistsError } from "./errors.ts";
import type { SessionInfo, SessionStore } from "./store.ts";
import { inFlight, readAhead } from "./_in_flight.ts";
import { changeTokens, receivingTokens } from "./_sync_tokens.ts";
import {
  afterCopy,
  appendToHeldCopy,
  cursorValue,
  defersHeldToken,
  heldAfterPass,
  recordHeldCopy,
  SenderDigest,
  sentToken,
} from "./_sync_held.ts";
import { sessionConflicts } from "./_sync_conflicts.ts";
import {
  appendBatch,
  batches,
  idsOf,
  type Pass,
  readExact,
  type SessionCopy,
  type SessionFindings,
  streamExact,
} from "./_sync_io.ts";

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
  const run = { report, signal: options.signal };
  if (direction !== "pull") {
    const pass = { from: source, to: target, sent: push, received: pull, readBack: false };
    await copyMissing({ ...pass, ...run, held: new Map(), awaitingToken: new Map() }, options);
  }
  if (direction !== "push") {
    const pass = { from: target, to: source, sent: pull, received: push, readBack: true };
    await copyMissing({ ...pass, ...run, held: new Map(), awaitingToken: new Map() }, options);
  }
  return report;
}

/** The error a store of several sources reports a second copy of a session with. */
const SECOND_COPY = "DuplicateSessionSourceError";

async function copyMissing(pass: Pass, options: SyncOptions): Promise<void> {
  const { from, sent, report } = pass;
  // Tokens are read before the sessions (the listing's, where the store reports them), so
  // a write landing while one is copied changes it again.
  const listedTokens = new Map<string, string>();
  const sessions = selectSessions(
    await from.list({
      cwd: options.sessions?.cwd,
      includeInternal: true,
      signal: options.signal,
      onSkipped: ({ path, error }) => {
        // A second copy of a session another source of the same store shows (a pi file
        // after `mu migrate`) is not left out: the shown copy is the one synced. Told by its
        // name, a public contract, since the core does not import the stores that throw it.
        if (error.name === SECOND_COPY) return;
        report.skipped.push({ sessionId: path, reason: `cannot be read: ${error.message}` });
      },
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
    const { id: sessionId } = sessions[i];
    const token = tokens[i];
    if (token !== undefined && sentToken(sent[sessionId]) === token) {
      report.sessionsUnchanged++;
    } else if (
      await copySession({ pass, sessionId, found: found[i], receiving: receiving?.get(sessionId) })
    ) {
      // Recorded only after a complete copy, so an interrupted run redoes the session.
      if (token !== undefined) sent[sessionId] = cursorValue(token, pass.held.get(sessionId));
      else pass.awaitingToken.delete(sessionId);
    }
    // Sessions in flight when the signal fired stop at their next store call or here.
    options.signal?.throwIfAborted();
    options.onProgress?.(++done, sessions.length);
  });
  await heldAfterPass(pass);
  for (const { conflicts, skipped } of found) {
    report.conflicts.push(...conflicts);
    report.skipped.push(...skipped);
  }
}

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
async function copySession(copy: SessionCopy): Promise<boolean> {
  const { pass, sessionId, found, receiving } = copy;
  const { from, to, received, report } = pass;
  if (receiving ? receiving.token === undefined : !(await to.has(sessionId))) {
    const created = await createStreaming(copy);
    if (created !== "exists") return created;
  }
  const loaded = await readExact(from, sessionId);
  if (loaded.upgraded) {
    found.skipped.push(upgradeSkip(sessionId, loaded.sourceVersion));
    return false;
  }
  const receiverToken = receiving?.token ?? await to.changeToken?.(sessionId);
  if (await appendToHeldCopy(pass, sessionId, loaded, receiverToken)) return true;
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
  for (const batch of batches(missing)) await appendBatch(pass, sessionId, batch);
  // Only when `to` now holds exactly the sender's entries (none of its own besides).
  const exact = present.entries.length + missing.length === loaded.entries.length;
  await afterCopy(pass, sessionId, loaded, missing.length > 0, exact ? receiverToken : null);
  return true;
}

function upgradeSkip(sessionId: string, sourceVersion: number) {
  // Copying the in-memory upgrade would change the entries' bytes; the owner persists it.
  return {
    sessionId,
    reason: `stored in format ${sourceVersion}; open it once to upgrade it to format 4`,
  };
}

/**
 * A session the receiving side lacks, created from its first batch and appended to batch
 * by batch as the source streams it (the next batch is read while one is written): a long
 * session is never held whole. "exists" when another writer created it meanwhile (merge).
 */
async function createStreaming(
  { pass, sessionId, found, receiving }: SessionCopy,
): Promise<boolean | "exists"> {
  const { from, to, report, signal } = pass;
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
    // What the new copy holds, for the cursor, where that costs no round trip per session.
    const digest = defersHeldToken(pass) ? new SenderDigest(header) : undefined;
    digest?.add(step.value.entries);
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
      for (const batch of calls) await appendBatch(pass, sessionId, batch);
      step = await source.next();
      if (step.done) break;
      calls = batches(step.value.entries);
      for (const entry of sentIds ? step.value.entries : []) sentIds!.add(entry.id);
      digest?.add(step.value.entries);
    }
    if (sentIds) await recordHeldCopy(pass, sessionId, header, sentIds);
    if (digest) pass.awaitingToken.set(sessionId, { count: digest.count, digest: digest.value() });
    return true;
  } finally {
    await source.return();
  }
}
