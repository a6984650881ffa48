/**
 * Context building (format-4 spec, "Context Building"): the model-visible projection of a
 * session's active branch. Pure and runtime-agnostic; O(path length) given an index.
 *
 * Decisions where the spec is silent (all documented on the exported symbols):
 * - `leafId` `null`: empty projection; `undefined`: the last entry in file order (where a
 *   reopened session's leaf sits); an id not in the session: {@link EntryNotFoundError}, the
 *   same answer `SessionManager.branch` gives (the CLI exits 1, the edge handler answers 404),
 *   never an empty projection that looks like an empty session.
 * - System messages are replayed prompt state: they go to `system`, never to `messages`
 *   (the spec's `AgentMessage` union has no system role). A boundary's `systemMessage`
 *   checkpoint is a complete state: with one, pre-boundary system messages are folded into
 *   it and only post-boundary system messages replay on top of it.
 * - Context edits apply only when the edit comes after its target on the active path, and
 *   only to user, assistant, tool-result and custom messages (`custom_message` entries and
 *   stored `custom` role); other targets (system, bash, branch summaries, ...) are inert.
 * - Unchanged messages are the stored objects themselves (treat them as immutable);
 *   edited messages are shallow copies with new content.
 * - Tool pairing follows the provider pipelines: real results answer the calls of any
 *   assistant message, synthetic ones only those of `toolUse` messages. An
 *   `"error"`/`"aborted"` assistant message stays in `messages` (it is what was said;
 *   provider pipelines skip it), gets no synthetic results, and real results answering its
 *   calls are dropped (`dropped: "incomplete-turn"`), so no result reaches a provider
 *   without its call.
 * - `entries` (and {@link buildContextEntries}) list the context range in the order
 *   `[boundary, kept tail..., post-boundary...]`; interrupted-call repairs appear as extra
 *   entries flagged `derived: "interrupted-tool-result"` (see `_context_repair.ts` for the
 *   pairing rules: repair runs over the kept tail too, and the boundary is a pairing barrier,
 *   since calls before it survive only as transcript text).
 * - A `compaction` inside the kept tail that is itself verbatim contributes its durable text
 *   as a `[Compaction]: ` line; the transcript grammar is documented in `_transcript.ts`.
 * - Derived timestamps are `Date.parse(entry.timestamp)` (NaN for an unparseable string).
 *
 * The walk is split where a part stands alone: the pass that finds the boundary, kept tail,
 * settings and edits (`_path_scan.ts`), each entry's contribution (`_context_entry.ts`),
 * tool-call repair (`_context_repair.ts`), prompt replay (`_system_prompt.ts`) and the
 * transcript grammar (`_transcript.ts`).
 *
 * @module
 */
import { entryContribution } from "./_context_entry.ts";
import { ToolCallPairing, type UnansweredToolCalls } from "./_context_repair.ts";
import { EntryNotFoundError } from "./errors.ts";
import { isVerbatimCompaction, type PathScan, scanPath } from "./_path_scan.ts";
import type { AgentMessage, CompactionEntry, SessionEntry, SystemMessage } from "./schema.ts";
import { SessionIndex } from "./tree.ts";
import { buildCompactionMessage, serializeTranscript, type TranscriptItem } from "./_transcript.ts";
import { replaySystemPrompt, type SystemPromptState } from "./_system_prompt.ts";

export type { SystemPromptState, SystemTool } from "./_system_prompt.ts";
export { isVerbatimCompaction } from "./_path_scan.ts";

/**
 * Why a stored tool result contributes nothing to the derived context: no earlier assistant
 * message announced its call, or its group closed unanswered (`"orphan"`), its call was already answered
 * (`"duplicate"`), or its call belongs to an `"error"`/`"aborted"` turn, which provider
 * pipelines skip (`"incomplete-turn"`; see `_context_repair.ts`).
 *
 * @example
 * ```ts
 * import { type DroppedToolResult, SessionManager } from "@mu/sessions";
 * const manager = SessionManager.inMemory("/project");
 * const dropped: DroppedToolResult[] = manager.buildSessionProjection().entries
 *   .flatMap((entry) => entry.dropped ? [entry.dropped] : []); // [] here
 * ```
 */
