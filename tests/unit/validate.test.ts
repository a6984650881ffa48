/**
 * The structural validator (src/_entry_check.ts), which parsing, the stores and the edge
 * handler use instead of zod, must agree with the zod schemas exactly: the same verdict and
 * the same message (path and wording: it reaches users in `SessionFormatError` reasons and
 * the edge handler's 400 answers). Checked over every record of every session file in the
 * repository and over tens of thousands of seeded mutants of them and of one record of each
 * entry type and message role.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  describeSchemaError,
  KnownSessionEntrySchema,
  SessionHeaderSchema,
  UnknownSessionEntrySchema,
} from "../../src/_zod_schema.ts";
import { KNOWN_ENTRY_TYPES } from "../../src/schema.ts";
import {
  entryShapeProblem,
  headerProblem,
  KNOWN_ENTRY_TYPE_NAMES,
} from "../../src/_entry_check.ts";
import { describeIssue, object, unknown } from "../../src/_check.ts";
import * as z from "zod";
import { mutants, SEEDS, sessionFileRecords, singleChanges } from "./validate_cases.ts";

type Obj = Record<PropertyKey, unknown>;

/** What the zod schemas say about an entry, worded as the parser worded it with zod. */
function zodEntryProblem(value: unknown): string | undefined {
  const type = (value as Obj | null)?.type;
  const schema = typeof type === "string" && KNOWN_ENTRY_TYPES.has(type)
    ? KnownSessionEntrySchema
    : UnknownSessionEntrySchema;
  const result = schema.safeParse(value);
  return result.success ? undefined : describeSchemaError(result.error);
}

function zodHeaderProblem(value: unknown): string | undefined {
  const result = SessionHeaderSchema.safeParse(value);
  return result.success ? undefined : describeSchemaError(result.error);
}

/** A validator's answer as one comparable string (a throw is an answer too). */
function answer(validate: (value: unknown) => string | undefined, value: unknown): string {
  try {
    return validate(value) ?? "valid";
  } catch (error) {
    return `throws ${(error as Error).name}: ${(error as Error).message}`;
  }
}

function show(value: unknown): string {
  try {
    return JSON.stringify(value, (_, v) => typeof v === "bigint" ? `${v}n` : v).slice(0, 300);
  } catch {
    return String(value);
  }
}

/** Compares the two validators over `values`; returns the answers seen, fails on a mismatch. */
function assertAgree(
  values: Iterable<unknown>,
  ours: (value: unknown) => string | undefined,
  zods: (value: unknown) => string | undefined,
  what: string,
): Map<string, number> {
  const seen = new Map<string, number>();
  const mismatches: string[] = [];
  for (const value of values) {
    const expected = answer(zods, value), actual = answer(ours, value);
    if (expected !== actual && mismatches.length < 5) {
      mismatches.push(`${show(value)}\n  zod:  ${expected}\n  ours: ${actual}`);
    }
    seen.set(expected, (seen.get(expected) ?? 0) + 1);
  }
  assert.deepEqual(mismatches, [], `${what}: the validators disagree`);
  return seen;
}

test("the structural validator knows the schema's entry types, in the schema's order", () => {
  assert.deepEqual(KNOWN_ENTRY_TYPE_NAMES, [...KNOWN_ENTRY_TYPES]);
});

test("a required field that accepts anything must still be present, as in zod", () => {
  // No session schema has one; the engine mirrors zod's rule for when one is added.
  const schema = z.looseObject({ a: z.unknown() }), check = object({ a: unknown });
  for (const value of [{}, { a: undefined }, { a: 1 }, Object.create({ a: 1 })]) {
    const result = schema.safeParse(value);
    const found = check(value);
    assert.equal(
      found && describeIssue(found),
      result.success ? undefined : describeSchemaError(result.error),
    );
  }
});

test("every record of every session file: the same verdict and message as zod", () => {
  const { headers, entries, files } = sessionFileRecords();
  assert.ok(files >= 50 && entries.length > 500, `${files} files, ${entries.length} entries`);
  const seen = assertAgree(entries, entryShapeProblem, zodEntryProblem, "fixture entries");
  assert.ok(seen.size > 1, "the fixtures hold invalid entries too");
  assertAgree(headers, headerProblem, zodHeaderProblem, "fixture headers");
});

test("each field of each kind of record dropped or replaced by odd values: the same answer as zod", () => {
  const entries = SEEDS.slice(1);
  const seen = assertAgree(singleChanges(entries), entryShapeProblem, zodEntryProblem, "entries");
  assert.ok(seen.size > 300, `${seen.size} distinct answers`);
  assertAgree(singleChanges(SEEDS.slice(0, 1)), headerProblem, zodHeaderProblem, "headers");
});

test("seeded mutants of every kind of record: the same verdict and message as zod", () => {
  const { headers, entries } = sessionFileRecords();
  const byKind = new Map<string, Obj[]>();
  for (const entry of [...SEEDS.slice(1), ...entries]) {
    const kind = `${String(entry.type)}:${String((entry.message as Obj | undefined)?.role)}`;
    const list = byKind.get(kind) ?? byKind.set(kind, []).get(kind)!;
    if (list.length < 3) list.push(entry);
  }
  // The hand-written seeds (every optional field present) twice: most fields are in them only.
  const samples = [...byKind.values()].flat().concat(SEEDS.slice(1));
  assert.ok(byKind.size >= 22, `${byKind.size} kinds of entries`);

  const seen = assertAgree(
    mutants(samples, 40_000, 17),
    entryShapeProblem,
    zodEntryProblem,
    "entry mutants",
  );
  // The generator reaches both verdicts and a wide range of failures (paths and wordings).
  assert.ok((seen.get("valid") ?? 0) > 2_000, `${seen.get("valid")} valid mutants`);
  assert.ok(seen.size > 300, `${seen.size} distinct answers`);
  for (
    const wording of ["Invalid discriminator value", "Invalid input: expected record", "Too big"]
  ) {
    assert.ok([...seen.keys()].some((key) => key.includes(wording)), `no mutant met "${wording}"`);
  }

  const headerSeen = assertAgree(
    mutants([...headers, SEEDS[0]], 5_000, 18),
    headerProblem,
    zodHeaderProblem,
    "header mutants",
  );
  assert.ok(headerSeen.size > 20, `${headerSeen.size} distinct header answers`);
});
