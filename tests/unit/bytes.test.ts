/**
 * `concatBytes` joins the parts of a line split across chunks and the range reader's blocks
 * and lines: every byte in order, the separator after each part, and one part without a
 * separator handed back as it is.
 */
import { test } from "node:test";
import { concatBytes } from "../../src/_bytes.ts";
import { assert, assertEquals } from "../conformance/assert.ts";

const bytes = (...values: number[]) => new Uint8Array(values);

test("concatBytes joins parts in order, with the separator after each", () => {
  assertEquals([...concatBytes([bytes(1, 2), bytes(), bytes(3)])], [1, 2, 3]);
  assertEquals([...concatBytes([bytes(1), bytes(2, 3)], 0x0a)], [1, 0x0a, 2, 3, 0x0a]);
  assertEquals([...concatBytes([])], []);
  assertEquals([...concatBytes([bytes(7)], 0x0a)], [7, 0x0a]);
});

test("concatBytes hands one part back without copying it", () => {
  const only = bytes(4, 5, 6).subarray(1);
  assert(concatBytes([only]) === only, "one part was copied");
});
