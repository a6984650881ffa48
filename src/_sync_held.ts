/**
 * What a sync cursor remembers of a receiving copy beside the sending token, so a later run
 * that finds new entries appends them without reading the receiving copy whole: how many of
 * the sender's entries that copy held, a digest of the sender's header and those entries'
 * JSON (a sender rewritten since no longer matches), and the receiving copy's change token
 * read after the write (it still matches only if nothing wrote to that copy since).
 *
 * The cursor stays plain JSON of strings: the record rides after the sending token in the
 * same value, and a value without one (or torn) is just the token, so such a session is
 * merged by reading both sides as before. Split from `sync.ts`, which plans and copies.
 *
 * @module
 */
import { toJsonLine } from "./jsonl.ts";
import type { SessionEntry, SessionHeader } from "./schema.ts";

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
 * already in memory (a cryptographic hash would need an async call per session).
 */
export function senderDigest(header: SessionHeader, entries: readonly SessionEntry[]): string {
  let low = 0x811c9dc5;
  let high = 0x01000193 ^ 0x5bd1e995;
  const add = (text: string) => {
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      low = Math.imul(low ^ code, 0x01000193);
      high = Math.imul(high ^ code, 0x01000193 + 0x2000);
    }
    // A line break after each line, so moving text between lines changes the digest.
    low = Math.imul(low ^ 10, 0x01000193);
    high = Math.imul(high ^ 10, 0x01000193 + 0x2000);
  };
  add(toJsonLine(header, "header"));
  for (const entry of entries) add(toJsonLine(entry, "entry"));
  return (low >>> 0).toString(16).padStart(8, "0") + (high >>> 0).toString(16).padStart(8, "0");
}
