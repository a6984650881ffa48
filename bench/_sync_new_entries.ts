/**
 * The new entries of an incremental sync round, shared by `sync.ts` and `sync_held_ab.ts`:
 * ten messages appended to each given session, each the child of the one before.
 *
 * @module
 */
import type { SessionEntry, SessionStore } from "../core.ts";

/** Append ten new messages to each of `sessionIds`, ids from `prefix` and `round`. */
export async function appendTenEach(
  store: SessionStore,
  sessionIds: readonly string[],
  round: number,
  prefix: string,
): Promise<void> {
  for (const id of sessionIds) {
    let parentId = (await store.load(id)).entries.at(-1)?.id ?? null;
    const added: SessionEntry[] = [];
    for (let i = 0; i < 10; i++) {
      const at = Date.UTC(2026, 6, 1, 0, round, i);
      const entry = {
        type: "message",
        id: `${prefix}-${round}-${i}-${id.slice(0, 8)}`,
        parentId,
        timestamp: new Date(at).toISOString(),
        message: { role: "user", content: `new ${round} ${i}`, timestamp: at },
      } as SessionEntry;
      added.push(entry);
      parentId = entry.id;
    }
    await store.append(id, added);
  }
}
