/**
 * SessionManager: one open session over any {@link SessionStore}. Factories and mutations
 * are async and resolve only once the store committed; getters and builders (inherited
 * from {@link SessionView}) are sync over the loaded index. A failed write rejects with the
 * store's typed error and publishes nothing (entries, leaf and projection stay as they were).
 *
 * Each append method builds its entry body in `_entry_bodies.ts`; here it is given its id,
 * parent and timestamp and goes through the one serialised append (commit, then publish).
 * Opening, creating, importing and forking are in `_manager_open.ts`.
 *
 * @module
 */
import { InvalidArgumentError } from "./errors.ts";
import {
  assertValidEntry,
  type Body,
  branchSummaryBody,
  compactionBody,
  contextEditBody,
  customMessageBody,
  labelBody,
  sessionInfoBody,
  sessionSummaryBody,
} from "./_entry_bodies.ts";
import { generateEntryId } from "./_migrate.ts";
import {
  continueRecentSession,
  createSession,
  forkJsonlFile,
  forkSession,
  importJsonl,
  listingStore,
  type OpenedSession,
  openSession,
  storeAndCwd,
  storeOrJsonlDir,
  type StoreOrPath,
} from "./_manager_open.ts";
import type { AgentMessage, SessionEntry, UserContentBlock, WorkflowMarker } from "./schema.ts";
import { branchedSession } from "./_branching.ts";
import {
  buildHeader,
  type ContinueRecentOptions,
  type ListSessionsOptions,
  markedInternal,
  type NewSessionOptions,
  type ProgressCallback,
} from "./session_options.ts";
import { SessionView } from "./session_view.ts";
import { type SearchHit, type SearchOptions, searchSessions } from "./search.ts";
import type { SessionInfo, SessionStore } from "./store.ts";
import { MemorySessionStore } from "./memory_store.ts";

export type { SessionNameState } from "./session_view.ts";

/**
 * A session open for reading and appending.
 *
 * @example
 * ```ts
 * import { MemorySessionStore, SessionManager } from "@mu/sessions";
 * const store = new MemorySessionStore();
 * const manager = await SessionManager.create(store, "/project");
 * const userId = await manager.appendMessage({ role: "user", content: "hi", timestamp: Date.now() });
 * manager.getLeafId() === userId; // true
 * const reopened = await SessionManager.open(store, manager.getSessionId());
 * reopened.getEntries().length; // 1
 * ```
 */
export class SessionManager extends SessionView {
  #store: SessionStore;
  #writes: Promise<unknown> = Promise.resolve();

  private constructor(opened: OpenedSession) {
    super(opened, opened.cwd);
    this.#store = opened.store;
  }

  // ------------------------------------------------------------ factories

  /** New session: `create(store, cwd, options?)` or `create(cwd, sessionDir?, options?)`. */
  static async create(
    storeOrCwd: StoreOrPath,
    cwdOrDir?: string,
    options: NewSessionOptions = {},
  ): Promise<SessionManager> {
    const { store, cwd } = await storeAndCwd(storeOrCwd, cwdOrDir);
    return new SessionManager(await createSession(store, buildHeader(cwd, options), []));
  }

  /**
   * Open an existing session: `open(store, sessionId, cwdOverride?)` (a missing id raises
   * `SessionNotFoundError`), or `open(path, sessionDir?, cwdOverride?)` for a JSONL file
   * (created when missing; an existing empty file is refused with `SessionFormatError`
   * "empty source: no session header", like the parser). An older format is upgraded, and the upgrade persisted by the
   * store, before anything new is written.
   */
  static async open(
    storeOrPath: StoreOrPath,
    idOrDir?: string,
    cwdOverride?: string,
  ): Promise<SessionManager> {
    return new SessionManager(await openSession(storeOrPath, idOrDir, cwdOverride));
  }

  /** Continue the most recent regular session of `cwd`, or create one. */
  static async continueRecent(
    storeOrCwd: StoreOrPath,
    cwdOrDir?: string,
    options: ContinueRecentOptions = {},
  ): Promise<SessionManager> {
    return new SessionManager(await continueRecentSession(storeOrCwd, cwdOrDir, options));
  }

  /**
   * A session in a new {@link MemorySessionStore}, with no file-system I/O. Synchronous
   * (awaiting it is harmless); `entries` seed the session and are validated.
   */
  static inMemory(
    cwd = "",
    options: NewSessionOptions = {},
    entries: SessionEntry[] = [],
  ): SessionManager {
    for (const entry of entries) assertValidEntry(entry);
    const store = new MemorySessionStore();
    const header = buildHeader(cwd, options);
    store.seed(header, entries);
    return new SessionManager({ store, header, entries: [...entries] });
  }

