/**
 * Context-only loads (src/context_load.ts) against today's full projection: over every
 * parseable fixture and every leaf of it, over generated sessions (branches, verbatim
 * compactions, model and thinking changes, context edits), and over hand-made sessions for
 * the cases the prefix cannot carry (a kept-tail result answering an earlier call). The
 * split must either give exactly `buildSessionProjection`'s answer or say it cannot decide.
 * Runs under `deno test` and, bundled, under Node 20.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  buildSessionProjection,
  MemorySessionStore,
  type SessionEntry,
  type SessionHeader,
  SessionIndex,
} from "../../core.ts";
import {
  loadSessionProjection,
  projectLoadedContext,
  splitContextPath,
} from "../../src/context_load.ts";
import { generatedSession, handMadeSessions, parseableFixtures } from "./context_sessions.ts";

/** The split's projection for `leafId`, or undefined when it cannot decide. */
function splitProjection(header: SessionHeader, entries: SessionEntry[], leafId: string | null) {
  const path = SessionIndex.build(entries).getPath(leafId);
  return projectLoadedContext({ header, ...splitContextPath(path) });
}

/** Compare on every leaf (every `step`-th entry); returns how many leaves were undecided. */
function compareAllLeaves(
  name: string,
  header: SessionHeader,
  entries: SessionEntry[],
  step = 1,
): number {
  let undecided = 0;
  const index = SessionIndex.build(entries);
  const leaves: (string | null)[] = [null];
  for (let i = 0; i < entries.length; i += step) leaves.push(entries[i].id);
  if (entries.length) leaves.push(entries[entries.length - 1].id);
  for (const leaf of leaves) {
    const full = buildSessionProjection(entries, leaf, index);
    const split = splitProjection(header, entries, leaf);
    if (split === undefined) undecided++;
    else assert.deepStrictEqual(split, full, `${name}, leaf ${leaf}`);
  }
  return undecided;
}

test("context-only split equals the full projection on every fixture and every leaf", () => {
  const fixtures = parseableFixtures();
  assert.ok(fixtures.length >= 35, `found ${fixtures.length} parseable fixtures`);
  let withBoundary = 0;
  for (const { name, header, entries } of fixtures) {
    compareAllLeaves(name, header, entries);
    if (entries.some((e) => e.type === "compaction")) withBoundary++;
  }
  assert.ok(withBoundary >= 5, "the fixtures exercise boundaries");
});

test("context-only split equals the full projection on generated sessions", () => {
  for (const size of [3_000, 6_000]) {
    const { header, entries } = generatedSession(size, size);
    const undecided = compareAllLeaves(`generated ${size}`, header, entries, 97);
    const last = entries[entries.length - 1].id;
    const { entries: context } = splitContextPath(SessionIndex.build(entries).getPath(last));
    assert.ok(context.length < entries.length / 2, "a boundary bounds the context range");
    assert.ok(undecided < 30, `${undecided} undecided leaves`);
  }
});

test("hand-made sessions: undecided exactly when a kept-tail result answers an earlier call", async () => {
  for (const { name, header, entries, decidable } of handMadeSessions()) {
    const leaf = entries[entries.length - 1].id;
    const split = splitProjection(header, entries, leaf);
    assert.equal(split !== undefined, decidable, name);
    compareAllLeaves(name, header, entries);
    // loadSessionProjection falls back to a full load and always agrees
    const store = new MemorySessionStore();
    await store.create(header, entries);
    assert.deepStrictEqual(
      await loadSessionProjection(store, header.id),
      buildSessionProjection(entries, undefined),
      name,
    );
  }
});

test("the split needs only the context range and the replayed settings", () => {
  const { entries } = generatedSession(6_000, 6_000);
  const path = SessionIndex.build(entries).getPath(entries[entries.length - 1].id);
  const { prefix, entries: range } = splitContextPath(path);
  assert.ok(
    prefix.length <= 3,
    "model, thinking level, context window (a checkpoint holds system)",
  );
  assert.equal(prefix.length + range.length < path.length, true);
  assert.equal(range.at(-1), path.at(-1));
});
