/**
 * The tool-pairing invariant over every stored session we have: each `.jsonl` under
 * fixtures/ (hand-written cases, the generated realistic session, codec and hostile files)
 * and the generated demo sessions in web/demo/, projected at every leaf of its tree. No
 * projection may hand a provider a tool result without its call (see `tool_pairing.ts`).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { buildSessionProjection, parseSessionJsonlSync, SessionIndex } from "../../core.ts";
import { repoRoot } from "./fixtures.ts";
import { assertToolPairing } from "./tool_pairing.ts";

function jsonlFiles(dir: string): string[] {
  const found: string[] = [];
  for (const item of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, item.name);
    if (item.isDirectory()) found.push(...jsonlFiles(path));
    else if (item.name.endsWith(".jsonl")) found.push(path);
  }
  return found.sort();
}

const files = [
  ...jsonlFiles(join(repoRoot, "fixtures")),
  ...jsonlFiles(join(repoRoot, "web/demo")),
];

test("tool pairing: the corpus includes the generated sessions", () => {
  const names = files.map((file) => file.slice(repoRoot.length + 1));
  assert.ok(names.includes("fixtures/projection/realistic.jsonl"));
  assert.ok(names.includes("fixtures/projection/incomplete-turn-calls.jsonl"));
  assert.ok(names.filter((name) => name.startsWith("web/demo/")).length >= 5);
});

for (const file of files) {
  test(`tool pairing: every leaf of ${file.slice(repoRoot.length + 1)}`, () => {
    let entries;
    try {
      entries = parseSessionJsonlSync(readFileSync(file, "utf8")).entries;
    } catch {
      return; // codec fixtures that must not parse (empty, missing header, ...)
    }
    const index = SessionIndex.build(entries);
    const parents = new Set(entries.map((entry) => entry.parentId));
    const leaves = entries.filter((entry) => !parents.has(entry.id));
    assert.ok(entries.length === 0 || leaves.length > 0);
    for (const leaf of leaves) {
      const { messages } = buildSessionProjection(entries, leaf.id, index);
      try {
        assertToolPairing(messages);
      } catch (error) {
        throw new Error(`leaf ${leaf.id}: ${(error as Error).message}`);
      }
    }
  });
}
