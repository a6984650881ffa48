/**
 * Structural checks that answer what zod 4 answers for the schemas of `_zod_schema.ts` and
 * `_zod_messages.ts`: the same verdict and the same first issue (its path, and zod's
 * English message), built from plain closures.
 *
 * Why: importing zod and building its schemas is top-level evaluation an edge function pays
 * on every cold start, zod is most of a browser bundle that carries it, and zod builds a full
 * copy of every entry it parses that the parser throws away. The zod schemas stay the
 * documented contract (`@mu/sessions/schema`); `_entry_check.ts` restates them with these
 * combinators, and `tests/unit/validate.test.ts` proves the two agree over every fixture and
 * tens of thousands of mutated entries.
 *
 * Only what those schemas use is mirrored, with zod's rules:
 * - an object is any non-null, non-array object; fields are checked in the shape's order and
 *   read with `value[key]` (inherited ones too); unknown fields pass ("loose" objects); an
 *   absent optional field is skipped; an absent required field that its check accepts as
 *   `undefined` is "nonoptional".
 * - a record needs a plain object (zod's `isPlainObject`) and checks its own enumerable
 *   keys in `Reflect.ownKeys` order, skipping `__proto__`; a symbol key is an invalid key.
 * - a number is finite; checks on top of a type (min length, range, refinements) run in
 *   order after the type passed, and the first failing one is the issue.
 * - a union that no option accepts is "Invalid input" at the union. (zod reports an
 *   option's own issues instead when exactly one option failed only by checks after its type
 *   passed; no union in the schemas has such an option: each fails on a type.)
 *
 * @module
 */

/** The first thing wrong with a value: where (keys and indexes from the value) and why. */
export interface Issue {
  path: PropertyKey[];
  message: string;
}

/** Checks a value: `undefined` when valid, otherwise its first issue in zod's order. */
export type Check = (value: unknown) => Issue | undefined;

type Obj = Record<PropertyKey, unknown>;

/** Checks made `optional`: an absent field is not checked at all. */
const OPTIONAL = new WeakSet<Check>();

const issue = (message: string): Issue => ({ path: [], message });

const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** zod's name for what a value is (`util.parsedType` through the English locale). */
function received(v: unknown): string {
  if (typeof v === "number") {
    return Number.isNaN(v) ? "NaN" : String(Number.isFinite(v) ? "number" : v);
  }
  if (typeof v !== "object") return typeof v;
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  const ctor = (v as Obj).constructor as { name?: unknown } | undefined;
  if (Object.getPrototypeOf(v) !== Object.prototype && "constructor" in v && ctor) {
    return `${ctor.name}`;
  }
  return "object";
}

const typeIssue = (expected: string, v: unknown) =>
  issue(`Invalid input: expected ${expected}, received ${received(v)}`);

/** zod's `isPlainObject`, which `z.record` requires. */
function isPlainObject(v: unknown): v is Obj {
  if (!isObject(v)) return false;
  const ctor = v.constructor;
  if (ctor === undefined || typeof ctor !== "function") return true;
  const proto = ctor.prototype;
  return isObject(proto) && Object.prototype.hasOwnProperty.call(proto, "isPrototypeOf");
}

/** `z.string()` */
export const string: Check = (v) => typeof v === "string" ? undefined : typeIssue("string", v);
/** `z.number()`: finite only. */
export const number: Check = (v) =>
  typeof v === "number" && Number.isFinite(v) ? undefined : typeIssue("number", v);
/** `z.boolean()` */
export const boolean: Check = (v) => typeof v === "boolean" ? undefined : typeIssue("boolean", v);
/** `z.unknown()` */
export const unknown: Check = () => undefined;

/** `z.literal(expected)` */
export function literal(expected: string | number): Check {
  const shown = typeof expected === "string" ? `"${expected}"` : `${expected}`;
  return (v) => v === expected ? undefined : issue(`Invalid input: expected ${shown}`);
}

/** A check run after the type passed: a message when the value fails it. */
export type Refinement<T> = (value: T) => string | undefined;

/** `base` followed by zod checks (`.min()`, `.refine()`, ...), in the order given. */
export function refine<T>(base: Check, ...checks: Refinement<T>[]): Check {
  return (v) => {
    const problem = base(v);
    if (problem) return problem;
    for (const check of checks) {
      const message = check(v as T);
      if (message !== undefined) return issue(message);
    }
    return undefined;
  };
}

