/**
 * Typed errors raised by the session library. Every error extends {@link SessionError},
 * and each has a `name` equal to its class name so it survives structured cloning
 * (worker messages) and can be matched without `instanceof`. Each class sets `name` from a
 * string literal, not `new.target.name`: minifiers rename classes, and the viewer bundle
 * showed `mt: line 1: ...` before.
 *
 * @module
 */

/**
 * Base class of every error this library raises on purpose.
 *
 * @example
 * ```ts
 * import { parseSessionJsonl, SessionError } from "@mu/sessions";
 * try {
 *   await parseSessionJsonl("not json\n");
 * } catch (e) {
 *   if (e instanceof SessionError) console.error(e.name, e.message); // SessionFormatError ...
 * }
 * ```
 */
export class SessionError extends Error {
  override name = "SessionError";
}

/**
 * A session source is not a loadable session: torn final record, invalid JSON,
 * structurally invalid entry, missing header, future or unrecognised version, parent cycle.
 *
 * @example
 * ```ts
 * import { parseSessionJsonl, SessionFormatError } from "@mu/sessions";
 * try { await parseSessionJsonl('{"type":"session","version":9,"id":"x"}\n'); }
 * catch (e) { if (e instanceof SessionFormatError) console.log(e.line, e.reason); }
 * ```
 */
export class SessionFormatError extends SessionError {
  override name = "SessionFormatError";
  /** 1-based line number the problem was found on (0 when not tied to a line). */
  readonly line: number;
  /** Byte offset of that line's first byte in the source. */
  readonly byteOffset: number;
  /** What is wrong, phrased so a person can act on it. */
  readonly reason: string;
  /** File path or label of the source, when known. */
  readonly source?: string;

  constructor(
    reason: string,
    location: { line?: number; byteOffset?: number; source?: string } = {},
    options?: ErrorOptions,
  ) {
    const line = location.line ?? 0;
    const where = [location.source, line > 0 ? `line ${line}` : undefined].filter(Boolean).join(
      ", ",
    );
    super(where ? `${where}: ${reason}` : reason, options);
    this.line = line;
    this.byteOffset = location.byteOffset ?? 0;
    this.reason = reason;
    this.source = location.source;
  }
}

/**
 * No session with the given id (or path) exists in the store.
 *
 * @example
 * ```ts
 * import { SessionNotFoundError } from "@mu/sessions";
 * const err = new SessionNotFoundError("abc");
 * console.log(err.sessionId); // "abc"
 * ```
 */
export class SessionNotFoundError extends SessionError {
  override name = "SessionNotFoundError";
  readonly sessionId: string;
  constructor(sessionId: string, message = `Session not found: ${sessionId}`) {
    super(message);
    this.sessionId = sessionId;
  }
}

/**
 * A session with the given id already exists where a new one was to be created.
 *
 * @example
 * ```ts
 * import { SessionExistsError } from "@mu/sessions";
 * console.log(new SessionExistsError("abc").message);
 * ```
 */
export class SessionExistsError extends SessionError {
  override name = "SessionExistsError";
  readonly sessionId: string;
  constructor(sessionId: string, message = `Session already exists: ${sessionId}`) {
    super(message);
    this.sessionId = sessionId;
  }
}

/**
 * An entry id the session already holds, appended again with different content. An entry
 * already stored byte for byte is not a conflict: appending it again (a retry after an
 * error that hid a successful commit) succeeds and writes nothing.
 *
 * @example
 * ```ts
 * import { EntryConflictError } from "@mu/sessions";
 * const error = new EntryConflictError("s1", "e1");
 * error.entryId; // "e1"
 * ```
 */
export class EntryConflictError extends SessionError {
  override name = "EntryConflictError";
  readonly sessionId: string;
  readonly entryId: string;
  constructor(
    sessionId: string,
    entryId: string,
    message = `Session ${sessionId} already has an entry ${
      JSON.stringify(entryId)
    } with other content`,
  ) {
    super(message);
    this.sessionId = sessionId;
    this.entryId = entryId;
  }
}

/**
 * Storage failed (I/O error, lock held by another writer, disk full, closed store).
 * When a write rejects with this error nothing of that write was committed.
 *
 * @example
 * ```ts
 * import { SessionStorageError } from "@mu/sessions";
 * throw new SessionStorageError("disk full", { cause: new Error("ENOSPC") });
 * ```
 */
export class SessionStorageError extends SessionError {
  override name = "SessionStorageError";
}

/**
 * An entry id passed to a navigation or mutation method does not exist in the session.
 *
 * @example
 * ```ts
 * import { EntryNotFoundError } from "@mu/sessions";
 * console.log(new EntryNotFoundError("deadbeef").entryId);
 * ```
 */
export class EntryNotFoundError extends SessionError {
  override name = "EntryNotFoundError";
  readonly entryId: string;
  constructor(entryId: string) {
    super(`Entry ${entryId} not found`);
    this.entryId = entryId;
  }
}

/**
 * An argument is not acceptable (invalid session id, deleting the open session, ...).
 *
 * @example
 * ```ts
 * import { InvalidArgumentError } from "@mu/sessions";
 * console.log(new InvalidArgumentError("bad id").name); // "InvalidArgumentError"
 * ```
 */
export class InvalidArgumentError extends SessionError {
  override name = "InvalidArgumentError";
}
