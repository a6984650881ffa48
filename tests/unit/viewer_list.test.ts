/**
 * The viewer's list arrangement and the older agent's reading of a retired summary
 * compaction, without a browser: sort orders, project groups in sorted order, fork parents
 * found among the listed rows; and the format-3 projection (summary first, the range from
 * `firstKeptEntryId` up to the record, everything after it, the record's system checkpoint).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseSessionJsonlSync, SessionIndex } from "../../core.ts";
import { buildSessionProjection } from "../../src/projection.ts";
import { groupByProject, parentLookup, sortRows } from "../../web/views/list_groups.ts";
import { olderAgentProjection } from "../../web/worker/older_agent.ts";
import { contextPage, itemFlags } from "../../web/worker/context_page.ts";
import type { SessionRowView } from "../../web/types.ts";
import { fixtureText } from "./fixtures.ts";

function row(id: string, cwd: string, created: number, modified: number, size: number) {
  return {
    id,
    key: id,
    source: "browser",
    title: id,
    titleSource: "first message",
    cwd,
    created,
    modified,
    messageCount: size,
    internal: false,
  } satisfies SessionRowView;
}

const rows = [
  row("a", "/p/alpha", 1, 30, 4),
  row("b", "/p/alpha", 3, 10, 6),
  row("c", "/p/beta", 4, 20, 2),
];

test("sort orders: modified, created and size, newest or largest first", () => {
  assert.deepEqual(sortRows(rows, "modified").map((r) => r.id), ["a", "c", "b"]);
  assert.deepEqual(sortRows(rows, "created").map((r) => r.id), ["c", "b", "a"]);
  assert.deepEqual(sortRows(rows, "size").map((r) => r.id), ["b", "a", "c"]);
  // Ties: the newer modified first, then the id, never the store's order.
  const tied = [row("y", "/p", 1, 5, 1), row("x", "/p", 1, 5, 1), row("z", "/p", 1, 9, 1)];
  assert.deepEqual(sortRows(tied, "size").map((r) => r.id), ["z", "x", "y"]);
});

test("project groups sit where their first session sits in the sort", () => {
  const byCreated = groupByProject(sortRows(rows, "created"));
  assert.deepEqual(byCreated.map((g) => [g.cwd, g.rows.map((r) => r.id)]), [
    ["/p/beta", ["c"]],
    ["/p/alpha", ["b", "a"]],
  ]);
  const byModified = groupByProject(sortRows(rows, "modified"));
  assert.deepEqual(byModified.map((g) => g.cwd), ["/p/alpha", "/p/beta"]);
});

test("a fork's parent is found among the listed rows, or not at all", () => {
  const parentOf = parentLookup(rows);
  assert.equal(parentOf("a")?.id, "a");
  assert.equal(parentOf("gone"), undefined);
  assert.equal(parentOf("__proto__"), undefined);
});

function projectionOf(fixture: string, leafId: string) {
  const { entries } = parseSessionJsonlSync(fixtureText(fixture));
  const index = SessionIndex.build(entries, { source: fixture });
  return buildSessionProjection(entries, leafId, index) as unknown as Record<string, unknown>;
}

/** The roles and texts of a projection's messages, for comparing readings. */
function said(projection: Record<string, unknown>): string[] {
  return (projection.messages as Array<Record<string, unknown>>).map((m) => {
    const content = m.content;
    const text = typeof content === "string"
      ? content
      : Array.isArray(content)
      ? content.map((b) => (b as { text?: string }).text ?? "").join("")
      : String(m.summary ?? "");
    return `${m.role}: ${text}`;
  });
}

test("the older agent's reading: the last summary replaces what precedes its kept entry", () => {
  const projection = projectionOf("projection/non-verbatim-compaction.jsonl", "a3");
  // Format 4: every summary compaction is inert, all messages are in context.
  assert.deepEqual(said(projection), [
    "user: First",
    "assistant: One",
    "user: Second",
    "assistant: Two",
    "user: Third",
    "assistant: Three",
  ]);
  const older = olderAgentProjection(projection)!;
  // The last one (cp4, no strategy) keeps from a2: summary, a2, then what follows cp4.
  assert.deepEqual(said(older), [
    "compactionSummary: s",
    "assistant: Two",
    "user: Third",
    "assistant: Three",
  ]);
  const page = contextPage(older, "a3", 0, 100);
  assert.deepEqual(page.items[0].flags, ["summary as the older agent sent it"]);
  assert.equal(page.items[0].sourceId, "cp4");
  assert.equal(page.boundary, undefined, "no active boundary in the older reading");
  // The real projection is untouched, and marks each retired record.
  assert.equal(said(projection).length, 6);
  const retired = (projection.entries as Array<Record<string, unknown>>)
    .filter((item) => itemFlags(item).includes("retired summary compaction"))
    .map((item) => (item.sourceEntry as { id: string }).id);
  assert.deepEqual(retired, ["cp1", "cp2", "cp3", "cp4"]);
});

test("the older agent's reading uses the record's system checkpoint", () => {
  const projection = projectionOf("projection/non-verbatim-compaction.jsonl", "u2");
  assert.equal(projection.system, null, "format 4 replays no retired checkpoint");
  const older = olderAgentProjection(projection)!;
  assert.equal((older.system as { content: string }).content, "pi checkpoint prompt");
  assert.deepEqual(said(older), [
    "compactionSummary: User asked first.",
    "assistant: One",
    "user: Second",
  ]);
});

test("no retired compaction on the branch: no older reading", () => {
  assert.equal(
    olderAgentProjection(projectionOf("projection/non-verbatim-compaction.jsonl", "a1")),
    undefined,
  );
});