  /** Fork a JSONL file (upgraded first) into a new session in the configured or explicit destination. */
  static async forkFrom(
    sourcePath: string,
    targetCwd: string,
    sessionDir?: string,
    options: NewSessionOptions = {},
  ): Promise<SessionManager> {
    return new SessionManager(await forkJsonlFile(sourcePath, targetCwd, sessionDir, options));
  }

  /**
   * Import a JSONL export keeping its id (older formats upgraded). `input` is a file path
   * (runtime storage) or the bytes/stream itself. An existing id raises `SessionExistsError`.
   */
  static async importFromJsonl(
    input: string | Uint8Array | ReadableStream<Uint8Array>,
    cwd: string,
    targetStoreOrDir?: StoreOrPath,
  ): Promise<SessionManager> {
    return new SessionManager(await importJsonl(input, cwd, targetStoreOrDir));
  }

  /** List the sessions of `cwd` (workflow sessions excluded unless `includeInternal`). */
  static async list(
    cwd: string,
    storeOrDir?: StoreOrPath,
    onProgress?: ProgressCallback,
    options: ListSessionsOptions = {},
  ): Promise<SessionInfo[]> {
    return await (await listingStore(storeOrDir, cwd)).list({ ...options, cwd, onProgress });
  }

  /** List sessions across projects in the selected store. */
  static async listAll(
    storeOrDir?: StoreOrPath,
    onProgress?: ProgressCallback,
    options: ListSessionsOptions = {},
  ): Promise<SessionInfo[]> {
    return await (await listingStore(storeOrDir)).list({ ...options, onProgress });
  }

  /**
   * Search the sessions of the selected store (as for {@link list}: a store, a JSONL
   * directory, or the default store of `options.cwd` / the current directory). Hits are
   * best first, newest first among equal scores; the store's index when it has one.
   *
   * @example
   * ```ts
   * import { MemorySessionStore, SessionManager } from "@mu/sessions";
   * const hits = await SessionManager.search("refreshTok", new MemorySessionStore(), { cwd: "/project" });
   * ```
   */
  static async search(
    query: string,
    storeOrDir?: StoreOrPath,
    options: SearchOptions = {},
  ): Promise<SearchHit[]> {
    return await searchSessions(await listingStore(storeOrDir, options.cwd), query, options);
  }

  // ------------------------------------------------------------ writing

