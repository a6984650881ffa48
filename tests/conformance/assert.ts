/**
 * Minimal assertions for the conformance suite. It runs in Deno, Node and a browser page,
 * so it cannot use `node:assert` or `@std/assert`.
 */

export class AssertionError extends Error {
  override name = "AssertionError";
}

export function assert(condition: unknown, message = "assertion failed"): asserts condition {
  if (!condition) throw new AssertionError(message);
}

function isPlainish(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object";
}

/** Structural equality: null-prototype rows equal plain objects; Dates compare by time. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => deepEqual(item, b[i]));
  }
  if (!isPlainish(a) || !isPlainish(b)) return false;
  const keysA = Object.keys(a).filter((k) => a[k] !== undefined);
  const keysB = Object.keys(b).filter((k) => b[k] !== undefined);
  if (keysA.length !== keysB.length) return false;
  return keysA.every((key) => deepEqual(a[key], b[key]));
}

export function assertEquals<T>(actual: T, expected: T, message?: string): void {
  if (!deepEqual(actual, expected)) {
    throw new AssertionError(
      `${message ? message + ": " : ""}values differ\n  actual:   ${show(actual)}\n  expected: ${
        show(expected)
      }`,
    );
  }
}

export function assertNotEquals<T>(actual: T, expected: T, message?: string): void {
  if (deepEqual(actual, expected)) {
    throw new AssertionError(message ?? `expected a value other than ${show(expected)}`);
  }
}

function show(value: unknown): string {
  try {
    const text = JSON.stringify(value);
    return text && text.length > 800 ? text.slice(0, 800) + "…" : String(text);
  } catch {
    return String(value);
  }
}

/** Awaits `fn`, asserts it rejects with an error of `ErrorClass` (matched by name too). */
export async function assertRejects<E extends Error>(
  fn: () => Promise<unknown>,
  // deno-lint-ignore no-explicit-any
  ErrorClass: new (...args: any[]) => E,
  includes?: string,
): Promise<E> {
  try {
    await fn();
  } catch (error) {
    const matches = error instanceof ErrorClass || (error as Error)?.name === ErrorClass.name;
    if (!matches) {
      throw new AssertionError(
        `expected ${ErrorClass.name}, got ${(error as Error)?.name}: ${(error as Error)?.message}`,
      );
    }
    if (includes && !String((error as Error).message).includes(includes)) {
      throw new AssertionError(
        `error message ${JSON.stringify((error as Error).message)} lacks ${
          JSON.stringify(includes)
        }`,
      );
    }
    return error as E;
  }
  throw new AssertionError(`expected ${ErrorClass.name} to be thrown, but nothing was`);
}

export function assertThrows<E extends Error>(
  fn: () => unknown,
  // deno-lint-ignore no-explicit-any
  ErrorClass: new (...args: any[]) => E,
): E {
  try {
    fn();
  } catch (error) {
    if (error instanceof ErrorClass || (error as Error)?.name === ErrorClass.name) {
      return error as E;
    }
    throw new AssertionError(
      `expected ${ErrorClass.name}, got ${(error as Error)?.name}: ${(error as Error)?.message}`,
    );
  }
  throw new AssertionError(`expected ${ErrorClass.name} to be thrown, but nothing was`);
}
