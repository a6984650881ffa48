/**
 * A session with many nested branch points (each answer forks: one branch goes on, one is
 * abandoned), like the generated 100k-entry session's 95: the shape that pushed the
 * tree's rows off screen. Shared by the tree's unit test and its Chromium test.
 *
 * @module
 */

/** `depth` nested branch points, each with a dead-end sibling. */
export function bushySession(depth: number): string {
  const at = (i: number) => new Date(Date.UTC(2026, 6, 1) + i * 1000).toISOString();
  const rows: unknown[] = [
    { type: "session", version: 4, id: "bushy-0001", createdAt: at(0), cwd: "/bushy" },
  ];
  let parent: string | null = null;
  let n = 0;
  const message = (id: string, parentId: string | null, role: string, text: string) => ({
    type: "message",
    id,
    parentId,
    timestamp: at(++n),
    message: role === "user"
      ? { role, content: text, timestamp: n }
      : { role, content: [{ type: "text", text }], stopReason: "stop", timestamp: n },
  });
  for (let level = 0; level < depth; level++) {
    const ask = `q${String(level).padStart(4, "0")}`;
    rows.push(message(ask, parent, "user", `question at level ${level}: run the tool with care`));
    const dead = `d${String(level).padStart(4, "0")}`;
    rows.push(message(dead, ask, "assistant", `abandoned answer at level ${level}`));
    const kept = `k${String(level).padStart(4, "0")}`;
    rows.push(message(kept, ask, "assistant", `kept answer at level ${level}`));
    parent = kept;
  }
  return rows.map((row) => JSON.stringify(row)).join("\n") + "\n";
}
