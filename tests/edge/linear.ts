/**
 * A linear session of a chosen size (user turn, assistant with a tool call, tool result,
 * assistant answer, repeated), the shape the edge memory targets are stated for. Written as
 * chunks so a 60 MB session is streamed, never one string.
 *
 * @module
 */

const encoder = new TextEncoder();

/** About `bytes` of JSONL (whole lines; the last turn may overshoot by one turn). */
export function* linearSessionChunks(bytes: number, id = "linear"): Generator<Uint8Array> {
  const header = JSON.stringify({
    type: "session",
    version: 4,
    id,
    createdAt: "2026-01-01T00:00:00.000Z",
    cwd: "/work/project",
  });
  let sent = header.length + 1;
  let parent: string | null = null;
  let n = 0;
  const prose = "The handler reads the session as it streams and projects it once. ".repeat(12);
  const file = "export function answer(value: number): number {\n  return value * 2;\n}\n".repeat(
    20,
  );
  let lines = [header];
  const entry = (message: Record<string, unknown>) => {
    const id = (++n).toString(16).padStart(8, "0");
    const line = JSON.stringify({
      type: "message",
      id,
      parentId: parent,
      timestamp: new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString(),
      message: { ...message, timestamp: Date.UTC(2026, 0, 1) + n * 1000 },
    });
    parent = id;
    lines.push(line);
    sent += line.length + 1;
  };
  while (sent < bytes) {
    const call = `call_${n}`;
    entry({ role: "user", content: [{ type: "text", text: `Step ${n}: ${prose}` }] });
    entry({
      role: "assistant",
      content: [
        { type: "text", text: `${n} ${prose}` },
        { type: "toolCall", id: call, name: "read", arguments: { path: `src/file_${n}.ts` } },
      ],
      api: "anthropic-messages",
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      usage: { input: 1200, output: 300, cacheRead: 0, cacheWrite: 0, totalTokens: 1500 },
      stopReason: "toolUse",
    });
    entry({
      role: "toolResult",
      toolCallId: call,
      toolName: "read",
      content: [{ type: "text", text: `// ${call}\n${file}` }],
      isError: false,
    });
    entry({
      role: "assistant",
      content: [{ type: "text", text: `${prose} (${n})` }],
      api: "anthropic-messages",
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      usage: { input: 2400, output: 200, cacheRead: 0, cacheWrite: 0, totalTokens: 2600 },
      stopReason: "stop",
    });
    if (lines.length >= 256) {
      yield encoder.encode(lines.join("\n") + "\n");
      lines = [];
    }
  }
  if (lines.length) yield encoder.encode(lines.join("\n") + "\n");
}

/** The same session as a stream (pulled chunk by chunk). */
export function linearSessionStream(bytes: number, id?: string): ReadableStream<Uint8Array> {
  const chunks = linearSessionChunks(bytes, id);
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
  });
}
