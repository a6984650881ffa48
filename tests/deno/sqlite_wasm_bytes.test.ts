/**
 * The viewer's import path at the byte level: `parseSessionJsonl(..., { retainRaw: "bytes" })`
 * keeps each line's UTF-8 bytes, and the sqlite-wasm store binds them as TEXT as they are
 * (`SqliteDatabase.textBytes`, stores/sqlite/wasm.ts). What is stored and exported must be
 * byte-identical to the text path whatever the chunking (a multi-byte character cut across
 * chunks), with a BOM and CRLF line ends; invalid UTF-8 and torn final lines are rejected
 * as before. sqlite-wasm runs in Deno on an in-memory database.
 */
import { parseSessionJsonl } from "../../src/jsonl.ts";
import { SessionFormatError } from "../../src/errors.ts";
import { importParsedSession } from "../../src/import_rule.ts";
import { SqliteSessionStore } from "../../stores/sqlite/store.ts";
import { loadSqliteWasm, oo1Database } from "../../stores/sqlite/wasm.ts";
import { assert, assertEquals, assertRejects } from "../conformance/assert.ts";

const encoder = new TextEncoder();
const header =
  '{"type":"session","version":4,"id":"s1","createdAt":"2026-01-01T00:00:00.000Z","cwd":"/p"}';
const message = (id: string, parent: string | null, content: string) =>
  `{"type":"message","id":"${id}","parentId":${parent === null ? "null" : `"${parent}"`},` +
  `"timestamp":"2026-03-01T10:00:01.000Z","message":{"role":"user","content":${
    JSON.stringify(content)
  },"timestamp":1772359201000}}`;
// Two-, three- and four-byte characters, a raw U+2028, a real U+FFFD (valid UTF-8), key
// spacing JSON.stringify would not keep: only the original bytes reproduce these lines.
const lines = [
  message("e1", null, "café — 日本語 🙂 \u2028 end"),
  message("e2", "e1", "a real \ufffd replacement character").replace('"role":', '"role" : '),
  message("e3", "e2", "🙂".repeat(40)),
];
const jsonl = `\ufeff${header}\r\n${lines.join("\r\n")}\r\n`;
const expected = `${header}\n${lines.join("\n")}\n`;

/** A stream of `bytes` in chunks of `size` bytes. */
function chunked(bytes: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at += size));
    },
  });
}

/** A sqlite-wasm store on a fresh in-memory database, counting `textBytes` binds. */
async function wasmStore() {
  const sqlite3 = await loadSqliteWasm();
  const raw = new sqlite3.oo1.DB(":memory:");
  const db = oo1Database(raw);
  const counted = { textBytes: 0 };
  const textBytes = db.textBytes!.bind(db);
  db.textBytes = (bytes) => (counted.textBytes++, textBytes(bytes));
  const store = await SqliteSessionStore.open(db, { journalMode: null });
  return { raw, store, counted };
}

Deno.test("sqlite-wasm import from bytes: stored and exported byte for byte, any chunking", async () => {
  const bytes = encoder.encode(jsonl);
  for (const size of [1, 2, 3, 5, 7, 64, bytes.length]) {
    const { raw, store, counted } = await wasmStore();
    const parsed = await parseSessionJsonl(chunked(bytes, size), { retainRaw: "bytes" });
    await importParsedSession(store, parsed);
    assertEquals(
      counted.textBytes,
      lines.length,
      `chunks of ${size}: every entry bound from bytes`,
    );
    assertEquals(await store.exportJsonl("s1"), expected, `chunks of ${size}`);
    assertEquals(
      raw.selectValue("SELECT count(*) FROM entries WHERE typeof(json) = 'text'"),
      lines.length,
      "stored as TEXT, not BLOB",
    );
    const loaded = await store.load("s1");
    assertEquals(loaded.entries.map((e) => e.id), ["e1", "e2", "e3"]);
    await store.close();
  }
  // The text path stores the same rows.
  const { store, counted } = await wasmStore();
  await importParsedSession(store, await parseSessionJsonl(chunked(bytes, 7)));
  assertEquals(counted.textBytes, 0);
  assertEquals(await store.exportJsonl("s1"), expected);
  await store.close();
});

Deno.test("parse from bytes: other stores get the same text back", async () => {
  const parsed = await parseSessionJsonl(chunked(encoder.encode(jsonl), 3), { retainRaw: "bytes" });
  const { MemorySessionStore } = await import("../../src/memory_store.ts");
  const memory = new MemorySessionStore();
  await importParsedSession(memory, parsed);
  assertEquals(await memory.exportJsonl("s1"), expected);
});

Deno.test("parse from bytes: invalid UTF-8 and torn lines are rejected with their line", async () => {
  const bad = (tail: Uint8Array) => {
    const head = encoder.encode(`${header}\n${lines[0]}\n`);
    const all = new Uint8Array(head.length + tail.length);
    all.set(head);
    all.set(tail, head.length);
    return all;
  };
  const join = (before: string, bytes: number[], after: string) =>
    new Uint8Array([...encoder.encode(before), ...bytes, ...encoder.encode(after)]);
  const reject = async (bytes: Uint8Array, size: number) =>
    await assertRejects(
      () => parseSessionJsonl(chunked(bytes, size), { retainRaw: "bytes" }),
      SessionFormatError,
    );
  for (const size of [1, 4, 1000]) {
    // A lone continuation byte inside a terminated line.
    const invalid = await reject(bad(join('{"type":"custom","x":"', [0x80], '"}\n')), size);
    assertEquals([invalid.line, invalid.reason], [3, "line is not valid UTF-8"]);
    // A final line cut inside a multi-byte character: the torn-record rule.
    const emoji = encoder.encode(lines[1]);
    const torn = await reject(bad(emoji.subarray(0, emoji.indexOf(0xef) + 1)), size);
    assertEquals(torn.line, 3);
    assert(torn.reason.startsWith("torn final record"), torn.reason);
    // A final line cut elsewhere: torn as well.
    const cut = await reject(bad(encoder.encode(lines[1].slice(0, 30))), size);
    assertEquals(cut.line, 3);
    assert(cut.reason.startsWith("torn final record"), cut.reason);
  }
  // A complete final line without a newline is accepted, from bytes too.
  const whole = await parseSessionJsonl(chunked(bad(encoder.encode(lines[1])), 5), {
    retainRaw: "bytes",
  });
  assertEquals(whole.entries.length, 2);
});
