/**
 * Replay of system messages into the prompt state of a branch (format-4 spec, "Message
 * Types": later `content` adds instructions, `sections` patches names with `null`
 * deleting, `toolsAdded`/`toolsRemoved` change tool availability).
 *
 * @module
 */
import type { SystemMessage } from "./schema.ts";
import { contentText } from "./_transcript.ts";

/**
 * A tool declaration from `toolsAdded`: at least a name, other fields kept as written.
 *
 * @example
 * ```ts
 * import { SessionManager, type SystemTool } from "@mu/sessions";
 * const manager = SessionManager.inMemory("/project");
 * const tools: SystemTool[] = manager.buildSessionProjection().system?.tools ?? [];
 * ```
 */
export interface SystemTool {
  name: string;
  [key: string]: unknown;
}

/**
 * The replayed system prompt of a branch.
 *
 * @example
 * ```ts
 * import { SessionManager, type SystemPromptState } from "@mu/sessions";
 * const manager = SessionManager.inMemory("/project");
 * const system: SystemPromptState | null = manager.buildSessionProjection().system;
 * system?.content; // undefined: this branch declares no system prompt
 * ```
 */
export interface SystemPromptState {
  /**
   * All instruction text in order: each system message's content (text blocks joined by
   * `"\n"`), non-empty ones joined by `"\n\n"`.
   */
  content: string;
  /** Named sections after every patch (a `null` patch deletes the name). */
  sections: Record<string, string>;
  /**
   * Available tools in order of first addition; re-adding a name replaces its declaration
   * in place, removing it drops it.
   */
  tools: SystemTool[];
}

/**
 * Replay system messages in order (`checkpoint` first, e.g. a compaction's `systemMessage`,
 * then `messages`). Returns null when there was nothing to replay.
 *
 * @example
 * ```ts
 * import { replaySystemPrompt } from "./_system_prompt.ts";
 * const state = replaySystemPrompt([], [
 *   { role: "system", content: "Be brief.", sections: { env: "linux" }, toolsAdded: [{ name: "bash" }] },
 *   { role: "system", content: "", sections: { env: null }, toolsRemoved: [{ name: "bash" }] },
 * ]);
 * state; // { content: "Be brief.", sections: {}, tools: [] }
 * ```
 */
export function replaySystemPrompt(
  checkpoint: Iterable<SystemMessage>,
  messages: Iterable<SystemMessage>,
): SystemPromptState | null {
  const instructions: string[] = [];
  const sections = new Map<string, string>();
  const tools = new Map<string, SystemTool>();
  let replayed = false;
  const apply = (message: SystemMessage) => {
    replayed = true;
    const text = contentText(message.content);
    if (text) instructions.push(text);
    for (const [name, value] of Object.entries(message.sections ?? {})) {
      if (value === null) sections.delete(name);
      else if (typeof value === "string") sections.set(name, value);
    }
    for (const tool of message.toolsAdded ?? []) {
      if (tool && typeof tool.name === "string") tools.set(tool.name, tool as SystemTool);
    }
    for (const tool of message.toolsRemoved ?? []) {
      if (tool && typeof tool.name === "string") tools.delete(tool.name);
    }
  };
  for (const message of checkpoint) apply(message);
  for (const message of messages) apply(message);
  if (!replayed) return null;
  return {
    content: instructions.join("\n\n"),
    sections: Object.fromEntries(sections),
    tools: [...tools.values()],
  };
}
