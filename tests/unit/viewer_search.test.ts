/**
 * The viewer's search answers without a browser: a count past the limit is reported as
 * more ("100+", not "100 matches"), one source or merged; and where a hit is shown (the
 * leaf whose branch holds it, never the hit cut as the leaf unless it is one, and its
 * conversation item).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { MemorySessionStore } from "../../src/memory_store.ts";
import type { SessionEntry, SessionHeader } from "../../src/schema.ts";
import { mergeSearchViews, searchViews } from "../../web/worker/search.ts";
import { OpenedSession } from "../../web/worker/opened_session.ts";

const header = (id: string): SessionHeader => ({
  type: "session",
  version: 4,
  id,
  createdAt: "2026-01-01T00:00:00.000Z",
  cwd: "/search",
});

function message(id: string, parentId: string | null, n: number, text: string): SessionEntry {
  const role = n % 2 ? "user" : "assistant";
  return {
    type: "message",
    id,
    parentId,
    timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
    message: role === "user"
      ? { role, content: text, timestamp: n }
      : { role, content: [{ type: "text", text }], timestamp: n },
  } as unknown as SessionEntry;
}

/** A chain of `n` messages, each holding `word`. */
function chain(n: number, word: string): SessionEntry[] {
  return Array.from(
    { length: n },
    (_, i) => message(`m${i + 1}`, i ? `m${i}` : null, i + 1, `${word} number ${i + 1}`),
  );
}

test("viewer search: more hits than the limit are reported as more, not as the limit", async () => {
  const store = new MemorySessionStore();
  await store.create(header("many"), chain(150, "pelican"));
  await store.create(header("exact"), chain(40, "heron"));
  const many = await searchViews(store, "pelican", { source: "browser", limit: 100 });
  assert.equal(many.total, 100);
  assert.equal(many.more, true);
  const exact = await searchViews(store, "heron", { source: "browser", limit: 40 });
  assert.equal(exact.total, 40);
  assert.equal(exact.more, false, "exactly the limit is not more");
  const merged = mergeSearchViews("x", [exact, { ...exact, groups: [] }], 30);
  assert.equal(merged.total, 30);
  assert.equal(merged.more, true, "cut while merging");
  assert.equal(mergeSearchViews("x", [exact], 40).more, undefined);
});

test("viewer locate: a hit is shown on a branch that holds it, without cutting it", async () => {
  // m1 → m2 → (m3 abandoned → m4) | (m5 → m6, the newest)
  const store = new MemorySessionStore();
  await store.create(header("branched"), [
    message("m1", null, 1, "start"),
    message("m2", "m1", 2, "reply"),
    message("m3", "m2", 3, "abandoned"),
    message("m4", "m3", 4, "abandoned reply"),
    message("m5", "m2", 5, "main"),
    message("m6", "m5", 6, "main reply"),
  ]);
  const opened = await OpenedSession.load(store, "branched");
  // On the branch shown: that branch, whole.
  assert.deepEqual(opened.locate("m6", "m2"), { leafId: "m6", item: 1 });
  assert.deepEqual(opened.locate("m4", "m3"), { leafId: "m4", item: 2 });
  // Off the branch shown, on the newest: the newest branch.
  assert.deepEqual(opened.locate("m4", "m5"), { leafId: "m6", item: 2 });
  // Off both: the newest leaf under the hit, not the hit.
  assert.deepEqual(opened.locate("m6", "m3"), { leafId: "m4", item: 2 });
  assert.throws(() => opened.locate("m6", "nope"), /nope/);
});
