/**
 * The one rule for importing a JSONL session into a store that may already hold its id:
 * never lose entries. The same content is already present (nothing written); content that
 * extends the stored session (its exact lines, then more) appends only the new entries;
 * anything else is a conflict and is left to the caller (the stored session is never
 * overwritten). The CLI, `mu serve`'s import route and the viewer follow it.
 *
 * @module
 */
import { SessionFormatError, SessionStorageError } from "./errors.ts";
import { parseSessionJsonl, serializeSessionJsonl } from "./jsonl.ts";
import type { SessionEntry, SessionHeader } from "./schema.ts";
import { exportSessionJsonl, type SessionStore } from "./store.ts";

/** What importing one session did. */
export type ImportOutcome =
  | { status: "imported" | "already-present"; sessionId: string }
  | { status: "updated"; sessionId: string; added: number }
  | { status: "conflict"; sessionId: string; reason: string }
  | { status: "invalid"; error: SessionFormatError };

/** Options of {@link importSession}. */
export interface ImportSessionOptions {
  /** Name of the source in error messages (a file path). */
  source?: string;
  /**
   * Read the session back after creating it and require the same JSONL text, byte for
   * byte; a mismatch removes it again and rejects (used by `mu migrate`).
   */
  verify?: boolean;
}

/**
 * Import JSONL (any format version; older ones are upgraded) into `store` under the
 * never-overwrite rule. Invalid input resolves with `status: "invalid"` and the typed
 * error; storage failures reject.
 *
 * @example
 * ```ts
 * import { importSession, MemorySessionStore } from "@mu/sessions/core";
 * const store = new MemorySessionStore();
 * const jsonl = '{"type":"session","version":4,"id":"s1","createdAt":"2026-01-01T00:00:00.000Z","cwd":"/p"}\n';
 * (await importSession(store, jsonl)).status; // "imported"
 * (await importSession(store, jsonl)).status; // "already-present"
 * ```
 */
export async function importSession(
  store: SessionStore,
  input: string | Uint8Array | ReadableStream<Uint8Array>,
  options: ImportSessionOptions = {},
): Promise<ImportOutcome> {
  let header: SessionHeader;
  let entries: SessionEntry[];
  try {
    ({ header, entries } = await parseSessionJsonl(input, { source: options.source }));
  } catch (error) {
    if (error instanceof SessionFormatError) return { status: "invalid", error };
    throw error;
  }
  const text = serializeSessionJsonl(header, entries);
  const sessionId = header.id;
  if (await store.has(sessionId)) {
    const stored = await exportSessionJsonl(store, sessionId);
    if (stored === text) return { status: "already-present", sessionId };
    if (text.startsWith(stored)) {
      const storedCount = stored.split("\n").length - 2; // header line and final newline
      if (storedCount < entries.length) {
        await store.append(sessionId, entries.slice(storedCount));
        return { status: "updated", sessionId, added: entries.length - storedCount };
      }
    }
    return {
      status: "conflict",
      sessionId,
      reason: `a different session with id ${sessionId} is already stored (not overwritten)`,
    };
  }
  await store.create(header, entries);
  if (options.verify && (await exportSessionJsonl(store, sessionId)) !== text) {
    await store.delete(sessionId);
    throw new SessionStorageError(
      `${
        options.source ?? sessionId
      }: the session did not read back byte for byte from the store; it was removed again`,
    );
  }
  return { status: "imported", sessionId };
}
