/**
 * Option types and small pure helpers shared by the SessionManager's factories and
 * instance methods: header construction, workflow-marker validation, store detection.
 *
 * @module
 */
import { InvalidArgumentError } from "./errors.ts";
import {
  CURRENT_SESSION_VERSION,
  isCompleteWorkflowMarker,
  isWorkflowInternal,
  type SessionHeader,
  type WorkflowMarker,
} from "./schema.ts";
import { assertValidSessionId, type SessionStore, type SkippedSession } from "./store.ts";

/**
 * Options for a new session (`create`, `newSession`, `forkTo`, `forkFrom`).
 *
 * @example
 * ```ts
 * import { MemorySessionStore, type NewSessionOptions, SessionManager } from "@mu/sessions";
 * const options: NewSessionOptions = {
 *   internal: true,
 *   workflow: { runId: "r1", stageId: "plan", stageName: "Plan" },
 * };
 * await SessionManager.create(new MemorySessionStore(), "/project", options);
 * ```
 */
export interface NewSessionOptions {
  /** Exact session id (default: a random UUID). Validated: no separators or control chars. */
  id?: string;
  /** Id of the session this one was forked or cloned from. */
  parentSession?: string;
  /** Workflow-owned session: requires `internal: true` together with a complete `workflow`. */
  internal?: boolean;
  /** Workflow run/stage linkage; requires `internal: true`. */
  workflow?: WorkflowMarker;
}

/**
 * Options for `continueRecent`.
 *
 * @example
 * ```ts
 * import { type ContinueRecentOptions, MemorySessionStore, SessionManager } from "@mu/sessions";
 * const options: ContinueRecentOptions = { includeInternal: false };
 * await SessionManager.continueRecent(new MemorySessionStore(), "/project", options);
 * ```
 */
export interface ContinueRecentOptions extends NewSessionOptions {
  /** Also consider classified workflow sessions. */
  includeInternal?: boolean;
}

/**
 * Options for `list` / `listAll`.
 *
 * @example
 * ```ts
 * import { type ListSessionsOptions, MemorySessionStore, SessionManager } from "@mu/sessions";
 * const options: ListSessionsOptions = {
 *   onSkipped: (skipped) => console.warn(`unreadable: ${skipped.path}: ${skipped.error.message}`),
 * };
 * await SessionManager.list("/project", new MemorySessionStore(), undefined, options);
 * ```
 */
export interface ListSessionsOptions {
  includeInternal?: boolean;
  signal?: AbortSignal;
  onSkipped?: (skipped: SkippedSession) => void;
}

/**
 * Listing progress callback: `(loaded, total)`.
 *
 * @example
 * ```ts
 * import { MemorySessionStore, type ProgressCallback, SessionManager } from "@mu/sessions";
 * const progress: ProgressCallback = (loaded, total) => console.log(`${loaded}/${total}`);
 * await SessionManager.listAll(new MemorySessionStore(), progress);
 * ```
 */
export type ProgressCallback = (loaded: number, total: number) => void;

/** Whether a value is a {@link SessionStore} rather than a path string. */
export function isSessionStore(value: unknown): value is SessionStore {
  return typeof value === "object" && value !== null &&
    typeof (value as SessionStore).append === "function" &&
    typeof (value as SessionStore).load === "function";
}

/** The workflow classification fields to write, or `{}`; throws on a half-given pair. */
export function classificationFields(options: NewSessionOptions): Partial<SessionHeader> {
  if (options.internal === undefined && options.workflow === undefined) return {};
  if (options.internal === true && isCompleteWorkflowMarker(options.workflow)) {
    const { runId, stageId, stageName } = options.workflow;
    return { internal: true, workflow: { runId, stageId, stageName } };
  }
  if (options.internal === false && options.workflow === undefined) return {};
  throw new InvalidArgumentError(
    "A workflow-owned session needs the pair internal: true and workflow: { runId, stageId, stageName } (non-empty strings)",
  );
}

/** Classification inherited by a branch or fork of a classified workflow session. */
export function inheritedClassification(header: SessionHeader): Partial<SessionHeader> {
  if (!isWorkflowInternal(header)) return {};
  const { runId, stageId, stageName } = header.workflow as WorkflowMarker;
  return { internal: true, workflow: { runId, stageId, stageName } };
}

/**
 * `header` marked internal with `workflow`, or with its own marker when `workflow` is not
 * complete (a malformed `internal` repaired); `undefined` when it already is internal with a
 * valid marker. Throws when neither marker is complete.
 */
export function markedInternal(
  header: SessionHeader,
  workflow?: WorkflowMarker,
): SessionHeader | undefined {
  if (isWorkflowInternal(header)) return undefined;
  const marker = isCompleteWorkflowMarker(workflow) ? workflow : header.workflow;
  if (!isCompleteWorkflowMarker(marker)) {
    throw new InvalidArgumentError(
      "markSessionInternal needs a workflow with non-empty runId, stageId and stageName",
    );
  }
  const { runId, stageId, stageName } = marker;
  return { ...header, internal: true, workflow: { runId, stageId, stageName } };
}

/** Build a format-4 header; validates the id. */
export function buildHeader(
  cwd: string,
  options: NewSessionOptions = {},
  inherited: Partial<SessionHeader> = {},
): SessionHeader {
  const id = options.id ?? crypto.randomUUID();
  assertValidSessionId(id);
  const header: SessionHeader = {
    type: "session",
    version: CURRENT_SESSION_VERSION,
    id,
    createdAt: new Date().toISOString(),
    cwd,
  };
  if (options.parentSession !== undefined) header.parentSessionId = options.parentSession;
  return { ...header, ...inherited, ...classificationFields(options) };
}

/** Collapse whitespace and clamp a generated session summary. */
export function normalizeSummary(summary: string, maxLength = SESSION_SUMMARY_MAX_LENGTH): string {
  const collapsed = summary.replace(/\s+/g, " ").trim();
  return collapsed.length > maxLength
    ? collapsed.slice(0, maxLength - 1).trimEnd() + "…"
    : collapsed;
}

/** Longest stored session summary, in UTF-16 code units. */
export const SESSION_SUMMARY_MAX_LENGTH = 160;
