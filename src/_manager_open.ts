/**
 * How the SessionManager factories find their store and data: an explicit store, a JSONL
 * directory or file (through the registered runtime storage), or the configured default.
 * Each returns an {@link OpenedSession}; the manager wraps it. Nothing here falls back to
 * memory: a store that cannot open rejects.
 *
 * @module
 */
import { InvalidArgumentError } from "./errors.ts";
import { parseSessionJsonl } from "./jsonl.ts";
import { runtimeStorage } from "./runtime.ts";
import type { SessionEntry, SessionHeader } from "./schema.ts";
import {
  buildHeader,
  type ContinueRecentOptions,
  inheritedClassification,
  isSessionStore,
  type NewSessionOptions,
} from "./session_options.ts";
import type { SessionStore } from "./store.ts";
import { canOpenLazy, LazyIndex, OPEN_LAZY } from "./lazy_index.ts";
import type { LazySource } from "./session_view.ts";

/**
 * A store or, for the path-based overloads, a directory or file path.
 *
 * @example
 * ```ts
 * import { MemorySessionStore, SessionManager } from "@mu/sessions";
 * import { type StoreOrPath } from "./_manager_open.ts";
 * const where: StoreOrPath = new MemorySessionStore(); // or "/path/to/sessions"
 * await SessionManager.create(where, "/project");
 * ```
 */
export type StoreOrPath = SessionStore | string;

/** A session ready to be wrapped by a manager (`lazy`: indexed lazily, `entries` unused). */
export interface OpenedSession {
  store: SessionStore;
  header: SessionHeader;
  entries: SessionEntry[];
  path?: string;
  cwd?: string;
  lazy?: LazySource["lazy"];
}

/** The store for `cwd`: an explicit JSONL directory, else the configured default. */
export async function resolveStore(
  cwd: string,
  sessionDir: string | undefined,
): Promise<SessionStore> {
  const runtime = runtimeStorage();
  return sessionDir === undefined
    ? await runtime.defaultStore(cwd)
    : await runtime.jsonlStore(sessionDir);
}

/** An explicit store, or the JSONL store of a directory. */
export async function storeOrJsonlDir(storeOrDir: StoreOrPath): Promise<SessionStore> {
  return isSessionStore(storeOrDir) ? storeOrDir : await runtimeStorage().jsonlStore(storeOrDir);
}

/** The store and cwd of the `(store, cwd)` / `(cwd, sessionDir?)` overload pair. */
export async function storeAndCwd(storeOrCwd: StoreOrPath, cwdOrDir: string | undefined) {
  return isSessionStore(storeOrCwd)
    ? { store: storeOrCwd, cwd: cwdOrDir ?? "" }
    : { store: await resolveStore(storeOrCwd, cwdOrDir), cwd: storeOrCwd };
}

/** Create a session (header and initial entries, atomically) in `store`. */
export async function createSession(
  store: SessionStore,
  header: SessionHeader,
  entries: SessionEntry[],
): Promise<OpenedSession> {
  const created = await store.create(header, entries);
  return { store, header, entries, path: created.path };
}

/**
 * Load a session for writing. An older format was upgraded in memory; the upgrade is
 * persisted (atomically, by the store) before the manager can write anything new.
 */
export async function openSession(
  storeOrPath: StoreOrPath,
  idOrDir?: string,
  cwdOverride?: string,
): Promise<OpenedSession> {
  let store: SessionStore;
  let sessionId: string;
  if (isSessionStore(storeOrPath)) {
    if (idOrDir === undefined) {
      throw new InvalidArgumentError("open(store, sessionId) needs a session id");
    }
    store = storeOrPath;
    sessionId = idOrDir;
  } else {
    const runtime = runtimeStorage();
    const file = await runtime.openJsonlFile(storeOrPath, {
      sessionDir: idOrDir,
      cwd: cwdOverride ?? runtime.cwd(),
    });
    store = file.store;
    sessionId = file.sessionId;
  }
  if (canOpenLazy(store)) {
    // Entries parsed on demand (src/lazy_index.ts); any doubt: the full load below decides.
    const session = await store[OPEN_LAZY](sessionId);
    const index = session && LazyIndex.from(session);
    if (index) {
      const { header, path, listing } = session;
      return { store, header, entries: [], path, cwd: cwdOverride, lazy: { index, listing } };
    }
  }
  let loaded = await store.load(sessionId);
  if (loaded.upgraded) {
    try {
      await store.replace(loaded.header, loaded.entries, { ifStillOlderFormat: true });
    } catch (error) {
      // Another process may have persisted the upgrade (and appended) since our load:
      // take its version rather than overwrite it.
      loaded = await store.load(sessionId);
      if (loaded.upgraded) throw error;
    }
  }
  return {
    store,
    header: loaded.header,
    entries: loaded.entries,
    path: loaded.path,
    cwd: cwdOverride,
  };
}

/** The most recent regular session of `cwd` (or any, with `includeInternal`), else a new one. */
export async function continueRecentSession(
  storeOrCwd: StoreOrPath,
  cwdOrDir: string | undefined,
  options: ContinueRecentOptions,
): Promise<OpenedSession> {
  const { store, cwd } = await storeAndCwd(storeOrCwd, cwdOrDir);
  const { includeInternal, ...newOptions } = options;
  const [recent] = await store.list({ cwd, includeInternal });
  if (recent) return await openSession(store, recent.id);
  return await createSession(store, buildHeader(cwd, newOptions), []);
}

/** Fork a JSONL file, upgraded first, into a new session at the destination. */
export async function forkJsonlFile(
  sourcePath: string,
  targetCwd: string,
  sessionDir: string | undefined,
  options: NewSessionOptions,
): Promise<OpenedSession> {
  const bytes = await runtimeStorage().readFile(sourcePath);
  const source = await parseSessionJsonl(bytes, { source: sourcePath, retainRaw: false });
  return await forkSession(await resolveStore(targetCwd, sessionDir), source, targetCwd, options);
}

/**
 * Copy `source` (all branches) into a new session in `store`, its header naming `source` as
 * its parent and keeping a workflow session's classification.
 */
export async function forkSession(
  store: SessionStore,
  source: { header: SessionHeader; entries: SessionEntry[] },
  cwd: string,
  options: NewSessionOptions,
): Promise<OpenedSession> {
  const header = buildHeader(
    cwd,
    { parentSession: source.header.id, ...options },
    inheritedClassification(source.header),
  );
  return await createSession(store, header, source.entries);
}

/** Import a JSONL export keeping its id; `input` is a path or the data itself. */
export async function importJsonl(
  input: string | Uint8Array | ReadableStream<Uint8Array>,
  cwd: string,
  targetStoreOrDir: StoreOrPath | undefined,
): Promise<OpenedSession> {
  const source = typeof input === "string" ? await runtimeStorage().readFile(input) : input;
  const parsed = await parseSessionJsonl(source, {
    source: typeof input === "string" ? input : undefined,
  });
  const store = isSessionStore(targetStoreOrDir)
    ? targetStoreOrDir
    : await resolveStore(cwd, targetStoreOrDir);
  return await createSession(store, parsed.header, parsed.entries);
}

/** The store `listAll` reads: explicit store, a JSONL directory, or the default. */
export async function listingStore(
  storeOrDir: StoreOrPath | undefined,
  cwd?: string,
): Promise<SessionStore> {
  if (isSessionStore(storeOrDir)) return storeOrDir;
  return await resolveStore(cwd ?? runtimeStorage().cwd(), storeOrDir);
}
