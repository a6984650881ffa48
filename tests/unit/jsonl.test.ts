import assert from "node:assert/strict";
import { test } from "node:test";
import {
  parseSessionJsonl,
  parseSessionJsonlSync,
  serializeSessionJsonl,
  type SessionEntry,
  SessionFormatError,
  SessionIndex,
} from "../../core.ts";
import { rawJsonOf } from "../../src/jsonl.ts";
import { chunkedStream, fixtureBytes, fixtureJson, fixtureNames, fixtureText } from "./fixtures.ts";

interface Expected {
  sourceVersion?: number;
  upgraded?: boolean;
  header?: unknown;
  entries?: Record<string, unknown>[];
  error?: string;
  line?: number;
  byteOffset?: number;
  reasonIncludes?: string;
}

/** v1 ids are random: map them to "$1", "$2", ... by first appearance, after checking their shape. */
function normalizeIds(entries: SessionEntry[]): unknown[] {
  const names = new Map<string, string>();
  for (const entry of entries) {
    assert.match(entry.id, /^[0-9a-f]{8}$/, "upgraded ids are 8 hex characters");
    assert.ok(!names.has(entry.id), "upgraded ids are unique");
    names.set(entry.id, `$${names.size + 1}`);
  }
  const rename = (id: unknown) => (typeof id === "string" && names.has(id) ? names.get(id) : id);
  return entries.map((entry) => {
    const copy: Record<string, unknown> = {
      ...entry,
      id: rename(entry.id),
      parentId: rename(entry.parentId),
    };
    if ("firstKeptEntryId" in entry) copy.firstKeptEntryId = rename(entry.firstKeptEntryId);
    return copy;
  });
}

const inputs = {
  string: (name: string) => parseSessionJsonl(fixtureText(`codec/${name}.jsonl`)),
  bytes: (name: string) => parseSessionJsonl(fixtureBytes(`codec/${name}.jsonl`)),
  stream: (name: string) => parseSessionJsonl(chunkedStream(fixtureBytes(`codec/${name}.jsonl`))),
};

for (const name of fixtureNames("codec")) {
  const expected = fixtureJson<Expected>(`codec/${name}.expected.json`);
  for (const [kind, parse] of Object.entries(inputs)) {
    test(`codec fixture ${name} (${kind})`, async () => {
      if (expected.error) {
        const error = await parse(name).then(() => undefined, (e: unknown) => e);
        assert.ok(error instanceof SessionFormatError, `expected SessionFormatError, got ${error}`);
        assert.equal(error.name, "SessionFormatError");
        assert.equal(error.line, expected.line, "line");
        assert.equal(error.byteOffset, expected.byteOffset, "byte offset");
        assert.ok(
          error.reason.includes(expected.reasonIncludes!),
          `reason ${JSON.stringify(error.reason)}`,
        );
        return;
      }
      const parsed = await parse(name);
      assert.equal(parsed.sourceVersion, expected.sourceVersion);
      assert.equal(parsed.upgraded, expected.upgraded);
      assert.deepEqual(parsed.header, expected.header);
      const entries = parsed.sourceVersion === 1 ? normalizeIds(parsed.entries) : parsed.entries;
      assert.deepEqual(entries, expected.entries);
    });
  }
}

test("format-4 fixtures round-trip byte for byte (canonical spelling: newline-terminated, no BOM or blank lines)", () => {
  for (const name of ["v4", "unknown-fields", "no-trailing-newline", "bom", "blank-lines"]) {
    const text = fixtureText(`codec/${name}.jsonl`);
    const parsed = parseSessionJsonlSync(text);
    const canonical = text.replace(/^\ufeff/, "").split("\n").map((line) => line.replace(/\r$/, ""))
      .filter((line) => line.trim() !== "").join("\n") + "\n";
    assert.equal(serializeSessionJsonl(parsed.header, parsed.entries), canonical, name);
  }
  const exact = fixtureText("codec/unknown-fields.jsonl");
  assert.equal(
    serializeSessionJsonl(...headerAndEntries(exact)),
    exact,
    "escapes and key order kept",
  );
});

function headerAndEntries(text: string) {
  const parsed = parseSessionJsonlSync(text);
  return [parsed.header, parsed.entries] as const;
}

test("upgraded sessions serialise as format 4 and re-parse unchanged", async () => {
  for (const name of ["v1", "v2", "v3", "early-v4"]) {
    const first = await parseSessionJsonl(fixtureBytes(`codec/${name}.jsonl`));
    const text = serializeSessionJsonl(first.header, first.entries);
    const second = parseSessionJsonlSync(text);
    assert.equal(second.sourceVersion, 4, name);
    assert.equal(second.upgraded, false, name);
    assert.deepEqual(second.entries, first.entries, name);
    assert.deepEqual(second.header, first.header, name);
  }
});

test("changed records lose their raw text, unchanged ones keep it", () => {
  const parsed = parseSessionJsonlSync(fixtureText("codec/v2.jsonl"));
  assert.equal(rawJsonOf(parsed.header), undefined, "upgraded header is a new object");
  assert.equal(typeof rawJsonOf(parsed.entries[0]), "string", "untouched entry keeps its text");
  assert.equal(rawJsonOf(parsed.entries[2]), undefined, "hookMessage entry was rewritten");
  const noRaw = parseSessionJsonlSync(fixtureText("codec/v4.jsonl"), { retainRaw: false });
  assert.equal(rawJsonOf(noRaw.entries[0]), undefined, "retainRaw: false keeps nothing");
});