export type DroppedToolResult = "orphan" | "duplicate" | "incomplete-turn";

/**
 * One entry of the context range with the model-visible messages it contributes.
 *
 * @example
 * ```ts
 * import { type ProjectedEntry, SessionManager } from "@mu/sessions";
 * const manager = SessionManager.inMemory("/project");
 * await manager.appendMessage({ role: "user", content: "hi", timestamp: 1 });
 * const [first]: ProjectedEntry[] = manager.buildSessionProjection().entries;
 * first.sourceEntry.type; // "message"
 * first.messages.length; // 1
 * ```
 */
export interface ProjectedEntry {
  /** The raw entry, never modified. */
  sourceEntry: SessionEntry;
  /** Model-visible messages it contributes (may be empty). */
  messages: AgentMessage[];
  /**
   * `"compaction-boundary"`: the active boundary; its one message carries summary + kept tail.
   * `"interrupted-tool-result"`: not stored; synthetic error results for the unanswered
   * tool calls of `sourceEntry` (an assistant message entry).
   */
  derived?: "compaction-boundary" | "interrupted-tool-result";
  /** The latest applicable `context_edit` targeting this entry. */
  edited?: { editEntryId: string; omitted: boolean };
  /** In the boundary's kept tail: its messages are serialized into the boundary message. */
  keptTail?: true;
  /** A stored tool result the derived context drops. */
  dropped?: DroppedToolResult;
  /** A system message: replayed into {@link SessionProjection.system}, never a message. */
  systemPrompt?: true;
}

/**
 * The model-visible projection of a session's active branch.
 *
 * @example
 * ```ts
 * import { SessionManager, type SessionProjection } from "@mu/sessions";
 * const manager = SessionManager.inMemory("/project");
 * await manager.appendModelChange("anthropic", "claude-sonnet-4");
 * const projection: SessionProjection = manager.buildSessionProjection();
 * projection.model; // { provider: "anthropic", modelId: "claude-sonnet-4" }
 * ```
 */
export interface SessionProjection {
  /** The leaf the projection was built for (`null`: empty projection). */
  leafId: string | null;
  entries: ProjectedEntry[];
  /** Flattened model-visible messages. */
  messages: AgentMessage[];
  model: { provider: string; modelId: string } | null;
  /** Default `"off"`. */
  thinkingLevel: string;
  /** Latest `context_window_change.contextWindow` on the path. */
  contextWindow: number | undefined;
  /** Replayed prompt state, or null when the path declares none. */
  system: SystemPromptState | null;
  /** The active verbatim boundary, if any. */
  boundary: CompactionEntry | null;
}

/**
 * What a provider request is built from: {@link buildSessionContext}'s result.
 *
 * @example
 * ```ts
 * import { type SessionContext, SessionManager } from "@mu/sessions";
 * const manager = SessionManager.inMemory("/project");
 * await manager.appendThinkingLevelChange("high");
 * const context: SessionContext = manager.buildSessionContext();
 * context.thinkingLevel; // "high"
 * ```
 */
export interface SessionContext {
  messages: AgentMessage[];
  /** Default `"off"`. */
  thinkingLevel: string;
  model: { provider: string; modelId: string } | null;
}

function activePath(
  entries: readonly SessionEntry[],
  leafId: string | null | undefined,
  index: SessionIndex | undefined,
): SessionEntry[] {
  if (leafId === null) return [];
  const idx = index ?? SessionIndex.build(entries);
  if (leafId !== undefined && !idx.get(leafId)) throw new EntryNotFoundError(leafId);
  return idx.getPath(leafId === undefined ? idx.lastEntry?.id : leafId);
}

