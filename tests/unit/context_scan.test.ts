/**
 * The JSONL context-only pass (stores/jsonl/scan/_scan.ts) against the full parser: on every
 * fixture and leaf it either answers exactly what the full parse + projection gives or
 * declines; over seeded mutations of real files (byte flips, truncations, splices, hostile
 * values from the fuzzer, plus record-level edits: a broken entry anywhere, duplicate ids,
 * a parent written after its child, a torn tail) it never accepts a file the full parser
 * rejects, and never answers differently when both accept. Runs under `deno test` and,
 * bundled, under Node 20.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  buildSessionProjection,
  parseSessionJsonlSync,
  serializeSessionJsonl,
  type SessionEntry,
} from "../../core.ts";
import { projectLoadedContext } from "../../src/context_load.ts";
import { scanContext } from "../../stores/jsonl/scan/_scan.ts";
import type { ByteText } from "../../stores/jsonl/scan/_line_checks.ts";
import { nodeByteText } from "../../stores/jsonl/_byte_text.ts";
import { mutate } from "../stress/_mutate.ts";
import { Rng } from "../stress/_shared.ts";
import { generatedSession, handMadeSessions, parseableFixtures } from "./context_sessions.ts";
import { fixtureBytes } from "./fixtures.ts";

const encoder = new TextEncoder();

/**
 * A file for scanContext: the bytes streamed in uneven chunks (lines span chunk borders);
 * with `text`, most lines are parsed from ISO-8859-1 text (`ByteText`, the Deno and Node
 * backends' shortcut), which must not change any answer.
 */
