/**
 * The data the viewer's worker hands to the page. Everything here is small and
 * structured-clone friendly: the page never receives a whole session, only what one
 * view needs (a page of tree rows, a page of context items, a usage summary).
 *
 * @module
 */
import type { UsageTotals as LibraryUsageTotals } from "../src/usage.ts";
import type { SessionSource } from "./session_key.ts";

/** A typed error as it crosses the worker boundary. */
export interface ErrorView {
  /** Error class name (`SessionFormatError`, `SessionStorageError`, ...). */
  name: string;
  message: string;
  /** 1-based line of a `SessionFormatError`. */
  line?: number;
  /** The reason of a `SessionFormatError`, without the location prefix. */
  reason?: string;
}

/** Which storage the worker opened. */
export interface StorageView {
  /** `sqlite-opfs`, `sqlite-opfs-sahpool`, `indexeddb` or `memory`. */
  kind: string;
  /** Whether sessions survive a reload. */
  persistent: boolean;
  /** Why a preferred storage was not used, if one failed. */
  note?: string;
  /** The page is served by `mu serve`: "this computer"'s sessions can be listed too. */
  computer?: boolean;
}

/** One row of the session list. */
export interface SessionRowView {
  id: string;
  /** What the page passes back to open it (`session_key.ts`). */
  key: string;
  source: SessionSource;
  /** Name, fresh summary or first user message: what the list shows as the title. */
  title: string;
  /** Where the title came from. */
  titleSource: "name" | "summary" | "first message";
  cwd: string;
  /** Epoch ms. */
  created: number;
  /** Epoch ms. */
  modified: number;
  messageCount: number;
  internal: boolean;
  /** `runId / stageName` of a workflow session. */
  workflow?: string;
  parentSessionId?: string;
}

/** A file (or stored session) that could not be loaded, with the reason. */
export interface UnloadableView {
  /** File name or path (or session id for stored sessions). */
  path: string;
  error: ErrorView;
  /** Epoch ms when it was seen. */
  at: number;
}

/** Result of `list`. */
export interface ListView {
  sessions: SessionRowView[];
  /** Internal sessions hidden by the current filter. */
  hiddenInternal: number;
  /** Stored sessions the store could not load. */
  skipped: UnloadableView[];
}

/**
 * Outcome of importing one file. Nothing stored is ever lost: `unchanged` (the id is stored
 * with identical content), `updated` (the stored session was a prefix of the file: the new
 * entries were appended), `kept-both` (a different session under a stored id, kept under a
 * new id: the default answer), `replaced` / `skipped` (what the user chose for such a file).
 */
export interface ImportResultView {
  path: string;
  size: number;
  status: "imported" | "updated" | "unchanged" | "kept-both" | "replaced" | "skipped" | "failed";
  /** Where the session is stored (for `kept-both`, the new id). */
  sessionId?: string;
  /** For `kept-both`: the id the file gave, already taken by another session. */
  fileSessionId?: string;
  /** A classified workflow session (the list hides it unless asked). */
  internal?: boolean;
  /** Format version of the source (1-4). */
  sourceVersion?: number;
  entryCount?: number;
  error?: ErrorView;
}

/** What to do with a file whose session id is stored with different content. */
export type ImportConflictChoice = "keep-both" | "replace" | "skip";

/** The question the worker asks the page about such a file. */
export interface ImportConflictView {
  /** Answer with `answerImportConflict(questionId, choice)`. */
  questionId: number;
  path: string;
  sessionId: string;
  storedEntries: number;
  fileEntries: number;
  /** Entries with the same id and content in both. */
  sharedEntries: number;
}

/** Progress event while importing. */
export interface ImportProgressView {
  /** 0-based index of the file being read. */
  fileIndex: number;
  fileCount: number;
  path: string;
  /** Bytes of all files read so far. */
  bytesDone: number;
  /** Bytes of all files. */
  bytesTotal: number;
  phase: "reading" | "saving" | "done";
}

/** Progress of a session's full load from `mu serve` (the tree waits for it). */
export interface LoadProgressView {
  /** The session's key (`session_key.ts`). */
  key: string;
  /** Entries received so far, and in all. */
  entries: number;
  total: number;
}

/** One row of a session's flattened tree. */
export interface TreeRowView {
  id: string;
  /** Gutter + connector (`│  ├─ `), drawn in a monospace column. */
  prefix: string;
  /** Entry type, or `message:<role>` for messages. */
  kind: string;
  /** One-line preview of the entry. */
  text: string;
  label?: string;
  timestamp: string;
  /** On the path from the root to the current leaf. */
  onPath: boolean;
  /** The current leaf. */
  leaf: boolean;
  childCount: number;
}

/** The tree's first rows (`treeStart`): its size and the rows around the row it opens at. */
export interface TreeStartView {
  rowCount: number;
  /** Row of the entry the tree opens at (-1 when it has no row). */
  focusRow: number;
  /** Index of `rows[0]`. */
  start: number;
  rows: TreeRowView[];
}

