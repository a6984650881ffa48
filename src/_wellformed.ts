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
 * import { isStorableId } from "./_wellformed.ts";
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
 * import { isDateMs } from "./_wellformed.ts";
 * isDateMs(Date.now()); // true
 * isDateMs(1e300); // false
 * ```
 */
export function isDateMs(ms: number): boolean {
  return Number.isFinite(ms) && Math.abs(ms) <= MAX_DATE_MS;
}

/**
 * The one wording every driver and the schema use for an id that breaks the rule.
 *
 * @example
 * ```ts
 * import { UNSTORABLE_ID_MESSAGE } from "./_wellformed.ts";
 * new Error(`Entry id ${UNSTORABLE_ID_MESSAGE}`);
 * ```
 */
export const UNSTORABLE_ID_MESSAGE = "contains a control character or a lone surrogate";

/**
 * The deepest nesting of arrays and objects a record may have. Real tool arguments nest a
 * few levels; 5,000 levels parsed fine but then overflowed recursive consumers differently
 * per runtime (a 500 on Node 20, a 200 on Deno; `structuredClone`, `JSON.stringify`), so
 * parsing refuses deeper records, the same way everywhere.
 *
 * @example
 * ```ts
 * import { parseSessionJsonlSync, SessionFormatError } from "@mu/sessions/core";
 * import { MAX_NESTING_DEPTH } from "./_wellformed.ts";
 * const deep = "[".repeat(MAX_NESTING_DEPTH + 1) + "]".repeat(MAX_NESTING_DEPTH + 1);
 * const header = '{"type":"session","version":4,"id":"s","createdAt":"2026-01-01T00:00:00.000Z","cwd":"/p"}';
 * const line = `{"type":"custom","id":"c1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","customType":"x","data":${deep}}`;
 * try {
 *   parseSessionJsonlSync(`${header}\n${line}\n`);
 * } catch (error) {
 *   console.log(error instanceof SessionFormatError); // true: nested too deeply
 * }
 * ```
 */
export const MAX_NESTING_DEPTH = 512;

/**
 * Whether a parsed JSON value nests arrays/objects deeper than `max`. The recursion stops
 * at `max` levels, so the check itself cannot overflow the stack; strings and numbers are
 * never visited.
 *
 * @example
 * ```ts
 * import { nestsDeeperThan } from "./_wellformed.ts";
 * nestsDeeperThan({ a: [{ b: 1 }] }, 3); // false
 * nestsDeeperThan({ a: [{ b: 1 }] }, 2); // true
 * ```
 */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  if (value === null || typeof value !== "object") return false;
  if (max <= 0) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const child = value[i];
      if (child !== null && typeof child === "object" && nestsDeeperThan(child, max - 1)) {
        return true;
      }
    }
    return false;
  }
  for (const key in value) {
    const child = (value as Record<string, unknown>)[key];
    if (child !== null && typeof child === "object" && nestsDeeperThan(child, max - 1)) {
      return true;
    }
  }
  return false;
}
