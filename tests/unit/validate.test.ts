/**
 * The fast validation path may only ever say "valid" where zod agrees: checked over every
 * entry line of every fixture and over mutants of one entry of each kind (each field
 * deleted or replaced by a value of another type, down to nested fields).
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { KnownSessionEntrySchema, UnknownSessionEntrySchema } from "../../core.ts";
import { isCertainlyValidEntry } from "../../src/validate_fast.ts";
import { fixturePath } from "./fixtures.ts";

type Obj = Record<string, unknown>;

function fixtureEntries(dir = fixturePath("")): Obj[] {
  const out: Obj[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...fixtureEntries(path));
    else if (name.endsWith(".jsonl")) {
      for (const line of readFileSync(path, "utf8").split("\n")) {
        try {
          const value = JSON.parse(line);
          if (value && typeof value === "object" && value.type !== "session") out.push(value);
        } catch {
          // torn and invalid fixture lines are not entries
        }
      }
    }
  }
  return out;
}

/** What zod alone says (the slow path of validateEntry). */
function zodAccepts(value: unknown): boolean {
  const type = (value as Obj | null)?.type;
  const known = KnownSessionEntrySchema.options.some((option) => option.shape.type.value === type);
  return (known ? KnownSessionEntrySchema : UnknownSessionEntrySchema).safeParse(value).success;
}

const ALTERNATIVES: unknown[] = [
  null,
  1,
  "x",
  true,
  [],
  {},
  [{}],
  [{ type: "text" }],
  NaN,
  Infinity,
  "",
];

function* mutants(value: unknown, depth = 0): Generator<unknown> {
  if (depth > 4 || value === null || typeof value !== "object") return;
  const fields = Array.isArray(value)
    ? value.map((v, i) => [String(i), v] as const)
    : Object.entries(value as Obj);
  for (const [key, child] of fields.slice(0, 12)) {
    const copy = (replacement: unknown, drop = false) => {
      if (Array.isArray(value)) {
        const out = [...value];
        if (drop) out.splice(Number(key), 1);
        else out[Number(key)] = replacement;
        return out;
      }
      const out = { ...(value as Obj) };
      if (drop) delete out[key];
      else out[key] = replacement;
      return out;
    };
    yield copy(undefined, true);
    for (const alternative of ALTERNATIVES) yield copy(alternative);
    for (const inner of mutants(child, depth + 1)) yield copy(inner);
  }
}

test("the fast path never accepts what zod rejects, and decides the common entries alone", () => {
  const samples = fixtureEntries();
  assert.ok(samples.length > 500, `fixtures hold ${samples.length} entries`);
  let decided = 0;
  const kinds = new Map<string, Obj>();
  for (const sample of samples) {
    if (isCertainlyValidEntry(sample)) {
      decided++;
      assert.ok(zodAccepts(sample), `fast path accepted ${JSON.stringify(sample).slice(0, 200)}`);
    }
    const kind = `${sample.type}:${(sample.message as Obj | undefined)?.role ?? ""}`;
    if (!kinds.has(kind)) kinds.set(kind, sample);
  }
  assert.ok(decided / samples.length > 0.9, `fast path decided ${decided} of ${samples.length}`);
  let mutated = 0;
  let fastAccepted = 0;
  for (const sample of kinds.values()) {
    for (const mutant of mutants(sample)) {
      mutated++;
      if (!isCertainlyValidEntry(mutant)) continue;
      fastAccepted++;
      assert.ok(
        zodAccepts(mutant),
        `fast path accepted a mutant zod rejects: ${JSON.stringify(mutant).slice(0, 300)}`,
      );
    }
  }
  assert.ok(
    mutated > 1000 && fastAccepted > 100,
    `${mutated} mutants, ${fastAccepted} accepted fast`,
  );
});