  /** Serialise mutations so each one chains onto the last committed entry. */
  #enqueue<T>(operation: () => Promise<T>): Promise<T> {
    const run = this.#writes.then(operation, operation);
    this.#writes = run.catch(() => {});
    return run;
  }

  /** Append one entry; a builder reads manager state (the leaf) only once earlier writes settled. */
  #append(bodyOrBuilder: Body | (() => Body), parentId?: string | null): Promise<string> {
    return this.#enqueue(async () => {
      const body = typeof bodyOrBuilder === "function" ? bodyOrBuilder() : bodyOrBuilder;
      const entry = {
        type: body.type,
        id: generateEntryId(this.index.byId),
        parentId: parentId === undefined ? this.leafId : parentId,
        timestamp: new Date().toISOString(),
        ...body,
      } as SessionEntry;
      assertValidEntry(entry);
      await this.#store.append(this.header.id, [entry]);
      this.publish(entry); // only after the store committed
      return entry.id;
    });
  }

  /** Add a message; resolves with the entry id. */
  appendMessage(message: AgentMessage): Promise<string> {
    return this.#append({ type: "message", message });
  }

  /** Record a thinking-level change. */
  appendThinkingLevelChange(thinkingLevel: string): Promise<string> {
    return this.#append({ type: "thinking_level_change", thinkingLevel });
  }

  /** Record a context-window selection, in tokens. */
  appendContextWindowChange(contextWindow: number): Promise<string> {
    return this.#append({ type: "context_window_change", contextWindow });
  }

  /** Record a model change. */
  appendModelChange(provider: string, modelId: string): Promise<string> {
    return this.#append({ type: "model_change", provider, modelId });
  }

  /**
   * Add a durable verbatim-line compaction boundary. `firstKeptEntryId` must exist, or be
   * `null` when no pre-boundary message is retained. `details.strategy` defaults to
   * `"verbatim-lines"` (what makes the boundary active); `rung: "extension"` sets `fromHook`.
   */
  async appendCompaction(
    compactedText: string,
    firstKeptEntryId: string | null,
    tokensBefore: number,
    details: Record<string, unknown> = {},
  ): Promise<string> {
    if (firstKeptEntryId !== null) this.requireEntry(firstKeptEntryId);
    return await this.#append(
      compactionBody(compactedText, firstKeptEntryId, tokensBefore, details),
    );
  }

  /** Persist extension state (never part of model context). */
  appendCustomEntry(customType: string, data?: unknown): Promise<string> {
    return this.#append(
      data === undefined ? { type: "custom", customType } : { type: "custom", customType, data },
    );
  }

  /** Add an extension message that is part of model context. */
  appendCustomMessageEntry(
    customType: string,
    content: string | UserContentBlock[],
    display: boolean,
    details?: unknown,
  ): Promise<string> {
    return this.#append(customMessageBody(customType, content, display, details));
  }

  /** Set the display name; an empty (or blank) name clears it durably. */
  async appendSessionInfo(name: string): Promise<string> {
    return await this.#append(sessionInfoBody(name));
  }

  /** Store a generated picker summary (whitespace collapsed, length clamped) anchored to a message. */
  async appendSessionSummary(
    summary: string,
    summarizedThroughId: string,
    usage?: { input?: number; output?: number },
  ): Promise<string> {
    this.requireEntry(summarizedThroughId);
    return await this.#append(sessionSummaryBody(summary, summarizedThroughId, usage));
  }

  /** Set (or with `undefined` / `""`, clear) the label of an entry. */
  async appendLabelChange(targetId: string, label: string | undefined): Promise<string> {
    this.requireEntry(targetId);
    return await this.#append(labelBody(targetId, label));
  }

  /**
   * Append a branch-local context edit of a user, assistant, tool-result or custom-message
   * entry: `null` omits it from model context, `{ content }` replaces only its content.
   * System messages are never edited.
   */
  async appendContextEdit(
    targetId: string,
    replacement: { content: string | unknown[] } | null,
  ): Promise<string> {
    return await this.#append(contextEditBody(this.requireEntry(targetId), replacement));
  }

  /** Branch from `entryId` (or `null`: a new root) with a summary; `fromId` records the leaf left behind. */
  async branchWithSummary(
    entryId: string | null,
    summary: string,
    details?: unknown,
    fromHook?: boolean,
  ): Promise<string> {
    if (entryId !== null) this.requireEntry(entryId);
    return await this.#append(
      () => branchSummaryBody(this.leafId, summary, details, fromHook),
      entryId,
    );
  }

  // ------------------------------------------------------------ store and session management

  /** The active store. */
  getSessionStore(): SessionStore {
    return this.#store;
  }

  /** Local JSONL directory, or `""` for non-JSONL storage. */
  getSessionDir(): string {
    return this.#store.directory ?? "";
  }

  /** Whether the store is not a memory store. */
  isPersisted(): boolean {
    return this.#store.kind !== "memory";
  }

  /** Start a new, empty session in the same store and switch to it; resolves with its id. */
  newSession(options: NewSessionOptions = {}): Promise<string> {
    return this.#enqueue(async () => {
      const opened = await createSession(this.#store, buildHeader(this.cwd, options), []);
      this.load(opened);
      return opened.header.id;
    });
  }

  /** Apply valid workflow ownership; keeps an existing valid marker, repairs malformed ones. */
  markSessionInternal(workflow?: WorkflowMarker): Promise<void> {
    return this.#enqueue(async () => {
      const header = markedInternal(this.header, workflow);
      if (!header) return;
      await this.#store.updateHeader(header);
      this.header = header;
    });
  }

  /** Extract the path to `leafId` into a new session in the same store and switch to it. */
  createBranchedSession(leafId: string): Promise<string> {
    return this.#enqueue(async () => {
      // Checked once earlier writes settled (the leaf may be in flight), and as a rejection.
      this.requireEntry(leafId);
      const branch = branchedSession(this.header, this.index, leafId, this.cwd);
      const opened = await createSession(this.#store, branch.header, branch.entries);
      this.load(opened);
      return branch.header.id;
    });
  }

  /** Copy the whole session (all branches) into a new session at the destination. */
  async forkTo(
    cwd: string,
    targetStoreOrDir?: StoreOrPath,
    options: NewSessionOptions = {},
  ): Promise<SessionManager> {
    const store = targetStoreOrDir === undefined
      ? this.#store
      : await storeOrJsonlDir(targetStoreOrDir);
    await this.#writes;
    const source = { header: this.header, entries: [...this.index.entries] };
    return new SessionManager(await forkSession(store, source, cwd, options));
  }

  /** Delete another session from the active store (the open one is refused; unknown ids do nothing). */
  async deleteSession(sessionId: string): Promise<void> {
    if (sessionId === this.header.id) {
      throw new InvalidArgumentError("Refusing to delete the session this manager has open");
    }
    await this.#store.delete(sessionId);
  }

  /** Switch this manager to a JSONL file (created when missing; an empty file is refused). */
  setSessionFile(path: string): Promise<void> {
    return this.#enqueue(async () => {
      const opened = await openSession(path, undefined, this.cwd);
      this.#store = opened.store;
      this.load(opened); // cwd from the file header
    });
  }
}
