/**
 * The one rule for importing a session into a store that may already hold its id: never
 * lose stored entries. Identical content (compared as JSON values, so a store that
 * re-serialises still compares equal) is already present; content that extends the stored
 * session (same header, the stored entries first, then more) appends only the new entries;
 * anything else is a conflict, resolved by the caller's `onConflict` (skip by default, so
 * nothing stored is ever overwritten unasked). The CLI, `mu serve`'s import route and the
 * viewer all follow it.
 *
 * @module
 */
import { assertNoParentCycle } from "./guarded_store.ts";
import { SessionFormatError, SessionStorageError } from "./errors.ts";
import { parseSessionJsonl, serializeSessionJsonl } from "./jsonl.ts";
import type { SessionEntry, SessionHeader } from "./schema.ts";
import { exportSessionJsonl, type SessionStore } from "./store.ts";

/**
 * A session as parsed or loaded.
 *
 * @example
 * ```ts
 * import { type SessionContent, parseSessionJsonlSync } from "@mu/sessions/core";
 * const content: SessionContent = parseSessionJsonlSync('{"type":"session","version":4,"id":"s","createdAt":"2026-01-01T00:00:00.000Z","cwd":"/p"}\n');
 * ```
 */
export interface SessionContent {
  header: SessionHeader;
  entries: readonly SessionEntry[];
}

/**
 * How imported content relates to the stored session with its id.
 *
 * @example
 * ```ts
 * import { type StoredComparison } from "./import_rule.ts";
 * const comparison: StoredComparison = { kind: "conflict", shared: 3 };
 * ```
 */
export type StoredComparison =
  | { kind: "identical" }
  | { kind: "contained"; missing: number }
  | { kind: "extends"; extra: SessionEntry[] }
  | { kind: "conflict"; shared: number };

/**
 * A conflict to decide: the stored session and the imported one differ.
 *
 * @example
 * ```ts
 * import { type ImportConflict } from "@mu/sessions/core";
 * const describe = (c: ImportConflict) => `${c.sessionId}: ${c.sharedEntries} entries in common`;
 * ```
 */
export interface ImportConflict {
  sessionId: string;
  storedEntries: number;
  importedEntries: number;
  /** Entries the two have in common (equal as JSON values). */
  sharedEntries: number;
}

/**
 * What to do with a conflicting import. `keep-both` stores it under a new id.
 *
 * @example
 * ```ts
 * import { type ConflictChoice, importSession, MemorySessionStore } from "@mu/sessions/core";
 * const keepBoth = (): ConflictChoice => "keep-both";
 * await importSession(new MemorySessionStore(), "", { onConflict: keepBoth }); // invalid: empty
 * ```
 */
export type ConflictChoice = "skip" | "replace" | "keep-both";

/**
 * What importing one session did.
 *
 * @example
 * ```ts
 * import { type ImportOutcome, importSession, MemorySessionStore } from "@mu/sessions/core";
 * const outcome: ImportOutcome = await importSession(new MemorySessionStore(), "not json\n");
 * if (outcome.status === "invalid") console.log(outcome.error.line, outcome.error.reason);
 * ```
 */
export type ImportOutcome =
  | { status: "imported" | "already-present" | "replaced"; sessionId: string }
  | { status: "updated"; sessionId: string; added: number }
  | { status: "kept-both"; sessionId: string; importedSessionId: string }
  | { status: "conflict"; sessionId: string; reason: string; conflict: ImportConflict }
  | { status: "invalid"; error: SessionFormatError };

/**
 * Options of {@link importSession}.
 *
 * @example
 * ```ts
 * import { type ImportSessionOptions } from "@mu/sessions/core";
 * const options: ImportSessionOptions = { source: "a.jsonl", onConflict: () => "skip" };
 * ```
 */
export interface ImportSessionOptions {
  /** Name of the source in error messages (a file path). */
  source?: string;
  /**
   * Read a newly created session back and require the same JSONL text, byte for byte; a
   * mismatch removes it again and rejects with `SessionStorageError` (`mu migrate`).
   */
  verify?: boolean;
  /** Decide a conflict; without it a conflict is reported and nothing is written. */
  onConflict?: (conflict: ImportConflict) => ConflictChoice | Promise<ConflictChoice>;
}