type Slot = ProjectedEntry | undefined;

/** Convert the context range, repair tool pairing, and assemble the boundary message. */
function projectEntries(path: readonly SessionEntry[], scan: PathScan): ProjectedEntry[] {
  const { boundaryIndex, contextStart } = scan;
  const out: ProjectedEntry[] = [];
  const after = new Map<ProjectedEntry, ProjectedEntry[]>();
  const tailItems = new Map<ProjectedEntry, TranscriptItem[]>();
  const pairing = new ToolCallPairing<Slot>();

  const place = (repair: UnansweredToolCalls<Slot> | undefined) => {
    if (!repair?.owner || !repair.anchor) return;
    const derived: ProjectedEntry = {
      sourceEntry: repair.owner.sourceEntry,
      messages: repair.results,
      derived: "interrupted-tool-result",
    };
    if (repair.owner.keptTail) {
      derived.messages = [];
      derived.keptTail = true;
      tailItems.set(derived, repair.results);
    }
    const list = after.get(repair.anchor);
    if (list) list.push(derived);
    else after.set(repair.anchor, [derived]);
  };

  for (let i = 0; i < path.length; i++) {
    const entry = path[i];
    if (i === boundaryIndex) {
      place(pairing.close());
      pairing.reset();
      const items: TranscriptItem[] = [];
      for (const projected of out) {
        for (const item of [projected, ...after.get(projected) ?? []]) {
          const messages = tailItems.get(item);
          if (messages) items.push(...messages);
        }
      }
      const boundary = entry as CompactionEntry;
      out.unshift({
        sourceEntry: boundary,
        messages: [buildCompactionMessage(boundary, serializeTranscript(items))],
        derived: "compaction-boundary",
      });
      continue;
    }
    const hidden = i < contextStart;
    const inTail = !hidden && i < boundaryIndex;
    const converted = entryContribution(entry, scan.edits.get(entry.id));
    const projected: Slot = hidden ? undefined : { sourceEntry: entry, messages: [] };
    const kept: TranscriptItem[] = [];
    if (inTail && isVerbatimCompaction(entry)) {
      kept.push({ role: "compactionRecord", summary: entry.summary });
    }
    for (const message of converted.messages) {
      if (message.role === "assistant") {
        const time = message.timestamp ?? Date.parse(entry.timestamp);
        place(pairing.assistant(message, projected, !hidden, time));
      } else if (message.role === "toolResult") {
        const verdict = pairing.result(message, projected);
        if (verdict !== "keep") {
          if (projected) projected.dropped = verdict;
          continue;
        }
      }
      kept.push(message);
    }
    if (converted.omittedToolCallId !== undefined) {
      pairing.omittedResult(converted.omittedToolCallId);
    }
    if (!projected) continue;
    if (converted.edited) projected.edited = converted.edited;
    if (converted.systemPrompt) projected.systemPrompt = true;
    if (inTail) {
      projected.keptTail = true;
      tailItems.set(projected, kept);
    } else {
      projected.messages = kept as AgentMessage[];
    }
    out.push(projected);
  }
  place(pairing.close());

  const result: ProjectedEntry[] = [];
  for (const projected of out) {
    result.push(projected);
    const extra = after.get(projected);
    if (extra) result.push(...extra);
  }
  return result;
}

function systemMessagesOf(
  path: readonly SessionEntry[],
  from: number,
): Iterable<SystemMessage> {
  return {
    *[Symbol.iterator]() {
      for (let i = from; i < path.length; i++) {
        const entry = path[i];
        if (entry.type === "message" && entry.message.role === "system") yield entry.message;
      }
    },
  };
}

