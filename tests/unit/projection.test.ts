/**
 * Projection fixtures (fixtures/projection/*): each case's expected projection must match
 * exactly, and every run must satisfy the invariants every projection has (flattening,
 * context entries, prebuilt index, immutable input, valid tool pairing). Runs under
 * `deno test` and, bundled, under Node 20.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  buildContextEntries,
  buildSessionContext,
  buildSessionProjection,
  type SessionEntry,
  SessionIndex,
  type SessionProjection,
} from "../../core.ts";
import { serializeEntries } from "../../src/jsonl.ts";
import { listCases, loadCase, loadJson } from "../../fixtures/projection/load.ts";
import { assertToolPairing } from "./tool_pairing.ts";

/** The fixture shape of a projection (JSON-normalised). */
function summarize(entries: SessionEntry[], leafId: string | null | undefined): unknown {
  const projection = buildSessionProjection(entries, leafId);
  return JSON.parse(JSON.stringify({
    leafId: projection.leafId,
    messages: projection.messages,
    model: projection.model,
    thinkingLevel: projection.thinkingLevel,
    contextWindow: projection.contextWindow,
    system: projection.system,
    boundaryId: projection.boundary?.id ?? null,
    entries: projection.entries.map(({ sourceEntry, messages, ...flags }) => ({
      id: sourceEntry.id,
      messages: messages.length,
      ...flags,
    })),
    contextEntryIds: buildContextEntries(entries, leafId).map((entry) => entry.id),
  }));
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

function assertInvariants(entries: SessionEntry[], leafId: string | null | undefined): void {
  const before = serializeEntries(entries);
  const projection: SessionProjection = buildSessionProjection(deepFreeze(entries), leafId);
  assert.equal(serializeEntries(entries), before, "raw entries were modified");
  assert.deepEqual(projection.messages, projection.entries.flatMap((entry) => entry.messages));
  const context = buildSessionContext(entries, leafId);
  assert.deepEqual(context, {
    messages: projection.messages,
    thinkingLevel: projection.thinkingLevel,
    model: projection.model,
  });
  assert.deepEqual(
    projection.entries.filter((entry) => entry.derived !== "interrupted-tool-result")
      .map((entry) => entry.sourceEntry),
    buildContextEntries(entries, leafId),
  );
  const index = SessionIndex.build(entries);
  assert.deepEqual(buildSessionProjection([], leafId, index), projection, "prebuilt index ignored");
  assert.deepEqual(buildContextEntries([], leafId, index), buildContextEntries(entries, leafId));
  assert.ok(
    projection.messages.every((m) => m.role !== "system" && m.role !== "compactionSummary"),
  );
  assertToolPairing(projection.messages);
  for (const entry of projection.entries) {
    if (entry.keptTail) {
      assert.equal(entry.messages.length, 0, "kept-tail entries emit no messages");
    }
  }
}

const names = listCases();

test("projection fixtures: every rule of the spec has a case", () => {
  for (
    const name of [
      "no-boundary",
      "boundary-string-id",
      "boundary-null-id",
      "boundary-missing-id",
      "non-verbatim-compaction",
      "context-compaction-inert",
      "context-edits",
      "interrupted-tool-call",
      "orphan-duplicate-results",
      "incomplete-turn-calls",
      "settings-replay",
      "system-replay",
      "system-checkpoint",
      "kept-tail-grammar",
      "kept-tail-images",
      "branch-summaries",
      "leaf-selection",
      "realistic",
    ]
  ) assert.ok(names.includes(name), `missing fixture ${name}`);
});

for (const name of names) {
  test(`projection fixture ${name}`, () => {
    const { entries, runs } = loadCase(name);
    assert.ok(runs.length > 0);
    for (const run of runs) {
      const leafId = "leafId" in run ? run.leafId : undefined;
      const label = `${name} @ ${leafId === undefined ? "(last entry)" : leafId}`;
      assert.deepEqual(summarize(entries, leafId), run.expected, label);
      assertInvariants(entries, leafId);
    }
  });
}

test("realistic session: spot checks of the key facts", () => {
  const { entries } = loadCase("realistic");
  const facts = loadJson("realistic.facts.json") as Record<string, string & number>;
  assert.equal(entries.length, facts.entryCount);
  assert.ok(entries.length >= 250, "a few hundred entries");
  const projection = buildSessionProjection(entries, undefined);
  const { messages } = projection;

  // The verbatim boundary and its kept tail.
  assert.equal(projection.boundary?.id, facts.boundaryId);
  assert.equal(projection.boundary?.firstKeptEntryId, facts.firstKeptId);
  const first = messages[0];
  assert.equal(first.role, "custom");
  assert.ok(first.role === "custom" && Array.isArray(first.content));
  const boundaryText = (first.content as Array<{ text: string }>)[0].text;
  assert.ok(boundaryText.includes("[User]: Now make error messages include the column."));
  assert.ok(boundaryText.includes("[Tool result]: (4000 x's elided)"), "edit applied in the tail");
  assert.ok(!boundaryText.includes("x".repeat(100)), "edited-away tool output is gone");
  assert.equal(
    messages.filter((m) => m.role === "custom" && m.customType === "compaction").length,
    1,
  );
  const bigResult = projection.entries.find((e) => e.sourceEntry.id === facts.bigResult);
  assert.deepEqual(bigResult?.edited, { editEntryId: facts.bigEdit, omitted: false });
  assert.equal(bigResult?.keptTail, true);

  // The failed attempt omitted by its edit.
  const failed = projection.entries.find((e) => e.sourceEntry.id === facts.failed);
  assert.deepEqual(failed?.edited, { editEntryId: facts.failedEdit, omitted: true });
  assert.ok(!messages.some((m) => m.role === "assistant" && m.stopReason === "error"));

  // The interrupted call: one synthetic result right after the real sibling result.
  const synthetic = messages.filter((m) =>
    m.role === "toolResult" && m.toolCallId === facts.lostCallId
  );
  assert.equal(synthetic.length, 1);
  const at = messages.indexOf(synthetic[0]);
  const previous = messages[at - 1];
  assert.ok(previous.role === "toolResult" && previous.toolCallId !== facts.lostCallId);
  assert.equal(synthetic[0].role === "toolResult" && synthetic[0].isError, true);
  assert.ok(
    projection.entries.some((e) =>
      e.derived === "interrupted-tool-result" && e.sourceEntry.id === facts.interrupted
    ),
  );

  // Settings replayed over the whole path; checkpoint + post-boundary system patch.
  assert.deepEqual(projection.model, { provider: "openai", modelId: "gpt-5" });
  assert.equal(projection.thinkingLevel, "high");
  assert.equal(projection.contextWindow, 200000);
  assert.equal(
    projection.system?.content,
    "You are Atomic, a coding agent.\n\nAlways report columns 1-based.",
  );
  assert.equal(projection.system?.sections.date, undefined);
  assert.equal(projection.system?.sections.style, "detailed");

  // Branch-relative edits: the abandoned branch's edit hides a trunk assistant only there.
  const abandoned = buildSessionProjection(entries, facts.abandonedLeaf);
  const target = abandoned.entries.find((e) => e.sourceEntry.id === facts.abandonedEditTarget);
  assert.deepEqual(target?.edited, { editEntryId: facts.abandonedEdit, omitted: true });
  assert.ok(abandoned.entries.some((e) => e.dropped === "orphan"), "its results are orphans");
  const early = buildSessionProjection(entries, facts.branchSummary);
  const original = early.entries.find((e) => e.sourceEntry.id === facts.abandonedEditTarget);
  assert.equal(original?.edited, undefined);
  assert.equal(original?.messages.length, 1);
  assert.equal(early.messages.at(-1)?.role, "branchSummary");
});
