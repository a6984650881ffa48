/**
 * Generated session sources for the stress suite: exports to import (kill tests), older
 * format files to upgrade, and seeds for the fuzzer. Runtime neutral (the Node child
 * bundle imports it).
 *
 * @module
 */

/** Entries per session written by the kill children's create / import / upgrade. */
export const KILL_SIZES = { create: 3, import: 200, upgrade: 150 } as const;

/** Entry `n` of a generated session: user, assistant with a tool call, tool result, ... */
function entryRecord(n: number, parentId: string | null): Record<string, unknown> {
  const id = `e${n.toString(16).padStart(7, "0")}`;
  const base = { id, parentId, timestamp: new Date(1_780_000_000_000 + n * 1000).toISOString() };
  const timestamp = 1_780_000_000_000 + n * 1000;
  switch (n % 4) {
    case 0:
      return {
        type: "message",
        ...base,
        message: { role: "user", content: `ask ${n}`, timestamp },
      };
    case 1:
      return {
        type: "message",
        ...base,
        message: {
          role: "assistant",
          content: [
            { type: "text", text: `calling ${n} ✓` },
            { type: "toolCall", id: `c${n}`, name: "read", arguments: { path: `f${n}.ts` } },
          ],
          api: "anthropic-messages",
          provider: "anthropic",
          model: "claude-sonnet-4-5",
          usage: { input: 10, output: 3, cacheRead: 0, cacheWrite: 0, totalTokens: 13 },
          stopReason: "toolUse",
          timestamp,
        },
      };
    case 2:
      return {
        type: "message",
        ...base,
        message: {
          role: "toolResult",
          toolCallId: `c${n - 1}`,
          toolName: "read",
          content: [{ type: "text", text: `contents of f${n - 1}.ts: ${"x".repeat(n % 50)}` }],
          isError: false,
          timestamp,
        },
      };
    default:
      return { type: "model_change", ...base, provider: "anthropic", modelId: `m${n % 3}` };
  }
}

/** The header line of a generated session in format 4 or (older) 3. */
export function headerRecord(sessionId: string, version: 3 | 4): Record<string, unknown> {
  const time = "2026-01-01T00:00:00.000Z";
  return version === 4
    ? { type: "session", version: 4, id: sessionId, createdAt: time, cwd: "/stress" }
    : { type: "session", version: 3, id: sessionId, timestamp: time, cwd: "/stress" };
}

/** The ids of the entries {@link exportText} writes. */
export function exportIds(count: number): string[] {
  return Array.from({ length: count }, (_, n) => `e${n.toString(16).padStart(7, "0")}`);
}

/** A session of `count` chained entries as JSONL text, in format 4 or 3. */
export function exportText(sessionId: string, version: 3 | 4, count: number): string {
  let text = JSON.stringify(headerRecord(sessionId, version)) + "\n";
  let parentId: string | null = null;
  for (let n = 0; n < count; n++) {
    const record = entryRecord(n, parentId);
    text += JSON.stringify(record) + "\n";
    parentId = record.id as string;
  }
  return text;
}