/**
 * The context-edited projection of the branch ending at `leafId`: the context range's
 * source entries with the messages each contributes, plus replayed model, thinking level,
 * context window and prompt state. `index` is an optional prebuilt index of `entries`
 * (then the cost is O(path length)). `leafId`: `null` → empty projection; `undefined` → the
 * last entry in file order; an id not in the session throws {@link EntryNotFoundError}.
 *
 * @example
 * ```ts
 * import { buildSessionProjection } from "@mu/sessions";
 * const projection = buildSessionProjection([
 *   { type: "message", id: "u1", parentId: null, timestamp: "2026-01-01T00:00:00.000Z", message: { role: "user", content: "hi", timestamp: 1 } },
 * ], "u1");
 * projection.entries[0].sourceEntry.id; // "u1"
 * projection.messages.length; // 1
 * ```
 */
export function buildSessionProjection(
  entries: readonly SessionEntry[],
  leafId: string | null | undefined,
  index?: SessionIndex,
): SessionProjection {
  return projectPath(activePath(entries, leafId, index));
}

/**
 * {@link buildSessionProjection} of an already resolved active path (root first, leaf
 * last). Internal: context-only loads (`context_load.ts`) project a path they assembled.
 *
 * @example
 * ```ts
 * import { projectPath } from "./projection.ts";
 * projectPath([]).leafId; // null
 * ```
 */
export function projectPath(path: readonly SessionEntry[]): SessionProjection {
  const scan = scanPath(path);
  const projected = projectEntries(path, scan);
  const messages: AgentMessage[] = [];
  for (const entry of projected) {
    for (const message of entry.messages) messages.push(message);
  }
  const boundary = scan.boundaryIndex >= 0 ? path[scan.boundaryIndex] as CompactionEntry : null;
  const system = boundary?.systemMessage
    ? replaySystemPrompt([boundary.systemMessage], systemMessagesOf(path, scan.boundaryIndex + 1))
    : replaySystemPrompt([], systemMessagesOf(path, 0));
  return {
    leafId: path.length ? path[path.length - 1].id : null,
    entries: projected,
    messages,
    model: scan.model,
    thinkingLevel: scan.thinkingLevel,
    contextWindow: scan.contextWindow,
    system,
    boundary,
  };
}

/**
 * Just the messages, thinking level and model of {@link buildSessionProjection}: what a
 * provider request is built from. Same leaf rules (an unknown leaf throws
 * {@link EntryNotFoundError}).
 *
 * @example
 * ```ts
 * import { buildSessionContext } from "@mu/sessions";
 * buildSessionContext([], null); // { messages: [], thinkingLevel: "off", model: null }
 * ```
 */
export function buildSessionContext(
  entries: readonly SessionEntry[],
  leafId: string | null | undefined,
  index?: SessionIndex,
): SessionContext {
  const { messages, thinkingLevel, model } = buildSessionProjection(entries, leafId, index);
  return { messages, thinkingLevel, model };
}

/**
 * The active branch's entries after the latest verbatim boundary:
 * `[boundary, kept tail entries..., post-boundary entries...]`, or the whole path when no
 * boundary is active. `null` leaf → `[]`; `undefined` → last entry in file order; an unknown
 * leaf throws {@link EntryNotFoundError}.
 *
 * @example
 * ```ts
 * import { buildContextEntries } from "@mu/sessions";
 * buildContextEntries([
 *   { type: "label", id: "l1", parentId: null, timestamp: "2026-01-01T00:00:00.000Z", targetId: "l1" },
 * ], undefined).length; // 1
 * ```
 */
export function buildContextEntries(
  entries: readonly SessionEntry[],
  leafId: string | null | undefined,
  index?: SessionIndex,
): SessionEntry[] {
  const path = activePath(entries, leafId, index);
  const { boundaryIndex, tailStart } = scanPath(path);
  if (boundaryIndex < 0) return path;
  const tail = tailStart >= 0 ? path.slice(tailStart, boundaryIndex) : [];
  return [path[boundaryIndex], ...tail, ...path.slice(boundaryIndex + 1)];
}