function reader(bytes: Uint8Array, size = 977, text?: ByteText) {
  const counts = { streams: 0, reads: 0 };
  return {
    counts,
    text,
    stream: async function* (start = 0) {
      counts.streams++;
      for (let at = start; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
    },
    read(start: number, end: number) {
      counts.reads++;
      return Promise.resolve(bytes.slice(start, end));
    },
  };
}

/** What the full parser makes of `bytes`: its entries, or the error it raises. */
function fullParse(bytes: Uint8Array): { entries?: SessionEntry[]; error?: Error } {
  try {
    return { entries: parseSessionJsonlSync(bytes).entries };
  } catch (error) {
    return { error: error as Error };
  }
}

/** Scan, and when it answers, require the full parser's exact answer. */
async function agrees(
  bytes: Uint8Array,
  leaf: string | null | undefined,
  what: string,
  full = fullParse(bytes),
  text?: ByteText,
) {
  const scanned = await scanContext(reader(bytes, 977, text), leaf);
  if (scanned === undefined) return "declined";
  assert.ok(!full.error, `${what}: the scan accepted what the full parser rejects: ${full.error}`);
  const projected = projectLoadedContext(scanned);
  if (projected === undefined) return "undecided";
  assert.deepStrictEqual(projected, buildSessionProjection(full.entries!, leaf), what);
  return "answered";
}

test("the JSONL pass answers like the full parser on every fixture and every leaf", async () => {
  const counts: Record<string, number> = {};
  for (const name of parseableFixtures().map((f) => f.name)) {
    const bytes = fixtureBytes(name);
    const full = fullParse(bytes);
    for (const leaf of [undefined, null, ...full.entries!.map((e) => e.id)]) {
      const verdict = await agrees(bytes, leaf, `${name}, leaf ${leaf}`, full);
      counts[verdict] = (counts[verdict] ?? 0) + 1;
      const shortcut = await agrees(bytes, leaf, `${name}, leaf ${leaf}`, full, nodeByteText);
      assert.equal(shortcut, verdict, `${name}, leaf ${leaf}, from ISO-8859-1 text`);
    }
  }
  assert.ok(counts.answered > 300, JSON.stringify(counts));
});

test("the JSONL pass reads entries outside its window back by their offsets", async () => {
  const { header, entries } = generatedSession(6_000, 6_000);
  const bytes = encoder.encode(serializeSessionJsonl(header, entries));
  const full = fullParse(bytes);
  let answered = 0;
  // early leaves sit on old boundaries, long before the window of the file's end
  for (let i = 0; i < entries.length; i += 401) {
    const verdict = await agrees(bytes, entries[i].id, `generated, leaf ${i}`, full);
    if (verdict === "answered") answered++;
  }
  assert.ok(answered > 10, `${answered} answered`);
  const early = reader(bytes);
  assert.ok(await scanContext(early, entries[100].id));
  assert.deepEqual(early.counts.streams, 1, "the file is streamed once");
  assert.ok(early.counts.reads > 0, "an early leaf's entries are read back by offset");
  assert.ok(early.counts.reads <= 4, `${early.counts.reads} reads: nearby entries are one read`);
  const last = reader(bytes);
  assert.ok(await scanContext(last, undefined));
  assert.equal(last.counts.streams, 1);
  assert.ok(last.counts.reads <= 4, `${last.counts.reads} reads for the last leaf's context`);
});

/** Record-level edits the byte mutations rarely make. */
function editRecords(rng: Rng, text: string): { text: string; step: string } {
  const lines = text.split("\n").filter(Boolean);
  const i = 1 + rng.int(lines.length - 1);
  const record = JSON.parse(lines[i]) as SessionEntry & Record<string, unknown>;
  const other = JSON.parse(lines[1 + rng.int(lines.length - 1)]) as SessionEntry;
  const later = JSON.parse(lines[lines.length - 1]) as SessionEntry;
  const edits: [string, () => void][] = [
    ["drop the id", () => delete (record as Partial<SessionEntry>).id],
    ["numeric parentId", () => (record as Record<string, unknown>).parentId = 7],
    [
      "unknown message role",
      () => record.type === "message" && (record.message.role = "x" as "user"),
    ],
    ["duplicate an id", () => record.id = other.id],
    ["parent written later", () => record.parentId = later.id],
    ["self parent", () => record.parentId = record.id],
    ["type removed", () => delete (record as Partial<SessionEntry>).type],
  ];
  const [step, edit] = edits[rng.int(edits.length)];
  edit();
  lines[i] = JSON.stringify(record);
  const cut = rng.int(4) === 0; // sometimes also tear the tail
  const joined = lines.join("\n") + "\n";
  return { text: cut ? joined.slice(0, joined.length - 1 - rng.int(20)) : joined, step };
}

test("seeded mutations: the JSONL pass never accepts what the full parser rejects", async () => {
  const sources = [
    ...handMadeSessions().map((s) => serializeSessionJsonl(s.header, s.entries)),
    ((s) => serializeSessionJsonl(s.header, s.entries))(generatedSession(800, 800)),
    ...parseableFixtures().filter((f) => f.name.startsWith("projection/")).map((f) =>
      serializeSessionJsonl(f.header, f.entries)
    ),
  ];
  const corpus = sources.map((text) => encoder.encode(text));
  const rng = new Rng(20261201);
  const verdicts: Record<string, number> = {};
  for (let round = 0; round < 500; round++) {
    let bytes: Uint8Array;
    let what: string;
    if (round % 2 === 0) {
      const mutated = mutate(rng, corpus);
      bytes = mutated.bytes;
      what = mutated.steps.join(", ");
    } else {
      const { text, step } = editRecords(rng, sources[rng.int(sources.length)]);
      bytes = encoder.encode(text);
      what = step;
    }
    const verdict = await agrees(bytes, undefined, `round ${round}: ${what}`);
    verdicts[verdict] = (verdicts[verdict] ?? 0) + 1;
    const full = fullParse(bytes);
    const shortcut = await agrees(bytes, undefined, `round ${round}: ${what}`, full, nodeByteText);
    assert.equal(shortcut, verdict, `round ${round}: ${what}, from ISO-8859-1 text`);
  }
  assert.ok(verdicts.declined > 50 && verdicts.answered > 20, JSON.stringify(verdicts));
});
