/**
 * The export index (src/export_index.ts): what it records about every fixture matches the
 * parsed session, it stays small, and a torn, foreign, swapped or stale index, or a changed
 * block or file, is refused with an ExportIndexError rather than trusted.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  buildExportIndex,
  checkExportBlock,
  checkExportFile,
  ExportIndexError,
  parseExportIndex,
  serializeExportIndex,
} from "../../src/export_index.ts";
import { contextFlags } from "../../src/context_load.ts";
import { SessionWriter } from "../../bench/gen/session.ts";
import { Rng, TextPools } from "../../bench/gen/text.ts";
import { parseableFixtures } from "./context_sessions.ts";

const encoder = new TextEncoder();

function refused(error: unknown, says: string): void {
  assert(error instanceof ExportIndexError, `not an ExportIndexError: ${error}`);
  assert(error.message.includes(says), `"${error.message}" does not say "${says}"`);
}

function assertThrows(run: () => unknown, _type: unknown, says = ""): void {
  try {
    run();
  } catch (error) {
    return refused(error, says);
  }
  throw new Error(`accepted, expected a refusal saying "${says}"`);
}

async function assertRejects(
  run: () => Promise<unknown>,
  _type: unknown,
  says = "",
): Promise<void> {
  try {
    await run();
  } catch (error) {
    return refused(error, says);
  }
  throw new Error(`accepted, expected a refusal saying "${says}"`);
}

function jsonlOf(session: { header: unknown; entries: unknown[] }): string {
  return [session.header, ...session.entries].map((line) => JSON.stringify(line)).join("\n") + "\n";
}

function generatedJsonl(entries: number): string {
  const writer = new SessionWriter(new Rng(7), new TextPools(new Rng(8)), {
    entries,
    startMs: Date.UTC(2026, 3, 1),
    imageEvery: 0,
  });
  const header = { type: "session", version: 4, id: "gen", createdAt: "2026-04-01T00:00:00Z" };
  return [header, ...writer.run()].map((line) => JSON.stringify(line)).join("\n") + "\n";
}

test("every fixture's index names each entry's line, parent and context flags", async () => {
  const fixtures = parseableFixtures();
  assert(fixtures.length > 10, `${fixtures.length} fixtures`);
  for (const session of fixtures) {
    const jsonl = jsonlOf(session);
    const bytes = encoder.encode(jsonl);
    const index = parseExportIndex(serializeExportIndex(await buildExportIndex(jsonl)));
    const ids = Array.from({ length: index.count }, (_, i) => index.idAt(i));
    assert.deepEqual(ids, session.entries.map((e) => e.id), session.name);
    session.entries.forEach((entry, i) => {
      const line = new TextDecoder().decode(
        bytes.subarray(index.offsets[i], index.offsets[i] + index.lengths[i]),
      );
      assert.deepEqual(JSON.parse(line), entry, `${session.name} line of ${entry.id}`);
      const parent = index.parents[i];
      const known = session.entries.some((e) => e.id === entry.parentId);
      assert.deepEqual(parent < 0 ? null : ids[parent], known ? entry.parentId : null);
      assert.deepEqual(index.flags[i], contextFlags(entry), `${session.name} flags of ${entry.id}`);
      // A span is given exactly for a message entry (message last) written as JSON.stringify
      // writes it, and is that message's JSON text.
      const span = index.messages[i];
      const messageLast = entry.type === "message" && Object.keys(entry).at(-1) === "message";
      assert.equal(span > 0, messageLast, `${session.name} span of ${entry.id}`);
      if (span > 0) {
        const text = new TextDecoder().decode(
          bytes.subarray(index.offsets[i] + span, index.offsets[i] + index.lengths[i] - 1),
        );
        assert.equal(text, JSON.stringify(entry.message), `${session.name} span of ${entry.id}`);
      }
    });
    await checkExportFile(index, bytes);
    for (let block = 0; block < index.blocks.length; block++) {
      const at = block * index.blockSize;
      await checkExportBlock(index, block, bytes.subarray(at, at + index.blockSize));
    }
  }
});

test("the index of a generated session is at most 3% of its JSONL", async () => {
  const jsonl = generatedJsonl(3000);
  const bytes = encoder.encode(jsonl);
  const indexBytes = encoder.encode(serializeExportIndex(await buildExportIndex(bytes)));
  assert(bytes.length > 4 * 64 * 1024, `${bytes.length} bytes: several blocks`);
  assert(indexBytes.length <= bytes.length * 0.03, `${indexBytes.length} / ${bytes.length}`);
});

test("a torn, foreign, other-version or inconsistent index is refused", async () => {
  const index = await buildExportIndex(generatedJsonl(200));
  const text = serializeExportIndex(index);
  assertThrows(() => parseExportIndex(text.slice(0, text.length >> 1)), ExportIndexError, "torn");
  assertThrows(() => parseExportIndex('{"format":"zip"}'), ExportIndexError, "not a mu export");
  // deno-lint-ignore no-explicit-any
  const wire = (change: (v: Record<string, any>) => void) => {
    const value = JSON.parse(text);
    change(value);
    return JSON.stringify(value);
  };
  const refused = (text: string, says = "") =>
    assertThrows(() => parseExportIndex(text), ExportIndexError, says);
  // Version 1 (absolute offsets, an id string per entry) is refused by name, not misread.
  refused(wire((v) => v.version = 1), "version 1");
  // Version 2 (JSON arrays, no message spans) too: export again.
  refused(wire((v) => v.version = 2), "version 2");
  refused(wire((v) => v.version = 4), "version");
  parseExportIndex(wire(() => {}));
  refused(wire((v) => v.blocks = v.blocks.slice(0, -1)), "block");
  refused(wire((v) => v.blocks = v.blocks.replace(/^./, "g")), "blocks");
  refused(wire((v) => v.ids = v.ids.slice(0, v.ids.lastIndexOf("\n"))), "ids");
  refused(wire((v) => v.ids = v.ids.replace("\n", "\n\n")), "ids");
  // The numbers are digit strings: a stray character, one number too few or too many.
  refused(wire((v) => v.gaps = `!${v.gaps.slice(1)}`), "gaps");
  refused(wire((v) => v.flags = v.flags.slice(0, -1)), "flags");
  refused(wire((v) => v.lengths += "0"), "lengths");
  refused(wire((v) => v.entries += 1), "lengths");
  refused(wire((v) => v.messages = v.messages.slice(0, -1)), "messages");
  refused(wire((v) => v.entries = -1), "entries");
  // What the numbers say must fit together.
  const lying = structuredClone(index);
  (lying.messages as number[])[5] = lying.lengths[5];
  refused(serializeExportIndex(lying), "message");
  // The first entry's parent one entry back (before the file), its line 31 bytes later.
  assert.equal(JSON.parse(text).parents[0], "0");
  refused(wire((v) => v.parents = `1${v.parents.slice(1)}`), "entry 0's parent");
  refused(wire((v) => v.gaps = `V${v.gaps.slice(1)}`), "past the end");
});

test("a parsed index finds each id's last position and each position's id", async () => {
  const built = await buildExportIndex(generatedJsonl(60));
  const ids = built.ids;
  [ids[0], ids[1], ids[30], ids[59]] = ["first", "dup", "dup", "last"];
  ids[40] = ids[20];
  const index = parseExportIndex(serializeExportIndex(built));
  assert.equal(index.count, 60);
  ids.forEach((id, i) => {
    assert.equal(index.idAt(i), id);
    assert.equal(index.positionOf(id), ids.lastIndexOf(id), id);
  });
  for (const absent of ["", "no-such-id", "dup\nfirst", "first\n", "irst", "las"]) {
    assert.equal(index.positionOf(absent), -1, JSON.stringify(absent));
  }
});

test("a line not in JSON.stringify's form, or with message not last, gets no span", async () => {
  const header = '{"type":"session","version":4,"id":"s","createdAt":"2026-01-01T00:00:00.000Z"}';
  const message = '{"role":"user","content":"hi","timestamp":1}';
  const lines = [
    `{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":${message}}`,
    `{"type":"message", "id":"b","parentId":"a","timestamp":"2026-01-01T00:00:00.000Z","message":${message}}`,
    `{"type":"message","id":"c","parentId":"b","message":${message},"timestamp":"2026-01-01T00:00:00.000Z"}`,
    `{"type":"message","id":"d","parentId":"c","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"\\u00e9","timestamp":1}}`,
    `{"type":"message","id":"é","parentId":"d","timestamp":"2026-01-01T00:00:00.000Z","message":${message}}`,
  ];
  const index = await buildExportIndex([header, ...lines].join("\n") + "\n");
  const spanOf = (line: string) => line.length - 1 - message.length;
  // The last id is two bytes in UTF-8: the span is a byte offset.
  assert.deepEqual(index.messages, [spanOf(lines[0]), 0, 0, 0, spanOf(lines[4]) + 1]);
});

test("a flipped byte, an appended file or another file's index is refused", async () => {
  const bytes = encoder.encode(generatedJsonl(600));
  const index = await buildExportIndex(bytes);
  const other = await buildExportIndex(encoder.encode(generatedJsonl(601)));
  const flipped = bytes.slice();
  flipped[index.blockSize + 17] ^= 1;
  const second = (b: Uint8Array) => b.subarray(index.blockSize, 2 * index.blockSize);
  await checkExportBlock(index, 1, second(bytes));
  await assertRejects(() => checkExportBlock(index, 1, second(flipped)), ExportIndexError);
  await assertRejects(
    () => checkExportBlock(index, 1, second(bytes).subarray(1)),
    ExportIndexError,
  );
  await assertRejects(() => checkExportFile(index, flipped), ExportIndexError, "digest");
  const appended = new Uint8Array([...bytes, ...encoder.encode("{}\n")]);
  await assertRejects(() => checkExportFile(index, appended), ExportIndexError, "bytes");
  await assertRejects(() => checkExportFile(other, bytes), ExportIndexError);
});

test("only a session the parser accepts is indexed, with its missing parents", async () => {
  const header = '{"type":"session","version":4,"id":"s","createdAt":"2026-01-01T00:00:00.000Z"}';
  const t = "2026-01-01T00:00:01.000Z";
  const orphan = `{"type":"label","id":"a","parentId":"gone","timestamp":"${t}","targetId":"a"}`;
  const index = await buildExportIndex(`${header}\n${orphan}\n`);
  assert.deepEqual(index.missing, ["gone"]);
  assert.deepEqual(parseExportIndex(serializeExportIndex(index)).missing, ["gone"]);
  const cycle = [
    `{"type":"label","id":"a","parentId":"b","timestamp":"${t}","targetId":"a"}`,
    `{"type":"label","id":"b","parentId":"a","timestamp":"${t}","targetId":"a"}`,
  ];
  await assertRejects(
    () => buildExportIndex([header, ...cycle].join("\n") + "\n"),
    ExportIndexError,
    "parser refuses",
  );
  await assertRejects(
    () => buildExportIndex(`${header}\n{"type":"message","id":"m"}\n`),
    ExportIndexError,
    "parser refuses",
  );
  const { missing: _, ...withoutMissing } = JSON.parse(serializeExportIndex(index));
  assertThrows(() => parseExportIndex(JSON.stringify(withoutMissing)), ExportIndexError, "missing");
});
