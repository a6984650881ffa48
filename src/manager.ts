/**
 * SessionManager: one open session over any {@link SessionStore}. Factories and mutations
 * are async and resolve only once the store committed; getters and builders are sync over
 * the loaded index. A failed write rejects with the store's typed error and publishes
 * nothing (entries, leaf and projection stay as they were).
 *
 * @module
 */
import { EntryNotFoundError, InvalidArgumentError } from "./errors.ts";
import { type ParsedSession, parseSessionJsonl } from "./jsonl.ts";
import { applyEntryToListing, type ListingState, listingStateOf } from "./listing.ts";
import { generateEntryId } from "./migrate.ts";
import {
  buildContextEntries,
  buildSessionContext,
  buildSessionProjection,
  type SessionContext,
  type SessionProjection,
} from "./projection.ts";
import { runtimeStorage } from "./runtime.ts";
import {
  type AgentMessage,
  type CompactionEntry,
  isCompleteWorkflowMarker,
  isWorkflowInternal,
  type SessionEntry,
  type SessionHeader,
  type UserContentBlock,
  validateEntry,
  type WorkflowMarker,
} from "./schema.ts";
import { branchEntries } from "./branching.ts";
import {
  buildHeader,
  type ContinueRecentOptions,
  inheritedClassification,
  isSessionStore,
  type ListSessionsOptions,
  type NewSessionOptions,
  normalizeSummary,
  type ProgressCallback,
} from "./session_options.ts";
import { SessionIndex, type SessionTreeNode } from "./tree.ts";
import { type UsageTotals, usageTotals } from "./usage.ts";
import type { LoadedSession, SessionInfo, SessionStore } from "../stores/store.ts";
import { MemorySessionStore } from "../stores/memory.ts";

/** Name state: never named, cleared, or named. */
export type SessionNameState = { hasName: false } | { hasName: true; name?: string };

/** Distributive omit, so each entry variant keeps its own fields. */
type EntryBody<T> = T extends SessionEntry ? Omit<T, "id" | "parentId" | "timestamp"> : never;

type StoreOrPath = SessionStore | string;

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
export class SessionManager {
  #store: SessionStore;
  #header: SessionHeader;
  #index: SessionIndex;
  #listing: ListingState;
  #leafId: string | null;
  #path: string | undefined;
  #cwd: string;
  #writes: Promise<unknown> = Promise.resolve();