test("records split only on \\n: U+2028 / U+2029 inside strings stay in the record", () => {
  const text =
    '{"type":"session","version":4,"id":"u","createdAt":"2026-01-01T00:00:00.000Z","cwd":"/"}\n' +
    '{"type":"message","id":"m","parentId":null,"timestamp":"t","message":{"role":"user","content":"a\u2028b\u2029c"}}\n';
  const parsed = parseSessionJsonlSync(new TextEncoder().encode(text));
  assert.equal(
    (parsed.entries[0] as { message: { content: string } }).message.content,
    "a\u2028b\u2029c",
  );
});

test("invalid UTF-8 is rejected with its line", () => {
  const head = new TextEncoder().encode(
    '{"type":"session","version":4,"id":"u","createdAt":"t","cwd":"/"}\n',
  );
  const bad = new Uint8Array([...head, 0x7b, 0xff, 0xfe, 0x7d, 0x0a]);
  assert.throws(
    () => parseSessionJsonlSync(bad),
    (e: unknown) => e instanceof SessionFormatError && e.line === 2,
  );
});

test("the stream parser honours an AbortSignal", async () => {
  const controller = new AbortController();
  controller.abort(new Error("stop"));
  await assert.rejects(
    parseSessionJsonl(chunkedStream(fixtureBytes("codec/v4.jsonl")), { signal: controller.signal }),
    /stop/,
  );
});

function entry(id: string, parentId: string | null): SessionEntry {
  return { type: "custom", id, parentId, timestamp: "2026-01-01T00:00:00.000Z", customType: "t" };
}

test("parent cycles are rejected while indexing, never hang", () => {
  assert.throws(
    () => SessionIndex.build([entry("a", "a")]),
    (e: unknown) => e instanceof SessionFormatError && e.line === 2,
  );
  assert.throws(
    () => SessionIndex.build([entry("r", null), entry("a", "b"), entry("b", "a")]),
    (e: unknown) => e instanceof SessionFormatError && /cycle/.test(e.reason),
  );
});

test("an entry whose parent is missing becomes a reported root; the rest stays reachable", () => {
  const index = SessionIndex.build([entry("r", null), entry("x", "gone"), entry("y", "x")]);
  assert.deepEqual([...index.danglingParents], ["x"]);
  assert.deepEqual(index.missingParentIds(), ["gone"], "the missing id is named");
  const two = SessionIndex.build([entry("p", "m1"), entry("q", "m2"), entry("s", "m1")]);
  assert.deepEqual(two.missingParentIds(), ["m1", "m2"], "distinct, file order");
  assert.deepEqual(SessionIndex.build([entry("r", null)]).missingParentIds(), []);
  assert.deepEqual(index.getChildren(null).map((e) => e.id), ["r", "x"]);
  assert.deepEqual(index.getPath("y").map((e) => e.id), ["x", "y"]);
  assert.deepEqual(index.getTree().map((node) => node.entry.id), ["r", "x"]);
});

test("deep linear sessions index and walk without recursion limits", () => {
  const entries = [entry("e0", null)];
  for (let i = 1; i < 200_000; i++) entries.push(entry(`e${i}`, `e${i - 1}`));
  const index = SessionIndex.build(entries);
  assert.equal(index.getPath("e199999").length, 200_000);
  assert.equal(index.getTree().length, 1);
});

test("v1 upgrades give the same ids on every read, and different sessions get different ids", () => {
  const text = fixtureText("codec/v1.jsonl");
  const first = parseSessionJsonlSync(text).entries.map((e) => e.id);
  const second = parseSessionJsonlSync(fixtureBytes("codec/v1.jsonl")).entries.map((e) => e.id);
  assert.deepEqual(second, first);
  const renamed = parseSessionJsonlSync(text.replace('"id":"v1s"', '"id":"another"')).entries.map((
    e,
  ) => e.id);
  assert.notDeepEqual(renamed, first);
});

test("children written before their parents still index, and paths come out root first", () => {
  const index = SessionIndex.build([
    entry("c", "b"),
    entry("b", "a"),
    entry("a", null),
    entry("d", "c"),
  ]);
  assert.deepEqual(index.getPath("d").map((e) => e.id), ["a", "b", "c", "d"]);
  assert.deepEqual([...index.danglingParents], []);
  assert.throws(
    () => SessionIndex.build([entry("y", "x"), entry("x", "y"), entry("r", null)]),
    SessionFormatError,
  );
});

test("an unterminated final line is torn only when it starts like a record; otherwise invalid JSON", async () => {
  const header =
    '{"type":"session","version":4,"id":"s","createdAt":"2026-01-01T00:00:00.000Z","cwd":"/p"}';
  const reasonOf = async (text: string) => {
    const errors: string[] = [];
    for (
      const parse of [
        () => parseSessionJsonlSync(text),
        () => parseSessionJsonl(chunkedStream(new TextEncoder().encode(text))),
      ]
    ) {
      try {
        await parse();
        errors.push("parsed");
      } catch (error) {
        assert.ok(error instanceof SessionFormatError);
        errors.push(error.reason);
      }
    }
    assert.equal(errors[0], errors[1], "string and stream parsers agree");
    return errors[0];
  };
  // `curl --data-binary 'not json'`: one line, no newline, not a cut record.
  assert.match(await reasonOf("not json"), /^invalid JSON: /);
  assert.match(await reasonOf(`${header}\nnot json`), /^invalid JSON: /);
  assert.match(await reasonOf(`${header}\n[1, 2`), /^invalid JSON: /);
  // What a cut-off append leaves: the start of a record.
  assert.match(await reasonOf(`${header}\n{"type":"mess`), /^torn final record/);
  assert.match(await reasonOf(`{"type":"sess`), /^torn final record/);
  // A terminated bad line is invalid JSON whatever it starts with.
  assert.match(await reasonOf(`${header}\n{"type":"mess\n`), /^invalid JSON: /);
});
