/**
 * What a sync cursor remembers of a receiving copy beside the sending token, so a later run
 * that finds new entries appends them without reading the receiving copy whole: how many of
 * the sender's entries that copy held, a digest of the sender's header and those entries'
 * JSON (a sender rewritten since no longer matches), and the receiving copy's change token
 * read after the write (it still matches only if nothing wrote to that copy since).
 *
 * The cursor stays plain JSON of strings: the record rides after the sending token in the
 * same value, and a value without one (or torn) is just the token, so such a session is
 * merged by reading both sides as before.
 *
 * Here too what a copy does with that record: append a session's new entries to the copy
 * it shows held ({@link appendToHeldCopy}), and after a copy keep the record for the cursor
 * ({@link afterCopy}) or, for a copy written into a source, read it back so the other
 * direction's cursor skips it ({@link recordHeldCopy}). Split from `sync.ts`, which plans
 * and merges.
 *
 * @module
 */
import { EntryConflictError, SessionNotFoundError } from "./errors.ts";
import { type ParsedSession, toJsonLine } from "./jsonl.ts";
import type { SessionEntry, SessionHeader } from "./schema.ts";
import { fitsOneCall, idsOf, type Pass, readExact } from "./_sync_io.ts";
import { changeTokens } from "./_sync_tokens.ts";

/** What the receiving copy held at the end of the last complete copy. */
export interface HeldCopy {
  /** The sender's first `count` entries, in its stored order. */
  count: number;
  /** {@link senderDigest} of the sender's header and those entries. */
  digest: string;
  /** The receiving copy's change token right after the write. */
  token: string;
}

/** Between the sending token and the held record: no store's token holds a line break. */
const SEPARATOR = "\nheld ";

/** The sending token of a cursor value. */
export function sentToken(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const at = value.indexOf(SEPARATOR);
  return at < 0 ? value : value.slice(0, at);
}

/** The held record of a cursor value; undefined without one or when it does not parse. */
export function heldCopy(value: string | undefined): HeldCopy | undefined {
  const at = value?.indexOf(SEPARATOR) ?? -1;
  if (at < 0) return undefined;
  try {
    const [count, digest, token] = JSON.parse(value!.slice(at + SEPARATOR.length));
    const valid = Number.isSafeInteger(count) && count >= 0 && typeof digest === "string" &&
      typeof token === "string";
    return valid ? { count, digest, token } : undefined;
  } catch {
    return undefined;
  }
}

/** A cursor value: the sending token, and the held record when there is one. */
export function cursorValue(token: string, held: HeldCopy | undefined): string {
  if (!held) return token;
  return `${token}${SEPARATOR}${JSON.stringify([held.count, held.digest, held.token])}`;
}

/**
 * A 64-bit digest (two FNV-1a lanes) of the header's and the entries' stored JSON: only
 * to notice a sender rewritten under the same ids, computed synchronously over a session
 * already in memory (a cryptographic hash would need an async call per session), or part
 * by part as a session is streamed ({@link SenderDigest}).
 */
export function senderDigest(header: SessionHeader, entries: readonly SessionEntry[]): string {
  return new SenderDigest(header).add(entries).value();
}

/** {@link senderDigest} fed part by part: the header first, then entries in stored order. */
export class SenderDigest {
  #low = 0x811c9dc5;
  #high = 0x01000193 ^ 0x5bd1e995;
  #count = 0;
  constructor(header: SessionHeader) {
    this.#line(toJsonLine(header, "header"));
  }
  /** The entries digested so far. */
  get count(): number {
    return this.#count;
  }
  add(entries: readonly SessionEntry[]): this {
    for (const entry of entries) this.#line(toJsonLine(entry, "entry"));
    this.#count += entries.length;
    return this;
  }
  value(): string {
    const hex = (lane: number) => (lane >>> 0).toString(16).padStart(8, "0");
    return hex(this.#low) + hex(this.#high);
  }
  #line(text: string): void {
    let low = this.#low;
    let high = this.#high;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      low = Math.imul(low ^ code, 0x01000193);
      high = Math.imul(high ^ code, 0x01000193 + 0x2000);
    }
    // A line break after each line, so moving text between lines changes the digest.
    this.#low = Math.imul(low ^ 10, 0x01000193);
    this.#high = Math.imul(high ^ 10, 0x01000193 + 0x2000);
  }
}

