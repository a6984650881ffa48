/**
 * The resume index of the JSONL checking pass (stores/jsonl/scan/_resume_index.ts, stores/jsonl/scan/_scan.ts):
 * a file scanned once is scanned again only from where its index ends, and answers exactly
 * like the full parser; an index never vouches for bytes that changed (seeded mutations of
 * the indexed prefix, same-length edits, truncations), a torn, edited or foreign index is
 * ignored and replaced, and an invalid entry appended after the index still rejects the
 * file. Small blocks here make every file span many blocks and end in a partial one. Runs
 * under `deno test` and, bundled, under Node 20.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { serializeSessionJsonl, type SessionEntry } from "../../core.ts";
import { scanContext } from "../../stores/jsonl/scan/_scan.ts";
import { scanLazy } from "../../stores/jsonl/scan/_lazy_open.ts";
import {
  BlockHasher,
  RESUME_INDEX_VERSION,
  type ResumeIndex,
} from "../../stores/jsonl/scan/_resume_index.ts";
import { sha256Hex } from "../../src/_hex.ts";
import { createHash } from "node:crypto";
import { mutate } from "../stress/_mutate.ts";
import { Rng } from "../stress/_shared.ts";
import { agrees, BLOCK, fullAnswer, join, memoryFile, sessionBytes } from "./scan_files.ts";

const encoder = new TextEncoder();

test("a file scanned once is checked again only from where its index ends", async () => {
  const { entries, bytes } = sessionBytes(1_500, 41);
  const kept: { index?: Uint8Array } = {};
  const first = memoryFile(bytes, kept);
  assert.equal(await agrees(first, bytes, undefined, "first"), "answered");
  assert.deepEqual([first.counts.streamed, first.counts.saves], [bytes.length, 1]);

  const again = memoryFile(bytes, kept);
  for (const leaf of [undefined, entries[3].id, entries[700].id, entries.at(-1)!.id]) {
    assert.equal(await agrees(again, bytes, leaf, `again, leaf ${leaf}`), "answered");
  }
  assert.equal(again.counts.streamed, 0, "nothing is parsed again");
  assert.equal(again.counts.saves, 0, "an index that still covers the file is kept");

  // Appends: only they are checked, and they extend the index (a partial block grows).
  const more = sessionBytes(2_400, 41);
  const tail = more.bytes.subarray(
    encoder.encode(serializeSessionJsonl(more.header, more.entries.slice(0, 1_500))).length,
  );
  assert.deepEqual(more.entries.slice(0, 1_500), entries, "the longer session extends the first");
  const grown = join(bytes, tail);
  const resumed = memoryFile(grown, kept);
  assert.equal(await agrees(resumed, grown, undefined, "grown"), "answered");
  assert.equal(resumed.counts.streamed, tail.length, "only the appended lines are checked");
  assert.equal(resumed.counts.saves, 1, "a tail over a quarter of the index extends it");
  for (const leaf of [entries[900].id, more.entries[2_000].id, more.entries.at(-1)!.id]) {
    const file = memoryFile(grown, kept);
    assert.equal(await agrees(file, grown, leaf, `grown, leaf ${leaf}`), "answered");
    assert.deepEqual([file.counts.streamed, file.counts.saves], [0, 0]);
  }
});

test("the lazy open from an index holds what the full pass holds", async () => {
  const { bytes } = sessionBytes(1_200, 43);
  const kept: { index?: Uint8Array } = {};
  const full = await scanLazy(memoryFile(bytes, {}), { key: "a" });
  await scanLazy(memoryFile(bytes, kept), { key: "a" }); // writes the index
  const file = memoryFile(bytes, kept);
  const resumed = await scanLazy(file, { key: "a" });
  assert.equal(file.counts.streamed, 0);
  const a = full!.session;
  const b = resumed!.session;
  assert.deepStrictEqual(
    [b.header, b.ids, b.parents, b.flags, b.listing, b.labelPositions()],
    [a.header, a.ids, a.parents, a.flags, a.listing, a.labelPositions()],
  );
  for (let i = 0; i < a.ids.length; i++) assert.deepStrictEqual(b.read(i), a.read(i));
});

test("an index never vouches for bytes that changed: mutations of the indexed prefix", async () => {
  const sources = [sessionBytes(300, 5).bytes, sessionBytes(450, 6).bytes];
  const rng = new Rng(20261202);
  const verdicts: Record<string, number> = {};
  for (let round = 0; round < 160; round++) {
    const original = rng.pick(sources);
    const kept: { index?: Uint8Array } = {};
    await scanContext(memoryFile(original, kept), undefined);
    assert.ok(kept.index, "indexed");
    const { bytes, steps } = mutate(rng, [original]);
    const file = memoryFile(bytes, kept);
    const verdict = await agrees(file, bytes, undefined, `round ${round}: ${steps.join(", ")}`);
    verdicts[verdict] = (verdicts[verdict] ?? 0) + 1;
    const same = bytes.length >= original.length &&
      bytes.subarray(0, original.length).every((b, i) => b === original[i]);
    if (!same) {
      assert.deepEqual(file.counts.from, [0], "a changed prefix is checked from the start");
    }
  }
  assert.ok(verdicts.answered > 10 && verdicts.declined > 10, JSON.stringify(verdicts));
});

test("a same-length edit inside the indexed prefix is seen", async () => {
  const { entries, bytes } = sessionBytes(400, 7);
  const kept: { index?: Uint8Array } = {};
  await scanContext(memoryFile(bytes, kept), undefined);
  // An unknown role of the same length: the full parser rejects it, the index must not vouch.
  const target = entries.findLast((e) => e.type === "message" && e.message.role === "user")!;
  const line = JSON.stringify(target);
  const text = new TextDecoder().decode(bytes);
  assert.ok(text.includes(line));
  const edited = encoder.encode(text.replace(line, line.replace('"role":"user"', '"role":"usex"')));
  assert.equal(edited.length, bytes.length);
  assert.ok(fullAnswer(edited, undefined).error, "the full parser rejects the edit");
  const file = memoryFile(edited, kept);
  assert.equal(await scanContext(file, undefined), undefined);
  assert.deepEqual(file.counts.from, [0], "the changed file is checked from the start");
  assert.equal(await scanLazy(memoryFile(edited, kept), { key: "a" }), undefined);
});

test("an invalid entry appended after the index still rejects the file", async () => {
  const { entries, bytes } = sessionBytes(500, 9);
  const kept: { index?: Uint8Array } = {};
  await scanContext(memoryFile(bytes, kept), undefined);
  const bad: Record<string, unknown> = { ...entries.at(-1)!, id: "tail-1", parentId: 7 };
  const grown = join(bytes, encoder.encode(`${JSON.stringify(bad)}\n`));
  assert.ok(fullAnswer(grown, undefined).error, "the full parser rejects it");
  const file = memoryFile(grown, kept);
  assert.equal(await scanContext(file, undefined), undefined);
  assert.deepEqual(file.counts.from, [bytes.length], "only the tail was checked to find it");
  const unknownParent = { ...entries.at(-1)!, id: "tail-2", parentId: entries[0].id };
  const dup: SessionEntry = { ...entries.at(-1)!, parentId: entries[1].id }; // a duplicate id
  const twice = join(
    bytes,
    encoder.encode(`${JSON.stringify(unknownParent)}\n${JSON.stringify(dup)}\n`),
  );
  assert.equal(await scanContext(memoryFile(twice, kept), undefined), undefined);
});

test("a torn, edited or foreign index is ignored and replaced", async () => {
  const { bytes } = sessionBytes(300, 11);
  const kept: { index?: Uint8Array } = {};
  await scanContext(memoryFile(bytes, kept), undefined);
  const good = kept.index!;
  const text = new TextDecoder().decode(good);
  const spoiled = [
    good.subarray(0, good.length - 10), // torn
    encoder.encode(text.replace('"bytes":', '"bytes": ')), // body edited: checksum fails
    encoder.encode(text.replace(`"version":${RESUME_INDEX_VERSION}`, `"version":99`)), // another version
    encoder.encode("not an index\n{}"),
    new Uint8Array(0),
  ];
  for (const [i, index] of spoiled.entries()) {
    const own = { index };
    const file = memoryFile(bytes, own);
    assert.equal(await agrees(file, bytes, undefined, `spoiled ${i}`), "answered");
    assert.equal(file.counts.streamed, bytes.length, `spoiled ${i} is not trusted`);
    assert.deepEqual(own.index, good, `spoiled ${i} is replaced by a whole index`);
  }
});

test("no index is written for a file that does not end with a line break, or is small", async () => {
  const { bytes } = sessionBytes(200, 13);
  const cut = bytes.subarray(0, bytes.length - 1); // a final line without its newline
  const kept: { index?: Uint8Array } = {};
  await agrees(memoryFile(cut, kept), cut, undefined, "unterminated");
  assert.equal(kept.index, undefined);
  const small = memoryFile(bytes, {});
  small.index!.minBytes = bytes.length + 1;
  await scanContext(small, undefined);
  assert.equal(small.counts.saves, 0);
  // A file whose identity says it is small is not even hashed.
  let digests = 0;
  const known = memoryFile(bytes, {});
  known.index!.minBytes = bytes.length + 1;
  known.index!.identity = () => Promise.resolve({ key: "k", size: bytes.length, changedMs: 0 });
  known.index!.digest = (block) => (digests++, sha256Hex(block));
  await scanContext(known, undefined);
  assert.deepEqual([known.counts.saves, digests], [0, 0]);
});

test("an index names the file's identity: an unchanged file is resumed without hashing", async () => {
  const { entries, bytes } = sessionBytes(600, 17);
  const kept: { index?: Uint8Array } = {};
  const old = Date.now() - 60_000;
  let identity = { key: "dev:ino:v1", size: bytes.length, changedMs: old };
  const withIdentity = (file: ReturnType<typeof memoryFile>) => {
    file.index!.identity = () => Promise.resolve(identity);
    return file;
  };
  await scanContext(withIdentity(memoryFile(bytes, kept)), undefined);
  const same = withIdentity(memoryFile(bytes, kept));
  assert.equal(await agrees(same, bytes, entries[300].id, "unchanged"), "answered");
  assert.equal(same.counts.streamed, 0);
  const blockReads = Math.ceil(bytes.length / BLOCK);
  assert.ok(same.counts.reads < 3, `${same.counts.reads} reads: entries only, no block hashed`);

  // Another identity (any write, a touch): the digests decide, and the index is renewed.
  identity = { ...identity, key: "dev:ino:v2" };
  const touched = withIdentity(memoryFile(bytes, kept));
  assert.equal(await agrees(touched, bytes, undefined, "touched"), "answered");
  assert.ok(touched.counts.reads >= blockReads, "the prefix was hashed");
  assert.equal(touched.counts.saves, 1, "and the index now names the new identity");
  const again = withIdentity(memoryFile(bytes, kept));
  await scanContext(again, undefined);
  assert.ok(again.counts.reads < 3);

  // A bad edit under an identity the index does not name is still refused.
  const text = new TextDecoder().decode(bytes);
  const edited = encoder.encode(text.replace('"role":"user"', '"role":"usex"'));
  identity = { key: "dev:ino:v3", size: edited.length, changedMs: old };
  assert.equal(await scanContext(withIdentity(memoryFile(edited, kept)), undefined), undefined);
});

test("an identity too recent, or one that changed during the pass, is not kept", async () => {
  const { bytes } = sessionBytes(300, 19);
  for (
    const [what, identities] of [
      ["racy", [{ key: "a", size: bytes.length, changedMs: Date.now() }]],
      ["changed", [
        { key: "a", size: bytes.length, changedMs: 0 },
        { key: "b", size: bytes.length, changedMs: 0 },
      ]],
    ] as const
  ) {
    const kept: { index?: Uint8Array } = {};
    const file = memoryFile(bytes, kept);
    let call = 0;
    file.index!.identity = () =>
      Promise.resolve(identities[Math.min(call++, identities.length - 1)]);
    await scanContext(file, undefined);
    const next = memoryFile(bytes, kept);
    next.index!.identity = () => Promise.resolve(identities.at(-1));
    await scanContext(next, undefined);
    assert.ok(next.counts.reads >= Math.ceil(bytes.length / BLOCK), `${what}: hashed, not trusted`);
  }
});

test("a digest fed in pieces gives the blocks a digest of whole blocks gives", async () => {
  const rng = new Rng(7);
  const bytes = new Uint8Array(10_000).map(() => rng.int(256));
  const whole = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
  let streams = 0;
  const streaming = Object.assign((b: Uint8Array) => whole(b), {
    stream: () => {
      streams++;
      const hash = createHash("sha256");
      return { update: (b: Uint8Array) => void hash.update(b), digest: () => hash.digest("hex") };
    },
  });
  const feed = (hasher: BlockHasher, from: number, to: number) => {
    for (let at = from; at < to;) {
      const next = Math.min(to, at + 1 + rng.int(1_700)); // chunks across block edges
      hasher.push(bytes.subarray(at, next));
      at = next;
    }
    return hasher;
  };
  const expected = await feed(new BlockHasher(BLOCK, whole), 0, bytes.length).digests();
  assert.equal(expected.length, 10);
  assert.deepEqual(
    await feed(new BlockHasher(BLOCK, streaming), 0, bytes.length).digests(),
    expected,
  );
  assert.ok(streams >= 10, "the blocks were streamed");
  // Resumed after a prefix ending inside a block, as an index that grew is.
  const prefix = 4_321;
  const index = {
    snapshot: { bytes: prefix } as ResumeIndex["snapshot"],
    blockBytes: BLOCK,
    blocks: expected.slice(0, 4),
  };
  const resumed = BlockHasher.resume(index, bytes.subarray(4_000, prefix), streaming);
  assert.deepEqual(await feed(resumed, prefix, bytes.length).digests(), expected);
});
