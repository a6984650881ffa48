/**
 * The guards every store operation passes, in one place (as Kysely's `RuntimeDriver` wraps
 * each dialect's driver): a store closed by `close()` refuses every later call; `create`,
 * `replace` and `updateHeader` refuse a session id that could escape a folder; `create`
 * refuses an invalid header; writes refuse entries some store could not keep exactly, and a
 * batch that names one entry id twice or whose parent links close a cycle (a cycle closed
 * through stored entries each driver checks under its write lock, with
 * {@link assertNoCycleAcrossAppends}); `list` and
 * `search` reject at once with an aborted signal. A driver class calls {@link guardStoreClass}
 * once after its declaration (a class the core exports does it in its constructor, so a
 * bundle that never constructs it can drop it) and keeps only its own work: the conformance
 * suite checks every store it runs is guarded ({@link isGuardedStore}), so a new driver
 * cannot forget a guard.
 *
 * @module
 */
import {
  EntryConflictError,
  InvalidArgumentError,
  SessionFormatError,
  SessionStorageError,
} from "./errors.ts";
import { headerProblem } from "./_entry_check.ts";
import { toJsonLine } from "./jsonl.ts";
import { OPEN_LAZY } from "./lazy_store.ts";
import type { SessionEntry, SessionHeader } from "./schema.ts";
import { SessionIndex } from "./tree.ts";
import {
  assertStorableEntries,
  assertValidSessionId,
  type ListOptions,
  type SessionStore,
  throwIfAborted,
} from "./store.ts";

/** The store methods the wrapper guards when a driver has them. */
const STORE_METHODS = [
  "create",
  "append",
  "load",
  "replace",
  "updateHeader",
  "list",
  "delete",
  "has",
  "exportJsonl",
  "loadExact",
  "streamExact",
  "loadContext",
  "changeToken",
  "changeTokens",
  "search",
  OPEN_LAZY,
] as const;

/** What each method checks of its arguments before the driver sees them. */
const ARGUMENT_GUARDS: Partial<Record<string, (args: unknown[]) => void>> = {
  create([header, entries]) {
    assertValidSessionId((header as SessionHeader | undefined)?.id);
    assertValidHeader(header);
    assertWritableEntries(entries as readonly SessionEntry[] | undefined);
    assertNoParentCycle(entries as readonly SessionEntry[] | undefined);
  },
  append([sessionId, entries]) {
    assertWritableEntries(entries as readonly SessionEntry[]);
    assertNoAppendedCycle(sessionId as string, entries as readonly SessionEntry[]);
  },
  replace([header, entries]) {
    assertValidSessionId((header as SessionHeader | undefined)?.id);
    assertWritableEntries(entries as readonly SessionEntry[]);
    assertNoParentCycle(entries as readonly SessionEntry[]);
  },
  updateHeader([header]) {
    assertValidSessionId((header as SessionHeader | undefined)?.id);
  },
  list([options]) {
    throwIfAborted((options as ListOptions | undefined)?.signal);
  },
  search([, options]) {
    throwIfAborted((options as { signal?: AbortSignal } | undefined)?.signal);
  },
};

const closedStores = new WeakSet<object>();
const guardedPrototypes = new WeakSet<object>();

/**
 * Put the shared guards in front of a store class's methods: the {@link SessionStore}
 * methods it has, its own `extraMethods` (which then also refuse after `close()`), and
 * `close` (which marks the store closed before the driver releases anything). Call once,
 * right after the class declaration, or at the top of its constructor (later calls do nothing).
 *
 * @example
 * ```ts
 * import { guardStoreClass, isGuardedStore } from "./guarded_store.ts";
 * import { MemorySessionStore } from "./memory_store.ts";
 * isGuardedStore(new MemorySessionStore()); // true: memory_store.ts calls guardStoreClass
 * ```
 */
export function guardStoreClass(
  storeClass: { prototype: SessionStore },
  extraMethods: readonly PropertyKey[] = [],
): void {
  const prototype = storeClass.prototype as unknown as Record<PropertyKey, unknown>;
  if (guardedPrototypes.has(prototype)) return;
  guardedPrototypes.add(prototype);
  const kind = (store: object) => (store as SessionStore).kind;
  for (const name of [...STORE_METHODS, ...extraMethods]) {
    const method = prototype[name];
    if (typeof method !== "function") continue;
    const checkArguments = typeof name === "string" ? ARGUMENT_GUARDS[name] : undefined;
    // A computed key keeps the method's name in stack traces.
    const guarded: Record<PropertyKey, unknown> = {
      async [name](this: object, ...args: unknown[]): Promise<unknown> {
        assertStoreOpen(this, kind(this));
        checkArguments?.(args);
        return await method.apply(this, args);
      },
    };
    prototype[name] = guarded[name];
  }
  const close = prototype.close;
  if (typeof close !== "function") throw new TypeError("A session store needs a close method");
  prototype.close = async function close_(this: object): Promise<unknown> {
    closedStores.add(this);
    return await close.apply(this);
  };
}

