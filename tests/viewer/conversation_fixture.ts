/**
 * A session that exercises the conversation view (issue 15): markdown with a fenced code
 * block holding a raw `<script>`, raw HTML and a `javascript:` link in the text, an edit
 * call, a bash call whose output has ANSI colours, a write, markers (model change, label).
 *
 * @module
 */

/** Ids the tests look for. */
export const CONV = {
  sessionId: "conv-render-0001",
  title: "Render check",
  user: "c0000001",
  edit: "c0000003",
  bash: "c0000005",
  last: "c0000009",
} as const;

/** Red "FAIL", bold green "PASS", a truecolor run, and a cursor move that must vanish. */
export const ANSI_OUTPUT =
  "\x1b[31mFAIL\x1b[0m src/a.test.ts\n\x1b[1;32mPASS\x1b[0m src/b.test.ts\n\x1b[38;2;10;120;200mtruecolor\x1b[0m\x1b[2K\x1b[1Gdone\n";

/** The session as JSONL. */
export function conversationSession(): string {
  const at = (n: number) => new Date(Date.UTC(2026, 2, 1, 9, 0, n)).toISOString();
  const entry = (n: number, parent: number | null, body: Record<string, unknown>) => ({
    id: `c${String(n).padStart(7, "0")}`,
    parentId: parent === null ? null : `c${String(parent).padStart(7, "0")}`,
    timestamp: at(n),
    ...body,
  });
  const message = (n: number, parent: number, msg: Record<string, unknown>) =>
    entry(n, parent, { type: "message", message: { timestamp: n, ...msg } });
  const records = [
    { type: "session", version: 4, id: CONV.sessionId, createdAt: at(0), cwd: "/work/render" },
    entry(1, null, {
      type: "message",
      message: {
        role: "user",
        timestamp: 1,
        content: [
          "# Render check",
          "",
          "Please fix **this** in `a.ts`:",
          "",
          "```ts",
          "const x: number = 1; // <script>window.__pwned = 1</script>",
          "```",
          "",
          '<script>window.__pwned = 2</script><img src=x onerror="window.__pwned=3">',
          "",
          "[bad link](javascript:window.__pwned=4) and [good link](https://example.com/docs)",
          "",
          "| a | b |",
          "|---|---|",
          "| 1 | 2 |",
        ].join("\n"),
      },
    }),
    entry(2, 1, { type: "model_change", provider: "anthropic", modelId: "claude-sonnet-4-5" }),
    message(3, 2, {
      role: "assistant",
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      stopReason: "toolUse",
      content: [
        { type: "thinking", thinking: "The second line is wrong." },
        { type: "text", text: "Fixing line 2." },
        {
          type: "toolCall",
          id: "call-edit",
          name: "edit",
          arguments: {
            path: "src/a.ts",
            oldText: "one\ntwo\nthree\n",
            newText: "one\nTWO\nthree\n",
          },
        },
      ],
    }),
    message(4, 3, {
      role: "toolResult",
      toolCallId: "call-edit",
      toolName: "edit",
      content: [{ type: "text", text: "Edited src/a.ts" }],
      isError: false,
    }),
    message(5, 4, {
      role: "assistant",
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      stopReason: "toolUse",
      content: [{
        type: "toolCall",
        id: "call-bash",
        name: "bash",
        arguments: { command: "npm test" },
      }],
    }),
    message(6, 5, {
      role: "toolResult",
      toolCallId: "call-bash",
      toolName: "bash",
      content: [{ type: "text", text: ANSI_OUTPUT }],
      isError: false,
    }),
    entry(7, 6, { type: "label", targetId: "c0000003", label: "the fix" }),
    message(8, 7, {
      role: "assistant",
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      stopReason: "toolUse",
      content: [{
        type: "toolCall",
        id: "call-write",
        name: "write",
        arguments: { path: "notes.py", content: "def main():\n    return 42\n" },
      }],
    }),
    message(9, 8, {
      role: "assistant",
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      stopReason: "stop",
      content: [{ type: "text", text: "Done: the tests pass." }],
    }),
  ];
  return records.map((record) => JSON.stringify(record)).join("\n") + "\n";
}
