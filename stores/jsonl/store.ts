/**
 * The JSONL session-folder store, written once over {@link JsonlFolderFs}: one format-4 file
 * per session named `<createdAt>_<hash of id>.jsonl`, older pi folders (`--<cwd>--/`) read
 * one level down. Appends are one write of complete lines under the file's lock, refused
 * after a torn tail, rolled back on failure; rewrites are atomic; listings fold headers and
 * entries through a (path, size, mtime) cache. Loading never rewrites a file.
 *
 * @module
 */
import { SessionExistsError, SessionNotFoundError, SessionStorageError } from "../../src/errors.ts";
import { serializeSessionJsonl, toJsonLine } from "../../src/jsonl.ts";
import {
  type ContextLoadingStore,
  contextOfLoaded,
  type LoadedContext,
} from "../../src/context_load.ts";
import { scanContext } from "./scan/_scan.ts";
import { type LazySession, OPEN_LAZY } from "../../src/lazy_index.ts";
import { LazyFiles } from "./_lazy.ts";
import type { SessionEntry, SessionHeader } from "../../src/schema.ts";
import { guardStoreClass } from "../../src/guarded_store.ts";
import {
  type CreatedSession,
  type ListOptions,
  type LoadedSession,
  type SessionInfo,
  type SessionStore,
  storageOperation,
} from "../../src/store.ts";
import {
  DEFAULT_LOCK_TIMEOUT_MS,
  hashSessionId,
  type JsonlFolderFs,
  sessionFileName,
} from "./_folder.ts";
import type { SessionLocator } from "./_locate.ts";
import { JsonlAppender } from "./_appender.ts";
import { JsonlListingCache } from "./_cache.ts";
import { KnownFiles } from "./_known.ts";
import { type LoadHow, loadSessionFile } from "./_load.ts";
import { streamSessionFile } from "./_stream.ts";
import { readHeader } from "./_head_line.ts";
import { type RepairReport, repairSessionFile } from "./_tail.ts";
import { fileChangeToken, listFolder, reportChangeTokens } from "./_listing.ts";
import { persistedListing } from "./_persist.ts";
import { removeResumeIndex, resumeIndexDir, scanFileOf } from "./scan/_resume_file.ts";
import { freshHeader, rewriteHeader } from "./_rewrite.ts";
import type { JsonlStoreOptions } from "./_options.ts";

export { TornTailError } from "./_tail.ts";
export type { JsonlStoreOptions } from "./_options.ts";
export type { RepairReport } from "./_tail.ts";

const encoder = new TextEncoder();

/**
 * A {@link SessionStore} over a folder of JSONL files (see the module doc for the rules).
 *
 * @example
 * ```ts
 * import { JsonlSessionStore } from "@mu/sessions/stores/jsonl";
 * import { NodeJsonlFolderFs } from "@mu/sessions/stores/jsonl";
 * const store = new JsonlSessionStore(new NodeJsonlFolderFs("/tmp/sessions"));
 * const rows = await store.list({ cwd: "/work/project" });
 * ```
 */
export class JsonlSessionStore implements SessionStore, ContextLoadingStore {
  readonly kind = "jsonl";
  readonly directory: string;
  readonly #fs: JsonlFolderFs;
  readonly #options: JsonlStoreOptions;
  readonly #files: KnownFiles;
  readonly #locator: SessionLocator;
  readonly #lazy: LazyFiles;
  #swept = false;
  readonly #appender: JsonlAppender;

  constructor(fs: JsonlFolderFs, options: JsonlStoreOptions = {}) {
    this.#fs = fs;
    this.#lazy = new LazyFiles(fs, options.resumeIndex !== false);
    this.#options = options;
    this.#files = new KnownFiles(fs, options.cache ?? new JsonlListingCache());
    this.#locator = this.#files.locator;
    // Kept: appends awaited back to back then take the lock file once (`_park.ts`).
    const locked = <T>(path: string, fn: () => Promise<T>) =>
      this.#locked(path, "append", fn, true);
    this.#appender = new JsonlAppender(fs, this.#files, options.durability ?? "durable", locked);
    this.directory = fs.root;
  }