/**
 * Whether the store's class went through {@link guardStoreClass}.
 *
 * @example
 * ```ts
 * import { isGuardedStore } from "./guarded_store.ts";
 * import { MemorySessionStore } from "./memory_store.ts";
 * isGuardedStore(new MemorySessionStore()); // true
 * ```
 */
export function isGuardedStore(store: SessionStore): boolean {
  for (let p = Object.getPrototypeOf(store); p; p = Object.getPrototypeOf(p)) {
    if (guardedPrototypes.has(p)) return true;
  }
  return false;
}

/**
 * Whether `close()` was called on a guarded store (for a driver's background work, which
 * no wrapper stands in front of).
 *
 * @example
 * ```ts
 * import { isStoreClosed } from "./guarded_store.ts";
 * import { MemorySessionStore } from "./memory_store.ts";
 * const store = new MemorySessionStore();
 * await store.close();
 * isStoreClosed(store); // true
 * ```
 */
export function isStoreClosed(store: object): boolean {
  return closedStores.has(store);
}

/**
 * Refuse a call on a closed store, for a driver's synchronous entry points (which the
 * asynchronous wrapper cannot stand in front of) and for work a call resumes after awaiting.
 *
 * @example
 * ```ts
 * import { assertStoreOpen } from "./guarded_store.ts";
 * import { MemorySessionStore } from "./memory_store.ts";
 * assertStoreOpen(new MemorySessionStore(), "memory"); // ok: not closed
 * ```
 */
export function assertStoreOpen(store: object, kind: string): void {
  if (closedStores.has(store)) throw new SessionStorageError(`The ${kind} session store is closed`);
}

/**
 * Refuse a header `create` could not store as a format-4 session header.
 *
 * @example
 * ```ts
 * import { assertValidHeader } from "./guarded_store.ts";
 * assertValidHeader({ type: "session", version: 4, id: "s", createdAt: "2026-01-01T00:00:00.000Z", cwd: "/p" });
 * ```
 */
export function assertValidHeader(header: unknown): asserts header is SessionHeader {
  const problem = headerProblem(header);
  if (problem !== undefined) throw new InvalidArgumentError(`Invalid session header: ${problem}`);
}

/**
 * Refuse entries a store could not keep exactly, or that name one entry id twice (a
 * session's entry ids are unique; a batch cannot be checked against itself by a store).
 *
 * @example
 * ```ts
 * import { assertWritableEntries } from "./guarded_store.ts";
 * assertWritableEntries([{ type: "label", id: "a", parentId: null, timestamp: "t", targetId: "b" }]);
 * ```
 */
export function assertWritableEntries(entries: readonly SessionEntry[] = []): void {
  assertStorableEntries(entries);
  if (entries.length < 2) return;
  const seen = new Set<string>();
  for (const { id } of entries) {
    if (seen.has(id)) {
      throw new EntryConflictError(
        "",
        id,
        `One write holds two entries with the id ${JSON.stringify(id)}`,
      );
    }
    seen.add(id);
  }
}

/**
 * Refuse a whole session (a `create` or `replace`, so every import) whose parent links form
 * a cycle: it could be stored but never opened or shown. The `SessionFormatError` names the
 * entry and its line as in the session's JSONL (the header is line 1).
 *
 * @example
 * ```ts
 * import { assertNoParentCycle } from "./guarded_store.ts";
 * const entry = (id: string, parentId: string) =>
 *   ({ type: "label", id, parentId, timestamp: "t", targetId: id }) as const;
 * assertNoParentCycle([entry("a", "b"), entry("b", "a")]); // throws: line 2
 * ```
 */
export function assertNoParentCycle(entries: readonly SessionEntry[] = [], source?: string): void {
  if (entries.length > 0) SessionIndex.build(entries, { source });
}

