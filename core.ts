/**
 * mu-sessions core: store, upgrade, navigate and project agent session transcripts (the
 * tree-shaped, append-only pi / Atomic session format, format 4). Runtime-agnostic: nothing
 * reachable from this entry uses a Deno, Node or DOM API, so it loads in Deno, Node,
 * browsers, workers and edge runtimes. Stores are passed explicitly (`MemorySessionStore`
 * here; persistent drivers under `@mu/sessions/stores/...`).
 *
 * @example
 * ```ts
 * import { SessionManager } from "@mu/sessions/core";
 * const manager = await SessionManager.inMemory("/project");
 * await manager.appendMessage({ role: "user", content: "hello", timestamp: Date.now() });
 * console.log(manager.buildSessionContext().messages.length); // 1
 * ```
 *
 * @module
 */

// Every name below is exported on purpose and listed in api/report.md (regenerate it with
// `deno task api:report`; tests/deno/api_report.test.ts fails when the two disagree).
// Internals (driver and viewer helpers, the fast validator, the listing fold) are imported
// from their src/ files by the code that needs them and are not part of the contract.

// Errors: every deliberate failure is one of these, all extending SessionError.
export {
  EntryConflictError,
  EntryNotFoundError,
  InvalidArgumentError,
  SessionError,
  SessionExistsError,
  SessionFormatError,
  SessionNotFoundError,
  SessionStorageError,
} from "./src/errors.ts";

// Sessions: open, append to, branch and read one session over any store.
export { SessionManager } from "./src/manager.ts";
export { type SessionNameState, type SessionSource, SessionView } from "./src/session_view.ts";
export {
  type ContinueRecentOptions,
  type ListSessionsOptions,
  type NewSessionOptions,
  type ProgressCallback,
} from "./src/session_options.ts";

// The format: parse (upgrading formats 1-3 in memory) and serialize JSONL.
export {
  type ParsedSession,
  type ParseOptions,
  parseSessionJsonl,
  parseSessionJsonlSync,
  serializeSessionJsonl,
} from "./src/jsonl.ts";

// The format's records as types (no zod here: the zod schemas are `@mu/sessions/schema`).
export {
  type AgentMessage,
  type AssistantContentBlock,
  type AssistantMessage,
  type BashExecutionMessage,
  type BranchSummaryEntry,
  type BranchSummaryMessage,
  type CompactionEntry,
  type CompactionSummaryMessage,
  type ContextCompactionEntry,
  type ContextEditEntry,
  type ContextEditReplacement,
  type ContextWindowChangeEntry,
  CURRENT_SESSION_VERSION,
  type CustomEntry,
  type CustomMessage,
  type CustomMessageEntry,
  type ImageContent,
  type KnownSessionEntry,
  type LabelEntry,
  type MessageEntry,
  type ModelChangeEntry,
  type NestedToolCalls,
  type SessionEntry,
  type SessionHeader,
  type SessionInfoEntry,
  type SessionSummaryEntry,
  type SystemMessage,
  type TextContent,
  type ThinkingContent,
  type ThinkingLevelChangeEntry,
  type ToolCall,
  type ToolResultMessage,
  type UnknownSessionEntry,
  type Usage,
  type UsageEntry,
  type UserContentBlock,
  type UserMessage,
} from "./src/schema.ts";

// Navigating the tree of entries.
export { type IndexOptions, SessionIndex, type SessionTreeNode } from "./src/tree.ts";

// Projection: what the model sees on a branch (pure functions over entries).
export {
  buildContextEntries,
  buildSessionContext,
  buildSessionProjection,
  type DroppedToolResult,
  type ProjectedEntry,
  type SessionContext,
  type SessionProjection,
  type SystemPromptState,
  type SystemTool,
} from "./src/projection.ts";
export { type UsageTotals, usageTotals } from "./src/usage.ts";

// Stores: the seam every driver implements, the helpers a driver needs to honour its
// contract, and the in-memory store.
export {
  assertValidSessionId,
  type CreatedSession,
  exportSessionJsonl,
  type ListOptions,
  type LoadedSession,
  type ReplaceOptions,
  type SessionInfo,
  type SessionStore,
  type SkippedSession,
} from "./src/store.ts";
// Context-only loads: resume a session reading only its context range.
export {
  type ContextLoadingStore,
  type LoadedContext,
  loadSessionContext,
  loadSessionProjection,
} from "./src/context_load.ts";
export { MemorySessionStore, type MemoryStoreOptions } from "./src/memory_store.ts";

// Moving sessions between stores: import under the never-overwrite rule; export one branch.
export {
  type ConflictChoice,
  type ImportConflict,
  type ImportOutcome,
  importParsedSession,
  importSession,
  type ImportSessionOptions,
  type SessionContent,
} from "./src/import_rule.ts";
export { exportBranchJsonl } from "./src/export_branch.ts";

// Search across sessions: one query language and ranking; indexed stores add `search`.
export { scanSearch, type SearchHit, type SearchOptions, searchSessions } from "./src/search.ts";
export type { SearchRole } from "./src/search_text.ts";

// Runtime storage: what path-based factories use; `@mu/sessions` registers the file-system one.
export { registerRuntimeStorage, type RuntimeStorage } from "./src/runtime.ts";
