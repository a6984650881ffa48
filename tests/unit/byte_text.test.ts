/**
 * The checking pass's shortcut past UTF-8 decoding (`ByteText` in stores/jsonl/scan/_line_checks.ts, the
 * runtimes' `node:buffer` one in stores/jsonl/_byte_text.ts): a line of valid UTF-8 parsed
 * from its ISO-8859-1 text must leave exactly the columns, listing and kept entries its
 * decoded text leaves, and a line that is not valid UTF-8, or not JSON, must fail exactly as
 * it fails without the shortcut. Sessions here put non-ASCII text everywhere the pass looks
 * (ids, parents, timestamps, the first user message, names, keys, message roles), and
 * their bytes arrive in chunks that cut characters apart. Runs under `deno test` and,
 * bundled, under Node 20 (each runtime's own `node:buffer`).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseSessionJsonlSync, serializeSessionJsonl, type SessionEntry } from "../../core.ts";
import { type ByteText, scanRange } from "../../stores/jsonl/scan/_line_checks.ts";
import { nodeByteText } from "../../stores/jsonl/_byte_text.ts";
import { Rng } from "../stress/_shared.ts";
import { generatedSession } from "./context_sessions.ts";
import { agrees, memoryFile } from "./scan_files.ts";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NodeJsonlFolderFs } from "../../stores/jsonl/fs.ts";
import { scanFileOf } from "../../stores/jsonl/scan/_resume_file.ts";

const encoder = new TextEncoder();

/** Non-ASCII text of every UTF-8 length: Latin-1 range, the C1-mapped range, CJK, emoji. */
const WORDS = ["é", "Ω", "€", "\u0085x", "世界", "🎉", "\u00a0", "ﬀ", "\u2028", "Ā"];

/** A generated session with non-ASCII text put where the pass reads text. */
function nonAsciiSession(count: number, seed: number) {
  const rng = new Rng(seed);
  const { header, entries } = generatedSession(count, seed);
  const renamed = new Map<string, string>();
  for (const entry of entries) {
    if (rng.int(4) === 0) renamed.set(entry.id, `${entry.id}${rng.pick(WORDS)}`);
  }
  const word = () => rng.pick(WORDS);
  let firstUser = true;
  const out = entries.map((original) => {
    const entry = structuredClone(original) as SessionEntry & Record<string, unknown>;
    entry.id = renamed.get(entry.id) ?? entry.id;
    if (entry.parentId !== null) entry.parentId = renamed.get(entry.parentId) ?? entry.parentId;
    if (rng.int(10) === 0) entry.timestamp = `${entry.timestamp}${word()}`;
    if (rng.int(6) === 0) entry[`clé${word()}`] = word();
    if (entry.type === "message") {
      const message = entry.message as unknown as Record<string, unknown>;
      if (message.role === "user" && firstUser) {
        firstUser = false;
        message.content = `premier ${word()} message ${word()}`;
      } else if (typeof message.content === "string") {
        message.content = `${message.content} ${word()}`;
      }
    }
    if (entry.type === "session_info") entry.name = `nom ${word()}`;
    return entry;
  });
  // A name and a summary late in the file, as the listing folds them.
  const last = out.at(-1)!;
  out.push(
    {
      type: "session_info",
      id: "info-ñ",
      parentId: last.id,
      timestamp: last.timestamp,
      name: `séance ${word()}`,
    } as SessionEntry & Record<string, unknown>,
  );
  return encoder.encode(serializeSessionJsonl(header, out));
}

/** `bytes` streamed in chunks of random sizes up to `most` (characters are cut apart). */
function chunked(bytes: Uint8Array, rng: Rng, most: number) {
  return async function* (from: number) {
    for (let at = from; at < bytes.length;) {
      const next = Math.min(bytes.length, at + 1 + rng.int(most));
      yield bytes.slice(at, next); // a copy, as a read gives: no view of the whole file
      at = next;
    }
  };
}

/** The shortcut, counting the lines it converted. */
function counted() {
  const counts = { converted: 0 };
  const text: ByteText = {
    latin1: (bytes) => (counts.converted++, nodeByteText.latin1(bytes)),
    isUtf8: (bytes) => nodeByteText.isUtf8(bytes),
  };
  return { text, counts };
}