/**
 * Refuse an append whose entries make a parent cycle among themselves (an entry its own
 * parent, or one naming a parent later in the batch that leads back to it): the session
 * could be stored but never opened again. Only a batch with such a forward reference is
 * indexed; an append of entries whose parents come first costs one pass.
 *
 * @example
 * ```ts
 * import { assertNoAppendedCycle } from "./guarded_store.ts";
 * const entry = (id: string, parentId: string | null) =>
 *   ({ type: "label", id, parentId, timestamp: "t", targetId: id }) as const;
 * assertNoAppendedCycle("s", [entry("a", null), entry("b", "a")]); // fine
 * ```
 */
export function assertNoAppendedCycle(sessionId: string, entries: readonly SessionEntry[]): void {
  if (entries.length === 0) return;
  const ids = new Set(entries.map((entry) => entry.id));
  const seen = new Set<string>();
  for (const { id, parentId } of entries) {
    if (parentId !== null && ids.has(parentId) && !seen.has(parentId)) {
      try {
        assertNoParentCycle(entries);
      } catch (error) {
        if (!(error instanceof SessionFormatError)) throw error;
        // The line SessionIndex names counts within the batch, not the session's file.
        throw new SessionFormatError(`${error.reason}; nothing was appended`, {
          source: sessionId,
        });
      }
      return;
    }
    seen.add(id);
  }
}

/**
 * Refuse an append whose new entries close a parent cycle through entries stored by earlier
 * appends: a stored entry may name a parent not in the session yet (a dangling parent), and
 * an entry arriving later with that id whose parent chain leads back to it would make the
 * session one that can be stored but never opened. A driver calls this under the lock or
 * transaction of the write, after {@link newEntries}, with `danglingIds`: which of the new
 * entries' ids some stored entry names as its parent (a driver keeps or indexes its dangling
 * parents, so the usual answer, none, costs a lookup and no walk) and `storedParent`: a
 * stored entry's parent id (`undefined` when the session has no such entry).
 *
 * @example
 * ```ts
 * import { assertNoCycleAcrossAppends } from "./guarded_store.ts";
 * const entry = (id: string, parentId: string | null) =>
 *   ({ type: "label", id, parentId, timestamp: "t", targetId: id }) as const;
 * // Stored: x, whose parent "n" was not there; appending n below x closes n -> x -> n.
 * const stored = new Map([["x", "n"]]);
 * assertNoCycleAcrossAppends("s", [entry("n", "x")], new Set(["n"]), (id) => stored.get(id)); // throws
 * ```
 */
export function assertNoCycleAcrossAppends(
  sessionId: string,
  entries: readonly SessionEntry[],
  danglingIds: ReadonlySet<string>,
  storedParent: (id: string) => string | null | undefined,
): void {
  if (danglingIds.size === 0) return;
  const batchParent = new Map(entries.map((entry) => [entry.id, entry.parentId]));
  for (const { id, parentId } of entries) {
    if (!danglingIds.has(id)) continue;
    // The stored entries hold no cycle, so a walk from the new entry that does not come back
    // to it ends at a root, at a parent still missing, or (a cycle within the batch, which
    // `assertNoAppendedCycle` refused before) at an entry it met already.
    const met = new Set<string>();
    for (let cursor: string | null | undefined = parentId; typeof cursor === "string";) {
      if (cursor === id) {
        throw new SessionFormatError(
          `entry ${id} is its own ancestor (parentId cycle) through stored entries; nothing was appended`,
          { source: sessionId },
        );
      }
      if (met.has(cursor)) break;
      met.add(cursor);
      cursor = batchParent.has(cursor) ? batchParent.get(cursor) : storedParent(cursor);
    }
  }
}

/**
 * Which of a write's entries are new, given what the session already stores under their
 * ids (`storedText`: the stored JSON text for an id, or `undefined`): an entry stored byte
 * for byte is left out, so a retried append whose first try committed writes nothing; one
 * stored with other content rejects with {@link EntryConflictError}. Every driver calls it
 * with its own indexed lookup, under the lock or transaction of the write.
 *
 * @example
 * ```ts
 * import { newEntries } from "./guarded_store.ts";
 * const entry = { type: "label", id: "a", parentId: null, timestamp: "t", targetId: "b" } as const;
 * newEntries("s", [entry], () => JSON.stringify(entry)); // []: already stored
 * ```
 */
export function newEntries<T extends SessionEntry>(
  sessionId: string,
  entries: readonly T[],
  storedText: (id: string) => string | undefined,
): T[] {
  const fresh: T[] = [];
  for (const entry of entries) {
    const stored = storedText(entry.id);
    if (stored === undefined) fresh.push(entry);
    else if (stored !== toJsonLine(entry, "entry")) {
      throw new EntryConflictError(sessionId, entry.id);
    }
  }
  return fresh;
}