/** `.min(n)` on a string. */
export const minLength = (n: number): Refinement<string> => (v) =>
  v.length >= n ? undefined : `Too small: expected string to have >=${n} characters`;

/** `.min(min).max(max)` on a number. */
export const between = (min: number, max: number): Refinement<number> => (v) =>
  v < min
    ? `Too small: expected number to be >=${min}`
    : v > max
    ? `Too big: expected number to be <=${max}`
    : undefined;

/** `.refine(predicate, message)` */
export const satisfies = <T>(predicate: (v: T) => boolean, message: string): Refinement<T> => (v) =>
  predicate(v) ? undefined : message;

/** `.optional()`: `undefined` passes, and an absent field is not checked. */
export function optional(check: Check): Check {
  const out: Check = (v) => v === undefined ? undefined : check(v);
  OPTIONAL.add(out);
  return out;
}

/** `.nullable()` */
export const nullable = (check: Check): Check => (v) => v === null ? undefined : check(v);

/** An issue found at `key` of the value being checked. */
function under(key: PropertyKey, found: Issue): Issue {
  found.path.unshift(key);
  return found;
}

/** `z.looseObject(shape)` */
export function object(shape: Record<string, Check>): Check {
  const keys = Object.keys(shape);
  const checks = keys.map((key) => shape[key]);
  const optional = checks.map((check) => OPTIONAL.has(check));
  return (v) => {
    if (!isObject(v)) return typeIssue("object", v);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      const field = v[key];
      // An optional field passes as `undefined`, absent or present: no check, no `in` test
      // (most optional fields are absent).
      if (field === undefined && optional[i]) continue;
      const found = checks[i](field);
      if (found) return under(key, found);
      // Only a check that accepts `undefined` gets here with it (`unknown`): the field must
      // still be present (zod's "nonoptional").
      if (field === undefined && !(key in v)) {
        return under(key, typeIssue("nonoptional", undefined));
      }
    }
    return undefined;
  };
}

/** `z.discriminatedUnion(key, options)`, the options given by their tag, in zod's order. */
export function discriminated(key: string, options: Record<string, Check>): Check {
  // A scan of a few tags is cheaper than hashing the tag for a Map (a check's hot path).
  const tags = Object.keys(options), checks = tags.map((tag) => options[tag]);
  const expected = `Invalid discriminator value. Expected ${
    Object.keys(options).map((tag) => `'${tag}'`).join(" | ")
  }`;
  return (v) => {
    if (!isObject(v)) return typeIssue("object", v);
    const tag = v[key];
    for (let i = 0; i < tags.length; i++) if (tags[i] === tag) return checks[i](v);
    return under(key, issue(expected));
  };
}

/** `z.union(options)` (see the module notes on which issue it reports). */
export function union(...options: Check[]): Check {
  return (v) => {
    for (const option of options) if (option(v) === undefined) return undefined;
    return issue("Invalid input");
  };
}

/** `z.array(element)` */
export function array(element: Check): Check {
  return (v) => {
    if (!Array.isArray(v)) return typeIssue("array", v);
    for (let i = 0; i < v.length; i++) {
      const found = element(v[i]);
      if (found) return under(i, found);
    }
    return undefined;
  };
}

/** `z.record(z.string(), value)` */
export function record(value: Check): Check {
  // zod walks `Reflect.ownKeys` (string keys in `Object.keys` order, then symbols) and
  // checks each enumerable one; the same order, without testing every key's enumerability,
  // and without walking the keys at all when every value passes (tool-call arguments).
  const anyValue = value === unknown;
  return (v) => {
    if (!isPlainObject(v)) return typeIssue("record", v);
    if (!anyValue) {
      for (const key of Object.keys(v)) {
        if (key === "__proto__") continue;
        const found = value(v[key]);
        if (found) return under(key, found);
      }
    }
    for (const key of Object.getOwnPropertySymbols(v)) {
      if (Object.prototype.propertyIsEnumerable.call(v, key)) {
        return under(key, issue("Invalid key in record"));
      }
    }
    return undefined;
  };
}

/**
 * An issue in one line a person can act on: `path: message`, the way `describeSchemaError`
 * words a zod error.
 *
 * @example
 * ```ts
 * import { describeIssue, object, string } from "./_check.ts";
 * describeIssue(object({ name: string })({})!); // "name: Invalid input: expected string, received undefined"
 * ```
 */
export function describeIssue(found: Issue): string {
  return `${found.path.length ? found.path.join(".") : "(root)"}: ${found.message}`;
}
