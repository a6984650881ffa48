/**
 * Child process for the two-writer test: appends `count` entries, one append call each, to
 * one session in a JSONL folder. Args: <dir> <sessionId> <tag> <count>.
 */
import { openJsonlFsStore } from "../../stores/jsonl/fs.ts";
import type { SessionEntry } from "../../core.ts";

const [dir, sessionId, tag, countText] = Deno.args;
const count = Number(countText);
const store = await openJsonlFsStore(dir, { trashCommand: false, lockTimeoutMs: 60_000 });
let parentId: string | null = null;
for (let i = 0; i < count; i++) {
  const id = `${tag}${i.toString(16).padStart(7, "0")}`;
  const entry: SessionEntry = {
    type: "message",
    id,
    parentId,
    timestamp: new Date().toISOString(),
    message: { role: "user", content: `${tag} ${i} ${"x".repeat(i % 300)}`, timestamp: Date.now() },
  };
  await store.append(sessionId, [entry]);
  parentId = id;
}
await store.close();
