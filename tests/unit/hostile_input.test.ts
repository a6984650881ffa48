/**
 * Hostile file contents the parser must refuse or classify the same way in every runtime
 * (issue 11): ids no store keeps exactly and out-of-range times are a `SessionFormatError`
 * naming the line.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  InvalidArgumentError,
  parseSessionJsonl,
  parseSessionJsonlSync,
  type SessionEntry,
  SessionFormatError,
  SessionManager,
} from "../../core.ts";
import { MAX_NESTING_DEPTH } from "../../src/_wellformed.ts";

const HEAD =
  '{"type":"session","version":4,"id":"h","createdAt":"2026-01-01T00:00:00.000Z","cwd":"/"}';

function line(fields: Record<string, unknown>): string {
  return JSON.stringify({
    type: "message",
    id: "a1",
    parentId: null,
    timestamp: "2026-01-01T00:00:00.000Z",
    message: { role: "user", content: "hi", timestamp: 1 },
    ...fields,
  });
}

function assertFormatErrorAt(text: string, lineNumber: number, reason: RegExp): void {
  assert.throws(
    () => parseSessionJsonlSync(text),
    (e: unknown) =>
      e instanceof SessionFormatError && e.line === lineNumber && reason.test(e.message),
  );
}

test("a file whose entry ids hold control characters or lone surrogates is a SessionFormatError at the line", () => {
  // JSON escapes, as another writer would put them in the file.
  for (const bad of ["a\u0000x", "\ud800", "x\udc00", "\u001b[31m"]) {
    assertFormatErrorAt(
      `${HEAD}\n${line({ id: bad })}\n`,
      2,
      /control character or a lone surrogate/,
    );
    const two = `${HEAD}\n${line({})}\n${line({ id: "b2", parentId: bad })}\n`;
    assertFormatErrorAt(two, 3, /parentId/);
  }
  // Astral characters are well-formed pairs and load.
  const ok = parseSessionJsonlSync(`${HEAD}\n${line({ id: "\u{1F600}" })}\n`);
  assert.equal(ok.entries[0].id, "\u{1F600}");
});

test("a message timestamp outside the Date range is a SessionFormatError at the line", () => {
  for (const bad of [1e300, -1e300, 8.64e15 + 1]) {
    const text = `${HEAD}\n${line({})}\n${
      line({
        id: "b2",
        parentId: "a1",
        message: { role: "assistant", content: [], timestamp: bad },
      })
    }\n`;
    assertFormatErrorAt(text, 3, /timestamp/);
  }
});

test("a final line cut inside a multi-byte character is a torn record, not invalid UTF-8", async () => {
  const full = new TextEncoder().encode(
    `${HEAD}\n${line({ id: "a1" })}\n${
      line({
        id: "b2",
        parentId: "a1",
        message: { role: "user", content: "h\u00e9\u20ac\u{1F600}" },
      })
    }\n`,
  );
  const lastStart = full.lastIndexOf(10, full.length - 2) + 1;
  let cuts = 0;
  for (let end = lastStart + 1; end < full.length - 1; end++) {
    const cut = full.subarray(0, end);
    const lead = cut[cut.length - 1];
    if (lead < 0xc0) continue; // only cuts right after a lead byte of a multi-byte character
    cuts++;
    for (const parse of [() => parseSessionJsonlSync(cut), () => parseSessionJsonl(chunks(cut))]) {
      await assert.rejects(
        async () => await parse(),
        (e: unknown) =>
          e instanceof SessionFormatError && e.line === 3 &&
          e.message.includes("torn final record"),
      );
    }
  }
  assert.equal(cuts, 3, "a cut after each multi-byte character's lead byte");
  // A terminated line with bad bytes is still invalid UTF-8, not torn.
  const bad = new Uint8Array([...full.subarray(0, lastStart), 0x7b, 0xc3, 0x0a]);
  assert.throws(
    () => parseSessionJsonlSync(bad),
    (e: unknown) => e instanceof SessionFormatError && /UTF-8/.test(e.message),
  );
});

function chunks(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (let i = 0; i < bytes.length; i += 7) controller.enqueue(bytes.subarray(i, i + 7));
      controller.close();
    },
  });
}

/** Tool-call arguments nested `depth` levels deep (`{"a":{"a":...}}`), as file text. */
function deepToolCall(depth: number): string {
  const args = `${'{"a":'.repeat(depth - 1)}{}${"}".repeat(depth - 1)}`;
  return `{"type":"message","id":"d2","parentId":"a1","timestamp":"t","message":{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"n","arguments":${args}}]}}`;
}

test("records nested deeper than MAX_NESTING_DEPTH are a SessionFormatError at the line, in every runtime", async () => {
  const deep = `${HEAD}\n${line({})}\n${deepToolCall(5_000)}\n`;
  assertFormatErrorAt(deep, 3, /deeper than 512 levels/);
  await assert.rejects(
    () => parseSessionJsonl(chunks(new TextEncoder().encode(deep))),
    (e: unknown) => e instanceof SessionFormatError && e.line === 3,
  );
  const deepHeader = `${HEAD.slice(0, -1)},"x":${"[".repeat(5_000)}${"]".repeat(5_000)}}\n`;
  assertFormatErrorAt(deepHeader, 1, /deeper than 512 levels/);
  // Within the limit: loads, and what consumers do with it (copy, encode) works.
  const ok = parseSessionJsonlSync(
    `${HEAD}\n${line({})}\n${deepToolCall(MAX_NESTING_DEPTH - 6)}\n`,
  );
  assert.equal(JSON.stringify(structuredClone(ok.entries)).length > 0, true);
});

test("a deeply nested value in the type field is a typed error, not a stack overflow in the message", async () => {
  // Found by the stress fuzzer: the error text converted `type` with String(), and an
  // array's toString recurses once per level.
  const deepType = `${"[".repeat(20_000)}${"]".repeat(20_000)}`;
  const text = `${HEAD}\n${line({})}\n${
    line({ id: "a2", parentId: "a1" }).replace('"message"', deepType)
  }\n`;
  assertFormatErrorAt(text, 3, /deeper than 512 levels/);
  await assert.rejects(
    () => parseSessionJsonl(chunks(new TextEncoder().encode(text))),
    (e: unknown) => e instanceof SessionFormatError && e.line === 3,
  );
  const entry = { ...JSON.parse(line({})), type: JSON.parse(deepType) } as SessionEntry;
  assert.throws(
    () => SessionManager.inMemory("/p", {}, [entry]),
    (e: unknown) => e instanceof InvalidArgumentError && /deeper than 512 levels/.test(e.message),
  );
});