/** One pass over `bytes` without and with the shortcut: what each kept, or its error. */
async function bothWays(bytes: Uint8Array, seed: number, most = 977) {
  const run = async (text?: ByteText) => {
    const stream = chunked(bytes, new Rng(seed), most);
    try {
      return { scan: await scanRange({ stream, text }, { start: 0 }) };
    } catch (error) {
      return { error: `${(error as Error).name}: ${(error as Error).message}` };
    }
  };
  const exact = await run();
  const { text, counts } = counted();
  const fast = await run(text);
  const taken = fast.scan?.taken ?? 0;
  delete fast.scan?.taken;
  return { exact, fast, taken, offered: counts.converted };
}

function fullError(bytes: Uint8Array): string | undefined {
  try {
    parseSessionJsonlSync(bytes);
    return undefined;
  } catch (error) {
    return String(error);
  }
}

test("lines parsed from ISO-8859-1 text keep what their UTF-8 text keeps", async () => {
  for (const [seed, most] of [[1, 977], [2, 3], [3, 64], [4, 4096]]) {
    const bytes = nonAsciiSession(600, seed);
    assert.equal(fullError(bytes), undefined, "the session is valid");
    const { exact, fast, taken, offered } = await bothWays(bytes, seed, most);
    assert.ok(exact.scan, String(exact.error));
    assert.deepStrictEqual(fast, exact, `seed ${seed}, chunks up to ${most} bytes`);
    assert.ok(offered >= 590, `${offered} lines were offered to the shortcut`);
    // Half the lines are taken so (the others hold non-ASCII ids, parents or timestamps).
    assert.ok(taken > 250, `${taken} lines taken`);
    assert.ok(exact.scan.listing.firstMessage?.startsWith("premier "));
    assert.ok(exact.scan.ids.some((id) => /[\u0080-\uffff]/.test(id)), "non-ASCII ids were kept");
  }
});

test("through the whole pass the shortcut answers like the full parser", async () => {
  const bytes = nonAsciiSession(900, 9);
  const ids = parseSessionJsonlSync(bytes).entries.map((entry) => entry.id);
  for (const leaf of [undefined, ids[5], ids[450], ids.at(-2)]) {
    const file = Object.assign(memoryFile(bytes), { text: nodeByteText });
    assert.equal(await agrees(file, bytes, leaf, `leaf ${leaf}`), "answered");
  }
});

/** Byte sequences that are not UTF-8: stray continuation, cut, overlong, surrogate, > U+10FFFF. */
const INVALID = [
  [0x80],
  [0xbf],
  [0xc3],
  [0xc0, 0xaf],
  [0xe0, 0x80, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xe2, 0x82],
  [0xf0, 0x9f, 0x98],
  [0xff],
  [0xfe],
];

/** `bytes` with `insert` put in at byte `at`. */
function spliced(bytes: Uint8Array, at: number, insert: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length + insert.length);
  out.set(bytes.subarray(0, at));
  out.set(insert, at);
  out.set(bytes.subarray(at), at + insert.length);
  return out;
}

/** Offsets just after each `"` + `key` + `":"` in `bytes` (inside that string value). */
function valueStarts(bytes: Uint8Array, key: string): number[] {
  const text = new TextDecoder().decode(bytes);
  const found: number[] = [];
  const needle = `"${key}":"`;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) {
    found.push(encoder.encode(text.slice(0, at + needle.length)).length);
  }
  return found;
}

test("a line that is not valid UTF-8 fails as it fails without the shortcut", async () => {
  const bytes = nonAsciiSession(200, 21);
  const rng = new Rng(21);
  const places = {
    text: valueStarts(bytes, "text"),
    content: valueStarts(bytes, "content"),
    id: valueStarts(bytes, "id"),
    timestamp: valueStarts(bytes, "timestamp"),
  };
  let cases = 0;
  for (const [where, offsets] of Object.entries(places)) {
    assert.ok(offsets.length > 0, where);
    for (const sequence of INVALID) {
      const at = rng.pick(offsets) + rng.int(3);
      const bad = spliced(bytes, at, new Uint8Array(sequence));
      const what = `[${sequence.map((b) => b.toString(16))}] in a ${where} at ${at}`;
      assert.ok(fullError(bad)?.includes("not valid UTF-8"), `${what}: ${fullError(bad)}`);
      const { exact, fast } = await bothWays(bad, at, 1 + rng.int(900));
      assert.ok(exact.error, `${what}: the pass rejects it`);
      assert.deepStrictEqual(fast, exact, what);
      cases++;
    }
  }
  assert.equal(cases, 4 * INVALID.length);
});