/** What `openSession` returns. */
export interface SessionOverview {
  id: string;
  /** What the page passes back in later calls (`session_key.ts`). */
  key: string;
  source: SessionSource;
  title: string;
  cwd: string;
  created: number;
  header: string;
  sourceVersion: number;
  entryCount: number;
  /** Number of tree rows (= entries with distinct ids). */
  rowCount: number;
  /** The default leaf: the last entry in file order. */
  defaultLeafId: string | null;
  labels: number;
  branchPoints: number;
  internal: boolean;
  /** The session this one was branched or forked from (`parentSessionId`). */
  parentSessionId?: string;
  /**
   * Parent ids that entries point at but the session lacks: history is missing there (the
   * tree shows extra roots, the context starts mid-conversation).
   */
  missingParentIds: string[];
  /**
   * Set while only the default leaf's context is loaded (a context-only first look): the
   * counts are 0 and there is no tree yet; `sessionComplete` answers the full overview.
   */
  pending?: true;
  /**
   * The URL of a hosted export read in place (`hosted/<url>` keys): its full load fetches
   * the whole file, so the page starts it only when the reader asks.
   */
  hostedUrl?: string;
}

/** A content block of a projected message. */
export type BlockView =
  | { kind: "text"; text: string; fullLength?: number }
  | { kind: "thinking"; text: string; fullLength?: number }
  | { kind: "toolCall"; name: string; id: string; text: string; fullLength?: number }
  | { kind: "image"; mimeType: string; dataUrl?: string; note?: string }
  | { kind: "other"; text: string; fullLength?: number };

/** One model-visible message. */
export interface MessageView {
  role: string;
  /** Secondary title: model, tool name, custom type. */
  subtitle?: string;
  blocks: BlockView[];
  /** Short facts: stop reason, error flag, exit code, tokens. */
  meta: string[];
}

/** One item of a projection: a source entry and the messages it contributes. */
export interface ContextItemView {
  index: number;
  sourceId: string | null;
  sourceType: string;
  /** Marks: `edited`, `compaction boundary`, `synthetic interrupted result`, ... */
  flags: string[];
  messages: MessageView[];
}

/** A page of the projected context plus the projection's settings. */
export interface ContextPageView {
  leafId: string | null;
  total: number;
  start: number;
  items: ContextItemView[];
  model?: string;
  thinkingLevel?: string;
  contextWindow?: number;
  /** The replayed system prompt text (truncated). */
  system?: string;
  /** The active compaction boundary, if any. */
  boundary?: { id: string; firstKeptEntryId: string | null; summaryChars: number };
  /**
   * The last retired summary compaction on the branch (inert in format 4): the page offers
   * the context as the older agent would have sent it.
   */
  retired?: { id: string; firstKeptEntryId: string | null };
  messageCount: number;
}

/**
 * Which reading of the context: the projection (undefined), or `"older-agent"`: as a
 * format-3 agent would have sent it, its last summary compaction replacing earlier context.
 */
export type ContextAs = "older-agent";

/** One raw entry on the active path, as its JSON line. */
export interface RawEntryView {
  id: string;
  type: string;
  /** The JSON line (truncated when long). */
  json: string;
  fullLength: number;
}

/** A page of the raw entries on the active path. */
export interface RawPageView {
  total: number;
  start: number;
  items: RawEntryView[];
}

/** Token and cost counts (the library's totals) and how many records were billed. */
export interface UsageTotals extends LibraryUsageTotals {
  calls: number;
}

/** One bar of the per-turn chart (a turn, or a bucket of turns when there are many). */
export interface UsageBar {
  /** First turn number (1-based) in this bar. */
  turn: number;
  /** Number of turns summed into this bar. */
  turns: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  cost: number;
  entryId: string;
}

/** Usage of a session and of its active branch. */
export interface UsageView {
  session: UsageTotals;
  branch: UsageTotals;
  bars: UsageBar[];
  /** Per model, whole session: `provider/model` → totals. */
  byModel: Array<{ model: string; totals: UsageTotals }>;
}

/** One search hit, as the page shows it (the library's `SearchHit` plus its session key). */
export interface SearchHitView {
  entryId: string;
  role: string;
  snippet: string;
  /** Matched spans of `snippet`, `[start, end)`. */
  ranges: [number, number][];
  timestamp: string;
  /** The library's score (higher is better), to merge sources. */
  score: number;
}

/** The hits of one session, best session first (ordered by its best hit). */
export interface SearchGroupView {
  /** The session key (`session_key.ts`). */
  key: string;
  sessionId: string;
  source: "browser" | "computer";
  title: string;
  hits: SearchHitView[];
}

/** Search results of one source. */
export interface SearchView {
  query: string;
  groups: SearchGroupView[];
  /** Total hits (at most the limit). */
  total: number;
  /** There were more hits than the limit (the count is then "limit+"). */
  more?: boolean;
}

/** Partial results of a search still running (`ViewerSearchOptions.progressId`). */
export interface SearchProgressView {
  /** The search's `progressId`. */
  id: number;
  /** The best hits found so far. */
  view: SearchView;
  /** Entries of the sessions being indexed for this search: searched so far, and in all. */
  entriesDone: number;
  entries: number;
}

/** Where the page shows an entry without cutting the branch (`ViewerApi.locateEntry`). */
export interface EntryPlace {
  /** The leaf whose branch holds the entry. */
  leafId: string | null;
  /** Index of the entry's conversation item on that branch (-1: none holds it). */
  item: number;
}
