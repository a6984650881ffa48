/**
 * Entry bodies of a lazily opened JSONL file (stores/jsonl/scan/_lazy_open.ts) are read back from the file
 * by offset: in file order (how a context is built) one read serves many bodies, read
 * backwards no read reaches past the body asked for, and every body equals the parsed
 * entry either way. Runs under `deno test` and, bundled, under Node 20.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseSessionJsonlSync } from "../../core.ts";
import { READ_AHEAD_BYTES, scanLazy } from "../../stores/jsonl/scan/_lazy_open.ts";
import { memoryFile, sessionBytes } from "./scan_files.ts";

/** A lazy open of a generated session whose body reads are counted. */
async function opened() {
  const { bytes } = sessionBytes(3_000, 5);
  const reads = { count: 0, bytes: 0 };
  const readSync = (start: number, end: number) => {
    reads.count++;
    const slice = bytes.slice(start, end);
    reads.bytes += slice.length;
    return slice;
  };
  const lazy = await scanLazy(memoryFile(bytes), { key: "a", readSync });
  assert.ok(lazy, "the lazy open answers");
  reads.count = reads.bytes = 0; // the open's own reads
  return { session: lazy.session, bytes, reads, entries: parseSessionJsonlSync(bytes).entries };
}

test("bodies read in file order share reads", async () => {
  const { session, bytes, reads, entries } = await opened();
  const bodies = session.ids.map((_, i) => session.read(i));
  assert.deepStrictEqual(bodies, entries);
  const windows = Math.ceil(bytes.length / READ_AHEAD_BYTES);
  assert.ok(bytes.length > 4 * READ_AHEAD_BYTES, `${bytes.length} bytes: several windows`);
  assert.ok(reads.count <= 2 * windows, `${reads.count} reads for ${entries.length} bodies`);
});

test("bodies read backwards are read one by one, nothing read ahead", async () => {
  const { session, bytes, reads, entries } = await opened();
  const positions = session.ids.map((_, i) => i).reverse();
  const bodies = positions.map((i) => session.read(i));
  assert.deepStrictEqual(bodies.reverse(), entries);
  assert.ok(reads.bytes <= bytes.length + READ_AHEAD_BYTES, `${reads.bytes} bytes read`);
});

test("a line holding only a byte-order mark (or other Unicode space): one verdict for both paths", async () => {
  const { bytes } = sessionBytes(40, 9);
  const text = new TextDecoder().decode(bytes);
  const lines = text.split("\n");
  // After the header, after an entry, and a last line: blank to the parser (as to pi).
  const spaced = [lines[0], "\ufeff", lines[1], lines[2], "\u00a0\ufeff", ...lines.slice(3, -1)]
    .join("\n") + "\n\ufeff\n";
  const file = new TextEncoder().encode(spaced);
  const entries = parseSessionJsonlSync(file).entries;
  const readSync = (start: number, end: number) => file.slice(start, end);
  const lazy = await scanLazy(memoryFile(file), { key: "a", readSync });
  assert.ok(lazy, "the lazy open accepts what the parser accepts");
  assert.deepStrictEqual(lazy.session.ids.map((_, i) => lazy.session.read(i)), entries);
  const kept = await scanLazy(memoryFile(file), { key: "b" }); // bodies kept as read
  assert.deepStrictEqual(kept!.session.ids.map((_, i) => kept!.session.read(i)), entries);
});

test("a body read back is checked as the parser checks it, even when the index is trusted", async () => {
  const { bytes } = sessionBytes(200, 12);
  const kept: { index?: Uint8Array } = {};
  const identity = () => Promise.resolve({ key: "dev:ino", size: bytes.length, changedMs: 0 });
  const first = memoryFile(bytes, kept);
  first.index!.identity = identity;
  assert.ok(
    await scanLazy(first, { key: "a" }),
    "the first open writes an index naming the identity",
  );
  // The same length, the identity unchanged (a rewrite the identity cannot see): one entry's
  // role becomes one the parser rejects.
  const text = new TextDecoder().decode(bytes);
  const at = text.indexOf('"role":"user"', text.length >> 1);
  const edited = new TextEncoder().encode(
    `${text.slice(0, at)}"role":"usex"${text.slice(at + 13)}`,
  );
  assert.equal(edited.length, bytes.length);
  const file = memoryFile(edited, kept);
  file.index!.identity = identity;
  const readSync = (start: number, end: number) => edited.slice(start, end);
  const lazy = await scanLazy(file, { key: "b", readSync });
  assert.ok(lazy, "the index is trusted by its identity, nothing is checked again");
  assert.equal(file.counts.streamed, 0);
  const position = lazy.session.ids.findIndex((_, i) => {
    try {
      lazy.session.read(i);
      return false;
    } catch {
      return true;
    }
  });
  assert.notEqual(position, -1, "the edited entry is refused, never returned");
  assert.throws(() => lazy.session.read(position), /changed since it was opened/);
});
