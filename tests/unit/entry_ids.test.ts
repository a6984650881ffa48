/**
 * Entry ids a manager draws for its appends: 8 hex digits, never one already taken, and
 * drawn from random bytes fetched a block at a time, not one system call per id (on Node
 * each call costs about what a small append's own work does).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { generateEntryId } from "../../src/_migrate.ts";

test("entry ids: fresh 8-hex ids, none taken twice, random bytes fetched once per many ids", () => {
  const original = crypto.getRandomValues.bind(crypto);
  let calls = 0;
  crypto.getRandomValues = ((array: Uint8Array<ArrayBuffer>) => {
    calls++;
    return original(array);
  }) as typeof crypto.getRandomValues;
  const taken = new Set<string>();
  try {
    for (let i = 0; i < 2000; i++) {
      const id = generateEntryId(taken);
      assert.match(id, /^[0-9a-f]{8}$/);
      assert.ok(!taken.has(id));
      taken.add(id);
    }
  } finally {
    crypto.getRandomValues = original;
  }
  assert.ok(calls <= 10, `${calls} calls for 2,000 ids`);
});

test("entry ids: an id the caller already holds is never returned", () => {
  let offered = 0;
  // The first 50 draws are all "taken": the 51st is returned.
  const id = generateEntryId({ has: () => ++offered <= 50 });
  assert.equal(offered, 51);
  assert.match(id, /^[0-9a-f]{8}$/);
});