/**
 * Whether `to`'s token after a write is asked for after the pass ({@link heldAfterPass}):
 * where `to` answers many at once, so recording what a copy holds costs no round trip per
 * session, and not when the copy is read back (that read must follow its own token read).
 */
export function defersHeldToken(pass: Pass): boolean {
  return !pass.readBack && pass.to.changeTokens !== undefined;
}

/**
 * The sender's entries past what `to` held at the last complete copy, appended without
 * reading `to`: only while `to`'s token is the one read right after that copy (nothing
 * wrote to it since) and the sender's first entries still digest as then (not rewritten),
 * and in one store call, which is atomic: an id `to` holds with other content rejects it
 * whole (`EntryConflictError`), and then, as for a session gone, the session is merged by
 * reading both sides, which reports the conflict. False when it did not apply.
 */
export async function appendToHeldCopy(
  pass: Pass,
  sessionId: string,
  loaded: ParsedSession,
  receiverToken: string | undefined,
): Promise<boolean> {
  const held = heldCopy(pass.sent[sessionId]);
  if (!held || receiverToken === undefined || held.token !== receiverToken) return false;
  if (held.count > loaded.entries.length) return false;
  if (senderDigest(loaded.header, loaded.entries.slice(0, held.count)) !== held.digest) {
    return false;
  }
  const missing = loaded.entries.slice(held.count);
  if (!fitsOneCall(missing)) return false; // more than one atomic call: merge instead
  if (missing.length > 0) {
    pass.signal?.throwIfAborted();
    const appended = await pass.to.append(sessionId, missing).then(() => true, (error) => {
      if (error instanceof EntryConflictError || error instanceof SessionNotFoundError) {
        return false;
      }
      throw error;
    });
    if (!appended) return false;
  }
  pass.report.entriesCopied += missing.length;
  pass.report.alreadyPresent += held.count;
  await afterCopy(pass, sessionId, loaded, missing.length > 0, receiverToken);
  return true;
}

/**
 * After a merge into `to`: with `heldAt` not null (`to` holds exactly the sender's entries)
 * keep that for the cursor, at `heldAt` when nothing was written, else at `to`'s token read
 * after the write: now, or where `to` answers many tokens at once, in one call after the
 * pass for all sessions written ({@link heldAfterPass}). A write by someone else landing
 * between ours and that read goes unnoticed by a later `appendToHeldCopy`; its append
 * still refuses an id held with other content. What was written into a source is read back
 * for the other direction (`recordHeldCopy`).
 */
export async function afterCopy(
  pass: Pass,
  sessionId: string,
  loaded: ParsedSession,
  wrote: boolean,
  heldAt: string | undefined | null,
): Promise<void> {
  const held = () => ({
    count: loaded.entries.length,
    digest: senderDigest(loaded.header, loaded.entries),
  });
  if (wrote && heldAt !== null && defersHeldToken(pass)) {
    pass.awaitingToken.set(sessionId, held());
    return;
  }
  // Read once after a write, before any entries are read back: both uses want that order.
  const written = wrote && (heldAt !== null || pass.readBack)
    ? await pass.to.changeToken?.(sessionId)
    : undefined;
  if (heldAt !== null) {
    const token = wrote ? written : heldAt;
    if (token !== undefined) pass.held.set(sessionId, { ...held(), token });
  }
  if (wrote && pass.readBack && written !== undefined) {
    await recordHeldCopy(pass, sessionId, loaded.header, idsOf(loaded.entries), written);
  }
}

/**
 * After a pass's copies: `to`'s tokens of the sessions awaiting one, asked for in one call,
 * kept in the cursor beside the sending tokens the pass recorded for them (a session whose
 * copy was not recorded, or that `to` no longer holds, keeps its plain token).
 */
export async function heldAfterPass(pass: Pass): Promise<void> {
  const ids = [...pass.awaitingToken.keys()];
  if (ids.length === 0) return;
  const tokens = await changeTokens(pass.to, ids, pass.signal);
  ids.forEach((sessionId, i) => {
    const sending = sentToken(pass.sent[sessionId]);
    const token = tokens[i];
    if (sending === undefined || token === undefined) return;
    const held = { ...pass.awaitingToken.get(sessionId)!, token };
    pass.sent[sessionId] = cursorValue(sending, held);
  });
}

/**
 * After writing a session into `to`, record it in `received` if `to` now holds nothing the
 * sender lacks: its token read first, then its entries, so a write by someone else landing
 * meanwhile is either read here (and the session not recorded) or changes the token again.
 */
export async function recordHeldCopy(
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
