/**
 * The walk every store runs when an appended entry's id is a parent some stored entry names
 * (`assertNoCycleAcrossAppends` in src/guarded_store.ts): it refuses exactly the entries
 * whose parent chain, through the batch and the stored entries, comes back to them, and it
 * ends on stored links that loop among themselves (a session written before cycles were
 * refused) instead of walking forever. The conformance suite runs the same case through
 * every store.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { SessionFormatError } from "../../core.ts";
import { assertNoCycleAcrossAppends } from "../../src/guarded_store.ts";
import type { SessionEntry } from "../../src/schema.ts";

const entry = (id: string, parentId: string | null): SessionEntry => ({
  type: "label",
  id,
  parentId,
  timestamp: "2026-01-01T00:00:00.000Z",
  targetId: id,
});

/** Stored: root; x below "n" (not stored); y below x. */
const stored = new Map<string, string | null>([["root", null], ["x", "n"], ["y", "x"]]);
const check = (entries: SessionEntry[], dangling = ["n"], links = stored) =>
  assertNoCycleAcrossAppends("s", entries, new Set(dangling), (id) => links.get(id));

test("an entry whose chain through stored entries returns to it is refused", () => {
  for (const batch of [[entry("n", "y")], [entry("m", "y"), entry("n", "m")]]) {
    assert.throws(() => check(batch), (error: unknown) => {
      assert.ok(error instanceof SessionFormatError);
      assert.match(error.reason, /n is its own ancestor/);
      return true;
    });
  }
});

test("the dangling parent arriving under the root, or under a missing parent, is accepted", () => {
  check([entry("n", "root")]);
  check([entry("n", "elsewhere")]);
  check([entry("n", null)]);
  check([entry("n", "y")], []); // no stored entry names n: nothing is walked
});

test("stored links that loop without the new entry end the walk", () => {
  const looping = new Map<string, string | null>([["a", "b"], ["b", "a"], ["x", "n"]]);
  check([entry("n", "a")], ["n"], looping);
});