/** JSON text with object keys sorted, so stores that reorder keys still compare equal. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(v).sort()) sorted[key] = (v as Record<string, unknown>)[key];
    return sorted;
  });
}

/**
 * Compare imported content with the stored session of the same id, O(entries).
 *
 * @example
 * ```ts
 * import { compareWithStored } from "./import_rule.ts";
 * const header = { type: "session" as const, version: 4 as const, id: "s", createdAt: "", cwd: "" };
 * compareWithStored({ header, entries: [] }, { header, entries: [] }).kind; // "identical"
 * ```
 */
export function compareWithStored(
  stored: SessionContent,
  imported: SessionContent,
): StoredComparison {
  const storedKeys = stored.entries.map(canonical);
  const importedKeys = imported.entries.map(canonical);
  let prefix = 0;
  while (
    prefix < storedKeys.length && prefix < importedKeys.length &&
    storedKeys[prefix] === importedKeys[prefix]
  ) prefix++;
  if (canonical(stored.header) === canonical(imported.header)) {
    if (prefix === storedKeys.length) {
      return prefix === importedKeys.length
        ? { kind: "identical" }
        : { kind: "extends", extra: imported.entries.slice(prefix) };
    }
    // An older, shorter copy of the stored session: everything in it is stored already.
    if (prefix === importedKeys.length) {
      return { kind: "contained", missing: storedKeys.length - prefix };
    }
  }
  const storedSet = new Set(storedKeys);
  return { kind: "conflict", shared: importedKeys.filter((key) => storedSet.has(key)).length };
}

/**
 * Store parsed content under the never-overwrite rule (see the module docs).
 *
 * @example
 * ```ts
 * import { importParsedSession, MemorySessionStore, parseSessionJsonlSync } from "@mu/sessions/core";
 * const store = new MemorySessionStore();
 * const parsed = parseSessionJsonlSync('{"type":"session","version":4,"id":"s1","createdAt":"2026-01-01T00:00:00.000Z","cwd":"/p"}\n');
 * (await importParsedSession(store, parsed)).status; // "imported"
 * ```
 */
export async function importParsedSession(
  store: SessionStore,
  content: SessionContent,
  options: ImportSessionOptions = {},
): Promise<Exclude<ImportOutcome, { status: "invalid" }>> {
  const { header, entries } = content;
  const sessionId = header.id;
  if (!(await store.has(sessionId))) {
    await store.create(header, entries);
    if (options.verify) await verifyReadBack(store, content, options.source);
    return { status: "imported", sessionId };
  }
  const stored = await store.load(sessionId);
  const comparison = compareWithStored(stored, content);
  if (comparison.kind === "identical") return { status: "already-present", sessionId };
  if (comparison.kind === "extends") {
    await store.append(sessionId, comparison.extra);
    return { status: "updated", sessionId, added: comparison.extra.length };
  }
  const conflict: ImportConflict = {
    sessionId,
    storedEntries: stored.entries.length,
    importedEntries: entries.length,
    sharedEntries: comparison.kind === "contained" ? entries.length : comparison.shared,
  };
  const choice = options.onConflict ? await options.onConflict(conflict) : undefined;
  if (choice === "replace") {
    await store.replace(header, entries);
    return { status: "replaced", sessionId };
  }
  if (choice === "keep-both") {
    const copy = { ...header, id: crypto.randomUUID() };
    await store.create(copy, entries);
    return { status: "kept-both", sessionId: copy.id, importedSessionId: sessionId };
  }
  return {
    status: "conflict",
    sessionId,
    conflict,
    reason: comparison.kind === "contained"
      ? `an older copy of the stored session ${sessionId} (the store has ${comparison.missing} more entries); nothing imported`
      : `a different session with id ${sessionId} is already stored (not overwritten)`,
  };
}

async function verifyReadBack(store: SessionStore, content: SessionContent, source?: string) {
  const expected = serializeSessionJsonl(content.header, content.entries);
  if ((await exportSessionJsonl(store, content.header.id)) === expected) return;
  await store.delete(content.header.id);
  throw new SessionStorageError(
    `${
      source ?? content.header.id
    }: the session did not read back byte for byte from the store; it was removed again`,
  );
}

/**
 * Parse JSONL (any format version; older ones are upgraded) and import it under the
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
  let parsed;
  try {
    parsed = await parseSessionJsonl(input, { source: options.source });
    assertNoParentCycle(parsed.entries, options.source); // storable, but never openable
  } catch (error) {
    if (error instanceof SessionFormatError) return { status: "invalid", error };
    throw error;
  }
  return await importParsedSession(store, parsed, options);
}