  async create(
    header: SessionHeader,
    entries: readonly SessionEntry[] = [],
  ): Promise<CreatedSession> {
    const text = await storageOperation("create", () => serializeSessionJsonl(header, entries));
    const hash = await hashSessionId(header.id);
    const path = sessionFileName(header.createdAt, hash);
    // Creators of one id contend on one lock whatever their createdAt (and file name).
    return await this.#locked(`.${hash}.create`, "create", async () => {
      if (await this.#locator.locate(header.id)) throw new SessionExistsError(header.id);
      if (await this.#fs.stat(path)) {
        const where = this.#fs.describe(path);
        throw new SessionStorageError(`${where} exists but is not a readable session; move it`);
      }
      const bytes = encoder.encode(text);
      await this.#fs.writeAtomic(path, bytes);
      await this.#files.wrote(path, header, entries, bytes);
      return { id: header.id, path: this.#fs.describe(path) };
    });
  }

  append(sessionId: string, given: readonly SessionEntry[]): Promise<void> {
    return this.#appender.append(sessionId, given); // `_appender.ts`
  }

  async load(sessionId: string): Promise<LoadedSession> {
    // The file keeps the original text, so loading need not hold a second copy of it
    // (a second copy doubled a large session's memory at load).
    return await this.#load(sessionId, false);
  }

  /**
   * Optional fast path (see `ContextLoadingStore`): one pass over the file that checks
   * every line as `load` does but keeps only what the projection of `leafId` needs
   * (`scan/_scan.ts`); on any doubt, `load` and split (same answers, same errors).
   *
   * @example
   * ```ts
   * import { loadSessionProjection } from "@mu/sessions";
   * import type { JsonlSessionStore } from "@mu/sessions/stores/jsonl";
   * declare const store: JsonlSessionStore;
   * const loaded = await store.loadContext("s1"); // what loadSessionProjection reads
   * const projection = await loadSessionProjection(store, "s1");
   * ```
   */
  async loadContext(sessionId: string, leafId?: string | null): Promise<LoadedContext> {
    const path = await this.#files.require(sessionId);
    const file = scanFileOf(this.#fs, path, this.#options.resumeIndex !== false);
    const scanned = await scanContext(file, leafId);
    if (scanned?.header.id === sessionId) return scanned;
    return contextOfLoaded(await this.load(sessionId), leafId);
  }

  /** The lazy open behind `SessionManager.open` (`scan/_lazy_open.ts`); any doubt: undefined. */
  async [OPEN_LAZY](sessionId: string): Promise<LazySession | undefined> {
    return await this.#lazy.open(await this.#files.require(sessionId), sessionId);
  }

  async #load(sessionId: string, retainRaw: boolean): Promise<LoadedSession> {
    const path = await this.#files.require(sessionId);
    return await loadSessionFile(this.#fs, path, sessionId, this.#how(retainRaw));
  }

  /** How a read of one file reaches this store (`_load.ts`, `_stream.ts`). */
  #how(retainRaw: boolean): LoadHow {
    return {
      retainRaw,
      lockOptions: this.#lockOptions(),
      forget: (path: string) => this.#files.forget(path),
    };
  }

  /**
   * Atomically rewrite a session. With `ifStillOlderFormat` (persisting an upgrade), it
   * rejects, writing nothing, when the file is already format 4: another process persisted
   * the upgrade, and maybe appended, since this one loaded it, so load it again instead of
   * overwriting that work (v1 upgrades even generate different entry ids each time).
   */
  async replace(
    header: SessionHeader,
    entries: readonly SessionEntry[],
    options: { ifStillOlderFormat?: boolean } = {},
  ): Promise<void> {
    const text = await storageOperation("replace", () => serializeSessionJsonl(header, entries));
    const path = await this.#files.require(header.id);
    await this.#locked(path, "replace", async () => {
      const stat = await this.#fs.stat(path);
      if (!stat) throw new SessionNotFoundError(header.id);
      if (
        options.ifStillOlderFormat && !(await readHeader(this.#fs, path, stat.size)).needsUpgrade
      ) {
        this.#files.forget(path);
        throw new SessionStorageError(
          `${
            this.#fs.describe(path)
          } was upgraded by another writer since it was loaded; load it again`,
        );
      }
      const bytes = encoder.encode(text);
      await this.#fs.writeAtomic(path, bytes);
      await this.#files.wrote(path, header, entries, bytes);
    });
  }

