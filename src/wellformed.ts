/**
 * What every store can keep exactly: the rules for ids and message times that all drivers
 * share, so no driver silently changes a value another keeps.
 *
 * - Ids (session ids, entry `id` and `parentId`) have no control characters (U+0000-U+001F,
 *   U+007F) and no lone surrogates. node:sqlite binds text as C strings and UTF-8, so
 *   `"a\0x"` was read back as `"a"` and `"\ud800"`/`"\udc00"` both as U+FFFD: two ids
 *   became one and a branch load returned another branch's entries.
 * - Message `timestamp`s (epoch ms) lie in the range a `Date` can hold (+-8.64e15), since
 *   listings turn them into dates; `1e300` made an invalid date that SQLite refused.
 *
 * Files break these rules only when written by something else; parsing such a file fails
 * with a `SessionFormatError` naming the line (see `schema.ts`).
 *
 * @module
 */

/** The largest magnitude, in ms from the epoch, a `Date` can hold. */
export const MAX_DATE_MS = 8.64e15;

const UNSTORABLE =
  // deno-lint-ignore no-control-regex
  /[\u0000-\u001f\u007f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Whether an id is kept exactly by every store: no control characters, no lone surrogates.
 *
 * @example
 * ```ts
 * import { isStorableId } from "./wellformed.ts";
 * isStorableId("a1b2c3d4"); // true
 * isStorableId("a\u0000x"); // false
 * isStorableId("\ud800"); // false
 * ```
 */
export function isStorableId(id: string): boolean {
  return !UNSTORABLE.test(id);
}

/**
 * Whether a message time (epoch ms) fits in a `Date`.
 *
 * @example
 * ```ts
 * import { isDateMs } from "./wellformed.ts";
 * isDateMs(Date.now()); // true
 * isDateMs(1e300); // false
 * ```
 */
export function isDateMs(ms: number): boolean {
  return Number.isFinite(ms) && Math.abs(ms) <= MAX_DATE_MS;
}

/** The one wording every driver and the schema use for an id that breaks the rule. */
export const UNSTORABLE_ID_MESSAGE = "contains a control character or a lone surrogate";
