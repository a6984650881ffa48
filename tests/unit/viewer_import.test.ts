/**
 * The viewer's import rules without a browser: re-importing never loses stored entries.
 * Identical content is a no-op, a longer export of the same session appends, anything else
 * asks (keep both under a new id, the default; replace; skip). Plus the toast's counts.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  MemorySessionStore,
  parseSessionJsonlSync,
  type SessionEntry,
  type SessionHeader,
  SessionIndex,
} from "../../core.ts";
import { branchedSession } from "../../src/_branching.ts";
import { storeImported } from "../../web/worker/import_merge.ts";
import { compareWithStored } from "../../src/import_rule.ts";
import { importSummary } from "../../web/import_summary.ts";
import type { ImportConflictChoice } from "../../web/types.ts";
import { fixtureText } from "./fixtures.ts";

const { header, entries } = parseSessionJsonlSync(fixtureText("projection/leaf-selection.jsonl"));

async function stored(): Promise<MemorySessionStore> {
  const store = new MemorySessionStore();
  await store.create(header, entries);
  return store;
}

function asker(answer: ImportConflictChoice) {
  const asked: unknown[] = [];
  return {
    asked,
    ask: (conflict: unknown) => {
      asked.push(conflict);
      return Promise.resolve(answer);
    },
  };
}

const file = (h: SessionHeader, e: SessionEntry[]) => ({ header: h, entries: e });

test("import: identical content is a no-op, nothing asked", async () => {
  const store = await stored();
  const { ask, asked } = asker("replace");
  const copy = parseSessionJsonlSync(fixtureText("projection/leaf-selection.jsonl"));
  const result = await storeImported(store, copy, "again.jsonl", ask);
  assert.deepEqual(result, { status: "unchanged", sessionId: header.id, internal: false });
  assert.equal(asked.length, 0);
  assert.deepEqual((await store.load(header.id)).entries, entries);
});

test("import: a file that extends the stored session appends the new entries", async () => {
  const store = await stored();
  const more: SessionEntry = {
    type: "label",
    id: "l9",
    parentId: "u2",
    timestamp: "2026-07-01T11:00:00.000Z",
    targetId: "u1",
    label: "later",
  };
  const { ask, asked } = asker("skip");
  const result = await storeImported(store, file(header, [...entries, more]), "longer.jsonl", ask);
  assert.equal(result.status, "updated");
  assert.equal(asked.length, 0);
  assert.deepEqual((await store.load(header.id)).entries, [...entries, more]);
});

test("import: a branch of the stored session under its id asks; the default keeps both", async () => {
  // What the old viewer's "Export this branch" wrote: the same header, fewer entries.
  const branch = file(header, entries.slice(0, 2));
  assert.equal(compareWithStored({ header, entries }, branch).kind, "contained");
  for (const answer of ["keep-both", "replace", "skip"] as const) {
    const store = await stored();
    const { ask, asked } = asker(answer);
    const result = await storeImported(store, branch, "branch.jsonl", ask);
    assert.deepEqual(asked, [{
      path: "branch.jsonl",
      sessionId: header.id,
      storedEntries: entries.length,
      fileEntries: 2,
      sharedEntries: 2,
    }]);
    const kept = (await store.load(header.id)).entries.length;
    if (answer === "keep-both") {
      assert.equal(result.status, "kept-both");
      assert.equal(result.fileSessionId, header.id);
      assert.notEqual(result.sessionId, header.id);
      assert.equal(kept, entries.length, "the stored session keeps every entry");
      assert.equal((await store.load(result.sessionId!)).entries.length, 2);
    } else if (answer === "skip") {
      assert.equal(result.status, "skipped");
      assert.equal(kept, entries.length);
      assert.equal((await store.list()).length, 1);
    } else {
      assert.equal(result.status, "replaced");
      assert.equal(kept, 2, "replace is what the user chose");
    }
  }
});

test("import: a changed header or changed entry content is a conflict too", () => {
  const renamed = file({ ...header, cwd: "/elsewhere" }, entries);
  assert.equal(compareWithStored({ header, entries }, renamed).kind, "conflict");
  const edited = entries.map((e, i) => i === 0 ? { ...e, timestamp: "2030-01-01T00:00:00Z" } : e);
  assert.deepEqual(compareWithStored({ header, entries }, file(header, edited)), {
    kind: "conflict",
    shared: entries.length - 1,
  });
  // Key order does not matter (stores may reorder keys).
  const reordered = entries.map((e) => Object.fromEntries(Object.entries(e).reverse()));
  const same = compareWithStored({ header, entries }, file(header, reordered as SessionEntry[]));
  assert.equal(same.kind, "identical");
});

test("a branch export is a new session recording where it came from", () => {
  const branch = branchedSession(header, SessionIndex.build(entries), "u2");
  assert.notEqual(branch.header.id, header.id);
  assert.equal(branch.header.parentSessionId, header.id);
  assert.deepEqual(branch.entries.map((e) => e.id), ["u1", "u2"]);
});

test("import summary: counts every outcome and says how many imported sessions are hidden", () => {
  const r = (status: string, internal = false) =>
    ({ path: "p", size: 1, status, internal }) as Parameters<typeof importSummary>[0][number];
  const ten = [...Array(9).fill(0).map(() => r("imported")), r("imported", true)];
  assert.equal(importSummary(ten, false).text, "Imported 10 sessions (1 internal, hidden).");
  assert.equal(importSummary(ten, true).text, "Imported 10 sessions.");
  assert.equal(
    importSummary([r("unchanged"), r("kept-both")], false).text,
    "Imported 1 session; 1 kept beside a stored session with the same id (new id); 1 already present.",
  );
  assert.equal(importSummary([r("unchanged")], false).text, "1 already present.");
  const failed = importSummary([r("imported"), r("failed")], false);
  assert.equal(failed.text, "Imported 1 session; 1 file could not be loaded (see the list).");
  assert.equal(failed.tone, "error");
});