/** Non-ASCII put between JSON's tokens, and lines that are blank only as UTF-8 text. */
const OUTSIDE_STRINGS = ["é", "\u00a0", "\u2028", "\ufeff", "\u3000", "Â"];

test("non-ASCII outside strings, and lines blank only once decoded, fail or pass alike", async () => {
  const bytes = nonAsciiSession(150, 31);
  const rng = new Rng(31);
  const lineStarts = [...bytes.keys()].filter((i) => i > 0 && bytes[i - 1] === 10);
  const verdicts = { rejected: 0, accepted: 0 };
  for (let round = 0; round < 120; round++) {
    const word = encoder.encode(rng.pick(OUTSIDE_STRINGS));
    const start = rng.pick(lineStarts.slice(1, -1));
    const [at, insert] = rng.int(2) === 0
      ? [start + 1 + rng.int(1), word] // right after `{`: between tokens
      : [start, new Uint8Array([...word, 10])]; // a line of its own
    const changed = spliced(bytes, at, insert);
    const { exact, fast } = await bothWays(changed, round, 1 + rng.int(500));
    assert.deepStrictEqual(fast, exact, `round ${round}: ${insert} at ${at}`);
    if (fullError(changed)) {
      assert.ok(exact.error, `round ${round}: the full parser rejects, the pass must too`);
      verdicts.rejected++;
    } else verdicts.accepted++;
  }
  assert.ok(verdicts.rejected > 20 && verdicts.accepted > 20, JSON.stringify(verdicts));
});

test("seeded byte edits of non-ASCII sessions: with and without the shortcut alike", async () => {
  const rng = new Rng(20261202);
  const corpus = [nonAsciiSession(120, 41), nonAsciiSession(120, 42)];
  let rejected = 0;
  for (let round = 0; round < 300; round++) {
    const bytes = corpus[rng.int(corpus.length)].slice();
    for (let edits = 1 + rng.int(3); edits > 0; edits--) {
      const at = rng.int(bytes.length);
      // Mostly bytes of 0x80 and above, where ISO-8859-1 and UTF-8 differ.
      bytes[at] = rng.int(4) === 0 ? rng.int(0x80) : 0x80 + rng.int(0x80);
    }
    const { exact, fast } = await bothWays(bytes, round, 1 + rng.int(977));
    assert.deepStrictEqual(fast, exact, `round ${round}`);
    if (exact.error) rejected++;
    else {
      const file = Object.assign(memoryFile(bytes), { text: nodeByteText });
      await agrees(file, bytes, undefined, `round ${round}`);
    }
  }
  assert.ok(rejected > 100 && rejected < 300, `${rejected} of 300 rejected`);
});

test("the file-system backend lends the pass its ISO-8859-1 shortcut; other folders do not", async () => {
  const dir = await mkdtemp(join(tmpdir(), "mu-byte-text-"));
  try {
    const bytes = nonAsciiSession(200, 5);
    await writeFile(join(dir, "s.jsonl"), bytes);
    const taken = async (fs: NodeJsonlFolderFs) => {
      const file = scanFileOf(fs, "s.jsonl", false);
      return (await scanRange(file, { start: 0 })).taken ?? 0;
    };
    const backed = new NodeJsonlFolderFs(dir);
    assert.ok((await taken(backed)) > 50, "lines from a file on disk skip their UTF-8 decoding");
    // The same folder seen through a plain wrapper (how any other backend looks): no shortcut.
    const plain = new Proxy(backed, {
      get: (target, key) => {
        const value = Reflect.get(target, key);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    assert.equal(await taken(plain), 0);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