  private constructor(
    store: SessionStore,
    session: LoadedSession | ParsedSession & { path?: string },
    cwd?: string,
  ) {
    this.#store = store;
    this.#header = session.header;
    this.#index = SessionIndex.build(session.entries, {
      source: session.path ?? session.header.id,
    });
    this.#listing = listingStateOf(session.entries);
    this.#leafId = this.#index.lastEntry?.id ?? null;
    this.#path = session.path;
    this.#cwd = cwd ?? session.header.cwd ?? "";
  }

  // ------------------------------------------------------------ factories

  /** New session: `create(store, cwd, options?)` or `create(cwd, sessionDir?, options?)`. */
  static async create(
    storeOrCwd: StoreOrPath,
    cwdOrDir?: string,
    options: NewSessionOptions = {},
  ): Promise<SessionManager> {
    const { store, cwd } = isSessionStore(storeOrCwd)
      ? { store: storeOrCwd, cwd: cwdOrDir ?? "" }
      : { store: await resolveStore(storeOrCwd, cwdOrDir), cwd: storeOrCwd };
    return await SessionManager.#createIn(store, buildHeader(cwd, options), []);
  }

  static async #createIn(
    store: SessionStore,
    header: SessionHeader,
    entries: SessionEntry[],
  ): Promise<SessionManager> {
    const created = await store.create(header, entries);
    return new SessionManager(store, {
      header,
      entries,
      sourceVersion: 4,
      upgraded: false,
      path: created.path,
    });
  }

  /**
   * Open an existing session: `open(store, sessionId, cwdOverride?)` (missing id:
   * `SessionNotFoundError`), or `open(path, sessionDir?, cwdOverride?)` for a JSONL file
   * (created when missing). An older-format session is upgraded and the upgrade is
   * persisted (atomically, by the store) before anything new is written.
   */
  static async open(
    storeOrPath: StoreOrPath,
    idOrDir?: string,
    cwdOverride?: string,
  ): Promise<SessionManager> {
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
    const loaded = await store.load(sessionId);
    if (loaded.upgraded) await store.replace(loaded.header, loaded.entries);
    return new SessionManager(store, loaded, cwdOverride);
  }

  /** Continue the most recent regular session of `cwd`, or create one. */
  static async continueRecent(
    storeOrCwd: StoreOrPath,
    cwdOrDir?: string,
    options: ContinueRecentOptions = {},
  ): Promise<SessionManager> {
    const { store, cwd } = isSessionStore(storeOrCwd)
      ? { store: storeOrCwd, cwd: cwdOrDir ?? "" }
      : { store: await resolveStore(storeOrCwd, cwdOrDir), cwd: storeOrCwd };
    const [recent] = await store.list({ cwd, includeInternal: options.includeInternal });
    if (recent) return await SessionManager.open(store, recent.id);
    const { includeInternal: _ignored, ...newOptions } = options;
    return await SessionManager.create(store, cwd, newOptions);
  }

  /**
   * A session in a new {@link MemorySessionStore}: no file-system I/O. Synchronous (awaiting
   * it is harmless). `entries` seed the session (validated and indexed).
   */
  static inMemory(
    cwd = "",
    options: NewSessionOptions = {},
    entries: SessionEntry[] = [],
  ): SessionManager {
    for (const entry of entries) {
      const problem = validateEntry(entry);
      if (problem) {
        throw new InvalidArgumentError(`invalid ${String(entry.type)} entry: ${problem}`);
      }
    }
    const store = new MemorySessionStore();
    const header = buildHeader(cwd, options);
    store.seed(header, entries);
    return new SessionManager(store, {
      header,
      entries: [...entries],
      sourceVersion: 4,
      upgraded: false,
    });
  }

  /** Fork a JSONL file (upgraded first) into a new session in the configured or explicit destination. */
  static async forkFrom(
    sourcePath: string,
    targetCwd: string,
    sessionDir?: string,
    options: NewSessionOptions = {},
  ): Promise<SessionManager> {
    const runtime = runtimeStorage();
    const source = await parseSessionJsonl(await runtime.readFile(sourcePath), {
      source: sourcePath,
      retainRaw: false,
    });
    const store = await resolveStore(targetCwd, sessionDir);
    const header = buildHeader(
      targetCwd,
      { parentSession: source.header.id, ...options },
      inheritedClassification(source.header),
    );
    return await SessionManager.#createIn(store, header, source.entries);
  }

  /**
   * Import a JSONL export keeping its id (older formats upgraded). `input` is a file path
   * (runtime storage) or the bytes/text/stream itself. An existing id: `SessionExistsError`.
   */
  static async importFromJsonl(
    input: string | Uint8Array | ReadableStream<Uint8Array>,
    cwd: string,
    targetStoreOrDir?: StoreOrPath,
  ): Promise<SessionManager> {
    const source = typeof input === "string" ? await runtimeStorage().readFile(input) : input;
    const parsed = await parseSessionJsonl(source, {
      source: typeof input === "string" ? input : undefined,
    });
    const store = isSessionStore(targetStoreOrDir)
      ? targetStoreOrDir
      : await resolveStore(cwd, targetStoreOrDir);
    return await SessionManager.#createIn(store, parsed.header, parsed.entries);
  }

  /** List the sessions of `cwd` (workflow sessions excluded unless `includeInternal`). */
  static async list(
    cwd: string,
    storeOrDir?: StoreOrPath,
    onProgress?: ProgressCallback,
    options: ListSessionsOptions = {},
  ): Promise<SessionInfo[]> {
    const store = isSessionStore(storeOrDir) ? storeOrDir : await resolveStore(cwd, storeOrDir);
    return await store.list({ ...options, cwd, onProgress });
  }

  /** List sessions across projects in the selected store. */
  static async listAll(
    storeOrDir?: StoreOrPath,
    onProgress?: ProgressCallback,
    options: ListSessionsOptions = {},
  ): Promise<SessionInfo[]> {
    const store = isSessionStore(storeOrDir)
      ? storeOrDir
      : await resolveStore(runtimeStorage().cwd(), storeOrDir);
    return await store.list({ ...options, onProgress });
  }

  // ------------------------------------------------------------ writing

  /** Serialise mutations so each one chains onto the last committed entry. */
  #enqueue<T>(operation: () => Promise<T>): Promise<T> {
    const run = this.#writes.then(operation, operation);
    this.#writes = run.catch(() => {});
    return run;
  }

  /** Append one entry built from `body`; resolves with its id once committed. */
  #append(
    bodyOrBuilder: EntryBody<SessionEntry> | (() => EntryBody<SessionEntry>),
    parentId?: string | null,
  ): Promise<string> {
    return this.#enqueue(async () => {
      // A builder reads manager state (e.g. the leaf) only once earlier writes settled.
      const body = typeof bodyOrBuilder === "function" ? bodyOrBuilder() : bodyOrBuilder;
      const entry = {
        type: body.type,
        id: generateEntryId(this.#index.byId),
        parentId: parentId === undefined ? this.#leafId : parentId,
        timestamp: new Date().toISOString(),
        ...body,
      } as SessionEntry;
      const problem = validateEntry(entry);
      if (problem) throw new InvalidArgumentError(`invalid ${entry.type} entry: ${problem}`);
      await this.#store.append(this.#header.id, [entry]);
      // Published only after the store committed.
      this.#index.add(entry);
      applyEntryToListing(this.#listing, entry);
      this.#leafId = entry.id;
      return entry.id;
    });
  }

  #requireEntry(id: string): SessionEntry {
    const entry = this.#index.get(id);
    if (!entry) throw new EntryNotFoundError(id);
    return entry;
  }

  /** Add a message. */
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
   * `"verbatim-lines"` (what makes the boundary active).
   */
  async appendCompaction(
    compactedText: string,
    firstKeptEntryId: string | null,
    tokensBefore: number,
    details: Record<string, unknown> = {},
  ): Promise<string> {
    if (firstKeptEntryId !== null) this.#requireEntry(firstKeptEntryId);
    const fullDetails: Record<string, unknown> = { strategy: "verbatim-lines", ...details };
    const body: EntryBody<CompactionEntry> = {
      type: "compaction",
      summary: compactedText,
      firstKeptEntryId,
      tokensBefore,
      details: fullDetails,
    };
    if (fullDetails.rung === "extension") body.fromHook = true;
    return await this.#append(body);
  }

  /** Persist extension state (not part of model context). */
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
    return this.#append({
      type: "custom_message",
      customType,
      content,
      display,
      ...(details === undefined ? {} : { details }),
    });
  }

  /** Set the display name; an empty (or blank) name clears it durably. */
  appendSessionInfo(name: string): Promise<string> {
    return this.#append({ type: "session_info", name: name.trim() });
  }

  /** Store a generated picker summary anchored to the message it describes. */
  async appendSessionSummary(
    summary: string,
    summarizedThroughId: string,
    usage?: { input?: number; output?: number },
  ): Promise<string> {
    this.#requireEntry(summarizedThroughId);
    return await this.#append({
      type: "session_summary",
      summary: normalizeSummary(summary),
      summarizedThroughId,
      ...(usage === undefined ? {} : { usage }),
    });
  }

  /** Set (or with `undefined` / `""`, clear) the label of an entry. */
  async appendLabelChange(targetId: string, label: string | undefined): Promise<string> {
    this.#requireEntry(targetId);
    const trimmed = label?.trim();
    return await this.#append(
      trimmed ? { type: "label", targetId, label: trimmed } : { type: "label", targetId },
    );
  }

  /**
   * Append a branch-local context edit of a user, assistant, tool-result or custom-message
   * entry: `null` omits it from model context, `{ content }` replaces only its content.
   */
  async appendContextEdit(
    targetId: string,
    replacement: { content: string | unknown[] } | null,
  ): Promise<string> {
    const target = this.#requireEntry(targetId);
    const editable = target.type === "custom_message" ||
      (target.type === "message" &&
        ["user", "assistant", "toolResult", "custom"].includes(target.message.role));
    if (!editable) {
      throw new InvalidArgumentError(
        `Entry ${targetId} (${target.type}) does not produce editable model context`,
      );
    }
    return await this.#append(
      { type: "context_edit", targetId, replacement } as EntryBody<SessionEntry>,
    );
  }

  // ------------------------------------------------------------ navigation

  /** Move the leaf to an earlier entry (not persisted). */
  branch(entryId: string): void {
    this.#requireEntry(entryId);
    this.#leafId = entryId;
  }

  /** Move the leaf before the first entry; the next append starts a new root. */
  resetLeaf(): void {
    this.#leafId = null;
  }

  /**
   * Branch from `entryId` (or `null`: a new root) with a summary of the abandoned branch;
   * `fromId` records the leaf that was left.
   */
  async branchWithSummary(
    entryId: string | null,
    summary: string,
    details?: unknown,
    fromHook?: boolean,
  ): Promise<string> {
    if (entryId !== null) this.#requireEntry(entryId);
    return await this.#append(() => ({
      type: "branch_summary",
      fromId: this.#leafId,
      summary,
      ...(details === undefined ? {} : { details }),
      ...(fromHook === undefined ? {} : { fromHook }),
    }), entryId);
  }

  getLeafId(): string | null {
    return this.#leafId;
  }
  getLeafEntry(): SessionEntry | undefined {
    return this.#leafId === null ? undefined : this.#index.get(this.#leafId);
  }
  getEntry(id: string): SessionEntry | undefined {
    return this.#index.get(id);
  }
  /** Entries from the root to `fromId` (default: the leaf), root first. */
  getBranch(fromId?: string): SessionEntry[] {
    return this.#index.getPath(fromId ?? this.#leafId);
  }
  getTree(): SessionTreeNode[] {
    return this.#index.getTree();
  }
  getChildren(parentId: string): SessionEntry[] {
    return this.#index.getChildren(parentId);
  }
  getLabel(id: string): string | undefined {
    return this.#index.getLabel(id);
  }
  /** All entries in commit order (a copy). */
  getEntries(): SessionEntry[] {
    return [...this.#index.entries];
  }
  getHeader(): SessionHeader {
    return { ...this.#header };
  }
  /** Ids of entries whose parent is missing (kept reachable as roots). */
  getDanglingEntryIds(): string[] {
    return [...this.#index.danglingParents];
  }

  // ------------------------------------------------------------ context and info

  buildSessionProjection(): SessionProjection {
    return buildSessionProjection(this.#index.entries, this.#leafId, this.#index);
  }
  buildSessionContext(): SessionContext {
    return buildSessionContext(this.#index.entries, this.#leafId, this.#index);
  }
  buildContextEntries(): SessionEntry[] {
    return buildContextEntries(this.#index.entries, this.#leafId, this.#index);
  }
  getSessionName(): string | undefined {
    return this.#listing.name;
  }
  getSessionNameState(): SessionNameState {
    if (!this.#listing.hasName) return { hasName: false };
    return this.#listing.name === undefined
      ? { hasName: true }
      : { hasName: true, name: this.#listing.name };
  }
  /** The session summary while it is fresh (its message is still the newest conversation message). */
  getSessionSummary(): string | undefined {
    const summary = this.#listing.summary;
    return summary && summary.throughId === this.#listing.lastConversationId
      ? summary.text
      : undefined;
  }
  /** Tokens and cost over every entry that records model work. */
  getUsageTotals(): UsageTotals {
    return usageTotals(this.#index.entries);
  }
  getCwd(): string {
    return this.#cwd;
  }
  getSessionId(): string {
    return this.#header.id;
  }
  getSessionStore(): SessionStore {
    return this.#store;
  }
  /** JSONL file location, when the store has one. */
  getSessionFile(): string | undefined {
    return this.#path;
  }
  /** Local JSONL directory, or `""` for non-JSONL storage. */
  getSessionDir(): string {
    return this.#store.directory ?? "";
  }
  isPersisted(): boolean {
    return this.#store.kind !== "memory";
  }
  /** Whether the session is a classified workflow session. */
  isInternal(): boolean {
    return isWorkflowInternal(this.#header);
  }

  // ------------------------------------------------------------ session management

  #switchTo(session: { header: SessionHeader; entries: SessionEntry[]; path?: string }): void {
    this.#header = session.header;
    this.#index = SessionIndex.build(session.entries);
    this.#listing = listingStateOf(session.entries);
    this.#leafId = this.#index.lastEntry?.id ?? null;
    this.#path = session.path;
    this.#cwd = session.header.cwd ?? this.#cwd;
  }

  /** Start a new, empty session in the same store and switch to it; resolves with its id. */
  newSession(options: NewSessionOptions = {}): Promise<string> {
    return this.#enqueue(async () => {
      const header = buildHeader(this.#cwd, options);
      const created = await this.#store.create(header, []);
      this.#switchTo({ header, entries: [], path: created.path });
      return header.id;
    });
  }

  /**
   * Apply valid workflow ownership to this session. Keeps an existing valid marker; repairs
   * malformed markers with `workflow` (or the header's own complete marker).
   */
  markSessionInternal(workflow?: WorkflowMarker): Promise<void> {
    return this.#enqueue(async () => {
      if (isWorkflowInternal(this.#header)) return;
      const marker = isCompleteWorkflowMarker(workflow) ? workflow : this.#header.workflow;
      if (!isCompleteWorkflowMarker(marker)) {
        throw new InvalidArgumentError(
          "markSessionInternal needs a workflow with non-empty runId, stageId and stageName",
        );
      }
      const { runId, stageId, stageName } = marker;
      const header = { ...this.#header, internal: true, workflow: { runId, stageId, stageName } };
      await this.#store.updateHeader(header);
      this.#header = header;
    });
  }

  /** Extract the path to `leafId` into a new session in the same store and switch to it. */
  createBranchedSession(leafId: string): Promise<string> {
    this.#requireEntry(leafId);
    return this.#enqueue(async () => {
      const entries = branchEntries(this.#index, leafId);
      const header = buildHeader(
        this.#cwd,
        { parentSession: this.#header.id },
        inheritedClassification(this.#header),
      );
      const created = await this.#store.create(header, entries);
      this.#switchTo({ header, entries, path: created.path });
      return header.id;
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
      : isSessionStore(targetStoreOrDir)
      ? targetStoreOrDir
      : await runtimeStorage().jsonlStore(targetStoreOrDir);
    await this.#writes;
    const header = buildHeader(
      cwd,
      { parentSession: this.#header.id, ...options },
      inheritedClassification(this.#header),
    );
    return await SessionManager.#createIn(store, header, [...this.#index.entries]);
  }

  /** Delete another session from the active store (the open one is refused). */
  async deleteSession(sessionId: string): Promise<void> {
    if (sessionId === this.#header.id) {
      throw new InvalidArgumentError("Refusing to delete the session this manager has open");
    }
    await this.#store.delete(sessionId);
  }

  /** Switch this manager to a JSONL file (created when missing). */
  setSessionFile(path: string): Promise<void> {
    return this.#enqueue(async () => {
      const runtime = runtimeStorage();
      const file = await runtime.openJsonlFile(path, { cwd: this.#cwd });
      const loaded = await file.store.load(file.sessionId);
      if (loaded.upgraded) await file.store.replace(loaded.header, loaded.entries);
      this.#store = file.store;
      this.#switchTo({ ...loaded, path: file.path });
    });
  }
}

async function resolveStore(cwd: string, sessionDir: string | undefined): Promise<SessionStore> {
  const runtime = runtimeStorage();
  return sessionDir === undefined
    ? await runtime.defaultStore(cwd)
    : await runtime.jsonlStore(sessionDir);
}
