/**
 * The small helpers every driver shares at the storage seam: abort checks, the shared
 * listing filter and order, and turning a driver's own failure into a typed
 * `SessionStorageError`. Separate from `store.ts` so that module holds only the contract
 * (the interfaces and the checks on what crosses it); `store.ts` re-exports these so
 * drivers keep one import.
 *
 * @module
 */
import { SessionError, SessionStorageError } from "./errors.ts";
import type { SessionInfo } from "./_listing.ts";
import { compareSessionInfo } from "./_listing.ts";
import type { ListOptions } from "./store.ts";

/** Throw the signal's reason when it is aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason ?? new DOMException("Listing aborted", "AbortError");
}

/**
 * Apply the listing options every store shares (cwd, internal) and sort newest first.
 * Stores that can filter earlier (SQL) still call this to keep one ordering rule.
 */
export function finishListing(rows: SessionInfo[], options: ListOptions = {}): SessionInfo[] {
  const kept = rows.filter((row) =>
    (options.cwd === undefined || row.cwd === options.cwd) &&
    (options.includeInternal || !row.internal)
  );
  return kept.sort(compareSessionInfo);
}

/**
 * Run a storage operation, turning any non-library error into a `SessionStorageError`
 * that names the operation (library errors pass through unchanged).
 */
export async function storageOperation<T>(
  what: string,
  operation: () => Promise<T> | T,
): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw asStorageError(what, error);
  }
}

/**
 * The error a store raises for a failure of `what`: library errors and aborts unchanged,
 * anything else (an I/O error, a driver's own error) as a `SessionStorageError` naming the
 * operation, with the original as `cause`.
 *
 * @example
 * ```ts
 * import { asStorageError } from "./store.ts";
 * asStorageError("append", new Error("EIO")).message; // "append failed: EIO"
 * ```
 */
export function asStorageError(what: string, error: unknown): Error {
  if (error instanceof SessionError) return error;
  if (error instanceof DOMException && error.name === "AbortError") return error;
  const detail = error instanceof Error ? error.message : String(error);
  return new SessionStorageError(`${what} failed: ${detail}`, { cause: error });
}

/** Deep copy for stores that hand out entries they keep (memory, IndexedDB). */
export function cloneJson<T>(value: T): T {
  return structuredClone(value);
}
