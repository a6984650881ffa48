/**
 * The provider-validity check of derived context, modelled on what the older
 * implementations' provider pipelines send: they skip assistant messages whose `stopReason`
 * is `"error"` or `"aborted"` and pass every tool result through. Over what remains:
 * every tool result answers a call of an earlier kept assistant message (of the latest one:
 * results follow their turn), no call id is answered twice, and every call of a kept
 * `toolUse` turn is answered exactly once before the next kept assistant message (a
 * `stop`/`length` turn's calls at most once: nothing is invented for them).
 */
import assert from "node:assert/strict";
import type { AgentMessage } from "../../core.ts";

const SKIPPED = new Set(["error", "aborted"]);

/** Throws (with the call id) when `messages` would give a provider an unpaired result. */
export function assertToolPairing(messages: readonly AgentMessage[]): void {
  let open = new Map<string, number>();
  let required = false; // a toolUse turn: every call answered
  const answered = new Set<string>();
  const closeGroup = () => {
    for (const [id, count] of open) {
      if (required || count > 1) assert.equal(count, 1, `tool call ${id} answered ${count} times`);
    }
    open = new Map();
  };
  for (const message of messages) {
    if (message.role === "assistant") {
      if (SKIPPED.has(message.stopReason ?? "")) continue; // the provider pipeline drops it
      closeGroup();
      required = message.stopReason === "toolUse";
      for (const block of message.content) if (block.type === "toolCall") open.set(block.id, 0);
    } else if (message.role === "toolResult") {
      const id = message.toolCallId;
      assert.ok(!answered.has(id), `call ${id} answered twice`);
      const count = open.get(id);
      assert.notEqual(count, undefined, `result ${id} answers no call of the kept turn before it`);
      open.set(id, count! + 1);
      answered.add(id);
    } else if (message.role === "custom" && message.customType === "compaction") {
      closeGroup();
    }
  }
  closeGroup();
}
