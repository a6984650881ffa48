/**
 * The writes a read-only HTTP store refuses (`mu serve`'s API, a hosted export), each with a
 * `SessionStorageError` that says where the session is read from.
 *
 * @module
 */
import { SessionStorageError } from "../../src/errors.ts";
import type { SessionEntry, SessionHeader } from "../../src/schema.ts";

/** Base of the read-only stores: `append`, `replace`, `updateHeader`, `delete` and `close`. */
export abstract class ReadOnlyWrites {
  /** How the refusals end: "through the HTTP API", "on a hosted export". */
  protected abstract readonly readOnlyWhere: string;

  protected readOnly(what: string): Promise<never> {
    return Promise.reject(
      new SessionStorageError(`read-only: ${what} is not possible ${this.readOnlyWhere}`),
    );
  }

  append(_sessionId: string, _entries: readonly SessionEntry[]): Promise<void> {
    return this.readOnly("append");
  }

  replace(_header: SessionHeader, _entries: readonly SessionEntry[]): Promise<void> {
    return this.readOnly("replace");
  }

  updateHeader(_header: SessionHeader): Promise<void> {
    return this.readOnly("updateHeader");
  }

  delete(_sessionId: string): Promise<void> {
    return this.readOnly("delete");
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