  async updateHeader(header: SessionHeader): Promise<void> {
    await storageOperation("updateHeader", () => toJsonLine(header));
    const path = await this.#files.require(header.id);
    await this.#locked(path, "updateHeader", async () => {
      const { upgraded } = await rewriteHeader(this.#fs, path, header);
      if (upgraded) return await this.#files.wrote(path, header, upgraded.entries, upgraded.bytes);
      this.#files.forget(path);
      this.#locator.remember(path, header.id);
    });
  }

  async list(options: ListOptions = {}): Promise<SessionInfo[]> {
    const paths = await storageOperation("list", () => this.#locator.allPaths());
    if (!this.#swept) {
      // Once per store: what a crashed writer left (temp copies, locks) is removed when
      // provably dead, so it does not pile up; it never counted as a session anyway.
      this.#swept = true;
      const dirs = new Set(["", ...paths.map((path) => path.split("/").slice(0, -1).join("/"))]);
      for (const dir of [...dirs]) dirs.add(resumeIndexDir(dir)); // index writes' temp copies
      for (const dir of dirs) await this.#fs.sweep?.(dir).catch(() => {});
    }
    const how = {
      concurrency: this.#options.listConcurrency ?? 8,
      preferred: (a: string, b: string) => this.#locator.prefer(a, b),
    };
    const listing = () => listFolder(this.#fs, paths, this.#files.cache, options, how);
    const { rows, ids } = this.#options.persistListingCache === false
      ? await listing()
      : await persistedListing(this.#fs, this.#files.cache, paths, listing);
    for (const [path, id] of ids.paths) this.#locator.learnPath(path, id);
    for (const [id, path] of ids.chosen) {
      if (this.#locator.cached(id) === undefined) this.#locator.remember(path, id);
    }
    // Only where the listed file is the one the session is read from.
    reportChangeTokens(rows, ids, (id) => this.#locator.cached(id), options.onChangeToken);
    return rows;
  }

  async delete(sessionId: string): Promise<void> {
    const path = await this.#locator.locate(sessionId);
    if (!path) return;
    await this.#locked(path, "delete", async () => {
      const trashed = this.#options.useTrash !== false && this.#fs.trash
        ? await this.#fs.trash(path)
        : false;
      if (!trashed) await this.#fs.remove(path);
      await removeResumeIndex(this.#fs, path);
      this.#files.forget(path);
    });
  }

  /**
   * A token from the session file's size and modification time (changes with every
   * append, by any process), or without an id from every file's.
   */
  async changeToken(sessionId?: string): Promise<string> {
    if (sessionId !== undefined) {
      const stat = await this.#fs.stat(await this.#files.require(sessionId));
      return stat ? fileChangeToken(stat) : "gone";
    }
    const rows = await this.list({ includeInternal: true });
    return rows.map((row) => `${row.id}@${row.modified.getTime()}/${row.messageCount}`).join(",");
  }

  async has(sessionId: string): Promise<boolean> {
    return (await this.#locator.locate(sessionId)) !== undefined;
  }

  async close(): Promise<void> {
    this.#fs.idle?.(); // no lock file outlives the store
  }

  /** The session as format-4 JSONL: the file's own text when unchanged, upgraded otherwise. */
  /** `load` keeping each line's text, as `exportJsonl` joins them (see `SessionStore`). */
  async loadExact(sessionId: string): Promise<LoadedSession> {
    return await this.#load(sessionId, true);
  }

  /** `loadExact` in batches, the file read in chunks (see `SessionStore`, `_stream.ts`). */
  async streamExact(
    sessionId: string,
    options: { batchChars?: number } = {},
  ): Promise<AsyncIterable<LoadedSession>> {
    const path = await this.#files.require(sessionId);
    return streamSessionFile(this.#fs, path, sessionId, this.#how(true), options.batchChars);
  }

  async exportJsonl(sessionId: string): Promise<string> {
    // Parsed (validated, older formats upgraded) keeping each line's text: byte-identical.
    const { header, entries } = await this.#load(sessionId, true);
    return serializeSessionJsonl(header, entries);
  }

  /**
   * The file of a session (as shown to people), or undefined.
   *
   * @example
   * ```ts
   * import { openJsonlFsStore } from "@mu/sessions/stores/jsonl";
   * const store = await openJsonlFsStore("/tmp/sessions");
   * await store.pathOf("some-id"); // "/tmp/sessions/2026-..._<hash>.jsonl" or undefined
   * ```
   */
  async pathOf(sessionId: string): Promise<string | undefined> {
    const path = await this.#locator.locate(sessionId);
    return path === undefined ? undefined : this.#fs.describe(path);
  }

  /**
   * Serve a file by path (possibly outside the folder), creating it with a fresh format-4
   * header for `cwd` when it is missing. Resolves the session id in it. An existing file
   * that is empty (0 bytes) is refused with the parser's `SessionFormatError` ("empty
   * source: no session header"), never written into: the CLI, viewer and edge handler
   * reject the same file, and an empty file where a session was expected (a truncated
   * copy, another tool's placeholder) is something to look at, not to paper over.
   *
   * @example
   * ```ts
   * import { openJsonlFsStore } from "@mu/sessions/stores/jsonl";
   * const store = await openJsonlFsStore("/tmp/sessions");
   * const id = await store.openFile("/tmp/elsewhere/mine.jsonl", { cwd: "/work" });
   * ```
   */
  async openFile(path: string, options: { cwd: string }): Promise<string> {
    const existing = async () => {
      const stat = await this.#fs.stat(path);
      // An empty file (`mktemp` first, then open) is a session to start, as a missing one.
      if (!stat || stat.size === 0) return undefined;
      const { id } = await readHeader(this.#fs, path, stat.size);
      this.#locator.pin(id, path);
      return id;
    };
    // Reading an existing file takes no lock (its folder may be read-only).
    const found = await storageOperation("open", existing);
    if (found !== undefined) return found;
    return await this.#locked(path, "open", async () => {
      const raced = await existing();
      if (raced !== undefined) return raced;
      const header = freshHeader(options.cwd);
      const bytes = encoder.encode(serializeSessionJsonl(header, []));
      await this.#fs.writeAtomic(path, bytes);
      await this.#files.wrote(path, header, [], bytes);
      this.#locator.pin(header.id, path);
      return header.id;
    });
  }

  /**
   * Repair the end of a session file: keeps a backup copy, drops a torn final record or
   * terminates a complete one, and reports what it did. Never automatic. A string is always
   * a session id (`"a.jsonl"` is a valid id, not a file); pass `{ path }` for a file, e.g.
   * one whose header is unreadable so no id finds it.
   *
   * @example
   * ```ts
   * import { openJsonlFsStore } from "@mu/sessions/stores/jsonl";
   * const store = await openJsonlFsStore("/tmp/sessions");
   * const report = await store.repairSession("some-id");
   * console.log(report.action, report.backupPath);
   * await store.repairSession({ path: "/tmp/sessions/2026-01-01T00-00-00-000Z_ab12.jsonl" });
   * ```
   */
  async repairSession(session: string | { path: string }): Promise<RepairReport> {
    const path = typeof session === "string"
      ? this.#locator.cached(session) ?? await this.#files.require(session)
      : session.path;
    this.#files.forget(path);
    return await this.#locked(path, "repair", () => repairSessionFile(this.#fs, path));
  }

  // ------------------------------------------------------------------ locking

  #lockOptions() {
    return { timeoutMs: this.#options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS };
  }

  /** Run `fn` holding the lock of `path`; non-library errors become `SessionStorageError`. */
  async #locked<T>(path: string, what: string, fn: () => Promise<T>, keep = false): Promise<T> {
    const release = await this.#fs.lock(path, { ...this.#lockOptions(), keep });
    let failed = true;
    try {
      if (what !== "append") this.#lazy.detach(path); // a rewrite moves their offsets
      const result = await storageOperation(what, fn);
      failed = false;
      return result;
    } finally {
      await release();
      // A refused or failed append keeps no lock: its writer may well not be back soon.
      if (keep && failed) this.#fs.idle?.();
    }
  }
}

guardStoreClass(JsonlSessionStore, ["pathOf", "openFile", "repairSession"]);
