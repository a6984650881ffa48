/**
 * The sqlite-wasm adapter's own parameter binding (`stores/sqlite/_wasm_bind.ts`): every
 * value binds as the OO1 API binds it (same type, same value), and an import allocates in
 * the wasm heap only for each entry's JSON, not for every short string of a row (OO1
 * allocated five more a row: the largest cost of the viewer's insert). sqlite-wasm runs in
 * Deno on an in-memory database.
 */
import { parseSessionJsonl } from "../../src/jsonl.ts";
import { importParsedSession } from "../../src/import_rule.ts";
import { SqliteSessionStore } from "../../stores/sqlite/store.ts";
import { loadSqliteWasm, oo1Database } from "../../stores/sqlite/wasm.ts";
import { SCRATCH_BYTES } from "../../stores/sqlite/_wasm_bind.ts";
import { assert, assertEquals } from "../conformance/assert.ts";

Deno.test("sqlite-wasm binding: every value binds as OO1 binds it", async () => {
  const sqlite3 = await loadSqliteWasm();
  const raw = new sqlite3.oo1.DB(":memory:");
  const db = oo1Database(raw);
  const values: unknown[] = [
    null,
    undefined,
    0,
    -0,
    1,
    -1,
    2 ** 31 - 1,
    -(2 ** 31),
    2 ** 31,
    2 ** 40,
    -(2 ** 53 - 1),
    1.5,
    Number.MAX_VALUE,
    2n ** 62n,
    2n ** 64n, // too big: both throw
    true,
    false,
    "",
    "ascii id 0123",
    "café — 日本語 🙂",
    "lone \ud800 surrogate",
    "x".repeat(SCRATCH_BYTES), // past the scratch buffer: OO1 binds it
    "é".repeat(SCRATCH_BYTES / 3), // fits exactly
    "é".repeat(SCRATCH_BYTES / 3 + 1),
    new Uint8Array([0, 1, 2, 255]), // a BLOB
    new Uint8Array(0),
  ];
  const sql = "SELECT typeof(?1) AS t, ?1 AS v, hex(?1) AS h";
  const ours = db.prepare(sql);
  const theirs = raw.prepare(sql);
  const outcome = (fn: () => unknown) => {
    try {
      return fn();
    } catch (error) {
      return `throws ${(error as Error).message}`;
    }
  };
  for (const value of values) {
    const expected = outcome(() => {
      try {
        theirs.bind([value as never]);
        theirs.step();
        return theirs.get({});
      } finally {
        theirs.reset(true);
      }
    });
    const got = outcome(() => ours.get(value as never));
    assertEquals(got, expected, `binding ${String(value).slice(0, 40)}`);
  }
  // Parameters past the statement's count fail as before (SQLite's range error).
  let failed = false;
  try {
    db.prepare("SELECT ? AS x").get(1, 2);
  } catch {
    failed = true;
  }
  assert(failed, "an extra parameter is refused");
  theirs.finalize();
  db.close();
});

Deno.test("sqlite-wasm import: one heap allocation per entry (its JSON), no wrapped C call per bind", async () => {
  const sqlite3 = await loadSqliteWasm();
  const count = 300;
  const lines = [
    '{"type":"session","version":4,"id":"s1","createdAt":"2026-01-01T00:00:00.000Z","cwd":"/p"}',
  ];
  for (let i = 0; i < count; i++) {
    lines.push(JSON.stringify({
      type: "message",
      id: `e${i}`,
      parentId: i ? `e${i - 1}` : null,
      timestamp: "2026-03-01T10:00:01.000Z",
      message: { role: "user", content: `hello ${i}`, timestamp: 1772359201000 },
    }));
  }
  const bytes = new TextEncoder().encode(lines.join("\n") + "\n");
  const parsed = await parseSessionJsonl(new Blob([bytes]).stream(), { retainRaw: "bytes" });
  const store = await SqliteSessionStore.open(oo1Database(new sqlite3.oo1.DB(":memory:")), {
    journalMode: null,
    deferSearchIndexAbove: 100, // as the viewer: the import leaves search to the first search
  });
  const wasm = sqlite3.wasm as { alloc: (n: number) => unknown };
  const alloc = wasm.alloc;
  let allocations = 0;
  wasm.alloc = (n: number) => (allocations++, alloc(n));
  // The C API's JavaScript wrappers of the binding functions (`xWrap`: a scoped allocation
  // pushed and popped, every argument converted, each call).
  const capi = sqlite3.capi as unknown as Record<string, (...args: unknown[]) => number>;
  const wrapped = ["sqlite3_bind_text", "sqlite3_bind_int", "sqlite3_bind_null"];
  const originals = wrapped.map((name) => capi[name]);
  let wrapperCalls = 0;
  wrapped.forEach((name, i) => {
    capi[name] = (...args) => (wrapperCalls++, originals[i](...args));
  });
  try {
    await importParsedSession(store, parsed);
  } finally {
    wasm.alloc = alloc;
    wrapped.forEach((name, i) => capi[name] = originals[i]);
  }
  assertEquals(await store.exportJsonl("s1"), lines.join("\n") + "\n");
  // Before: 6 a row (the JSON, session id, entry id, parent id, type, path pointers).
  assert(
    allocations <= count + 20,
    `${allocations} allocations for ${count} entries (${(allocations / count).toFixed(1)} a row)`,
  );
  // Before: 8 a row (6 texts, 2 integers), all through the wrappers.
  assertEquals(wrapperCalls, 0, "the binder calls the wasm exports");
  await store.close();
});
