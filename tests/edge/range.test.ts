/**
 * The edge handler reading an indexed export by HTTP Range (src/_range_reader.ts), in Deno
 * against a loopback object storage (tests/edge/range_storage.ts): for every fixture and every
 * leaf, and a generated 10k-entry session, the range answer is byte for byte the whole-body
 * answer of the same export (both forms); a server that ignores Range is handled; a flipped
 * byte, a swapped or foreign index, an appended file and an object replaced mid-request are
 * typed JSON errors, never an answer; and the bytes fetched are counted.
 */
import { createProjectionHandler } from "../../web/edge.ts";
import { buildExportIndex, serializeExportIndex } from "../../src/export_index.ts";
import { readExportContext } from "../../src/_range_reader.ts";
import { parseSessionJsonlSync } from "../../core.ts";
import { generatedSession } from "../unit/context_sessions.ts";
import { type RangeStorage, startRangeStorage } from "./range_storage.ts";
import { exportFiles, indexedExports } from "./range_exports.ts";

function assert(condition: unknown, message = "assertion failed"): asserts condition {
  if (!condition) throw new Error(message);
}

function assertEquals(actual: unknown, expected: unknown, message = ""): void {
  const a = JSON.stringify(actual), e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${message}\nexpected: ${e}\nactual:   ${a}`);
}

const encoder = new TextEncoder();

interface Answer {
  status: number;
  text: string;
}

function handlerFor(storage: RangeStorage, maxBytes = 64 << 20) {
  const handler = createProjectionHandler({
    allowUrl: (url) => url.origin === storage.origin,
    maxBytes,
    timeoutMs: 10_000,
  });
  return async (query: string): Promise<Answer> => {
    const response = await handler(new Request(`http://edge.local/?${query}`));
    return { status: response.status, text: await response.text() };
  };
}

/** Range and whole-body answers for each leaf and form: equal text and status. */
async function assertSameAsWhole(
  ask: (query: string) => Promise<Answer>,
  storage: RangeStorage,
  name: string,
  leaves: (string | undefined)[],
) {
  for (const leaf of leaves) {
    for (const form of ["full", "compact"]) {
      const query = `form=${form}${leaf === undefined ? "" : `&leaf=${encodeURIComponent(leaf)}`}`;
      const want = await ask(`url=${storage.origin}/o/whole/${name}&${query}`);
      const got = await ask(`url=${storage.origin}/o/${name}&${query}`);
      assertEquals(got.status, want.status, `${name} ${query}: ${got.text.slice(0, 300)}`);
      assert(
        got.text === want.text,
        `${name} ${query} answers different bytes:\n${got.text.slice(0, 400)}\n${
          want.text.slice(0, 400)
        }`,
      );
    }
  }
}

function putPair(storage: RangeStorage, name: string, bytes: Uint8Array, index: string) {
  storage.put(name, bytes);
  storage.put(`${name}.idx`, index);
  storage.put(`whole/${name}`, bytes); // no index beside it: the whole-body path
}

function jsonlOf(session: { header: unknown; entries: unknown[] }): Uint8Array {
  const lines = [session.header, ...session.entries].map((line) => JSON.stringify(line));
  return encoder.encode(lines.join("\n") + "\n");
}

Deno.test("range answers equal whole-body answers for every fixture and every leaf", async () => {
  const storage = startRangeStorage();
  try {
    const ask = handlerFor(storage);
    const exports = await indexedExports(await exportFiles());
    assert(exports.length >= 40, `${exports.length} indexable session files`);
    let ranged = 0;
    for (const { name, bytes, index } of exports) {
      putPair(storage, name, bytes, serializeExportIndex(index));
      const ids = parseSessionJsonlSync(bytes).entries.map((entry) => entry.id);
      await assertSameAsWhole(ask, storage, name, [undefined, ...new Set(ids), "no-such-leaf"]);
      const served = storage.served(name);
      // Read by ranges only (a format-1 export, whose ids need the whole file, is read whole).
      if (served.ranges.length === served.requests) ranged++;
    }
    assert(ranged >= exports.length - 5, `${ranged} of ${exports.length} read by ranges`);
  } finally {
    await storage.stop();
  }
});

Deno.test("a generated 10k-entry session: same answers, a fraction of the bytes", async () => {
  const storage = startRangeStorage();
  try {
    const ask = handlerFor(storage);
    const session = generatedSession(10_000, 11);
    const bytes = jsonlOf(session);
    const index = await buildExportIndex(bytes);
    putPair(storage, "gen.jsonl", bytes, serializeExportIndex(index));
    await ask(`url=${storage.origin}/o/gen.jsonl`);
    const served = storage.served("gen.jsonl");
    // The default leaf's context: the tail since the last boundary, in a few requests.
    assert(served.bytes < bytes.length * 0.1, `${served.bytes} of ${bytes.length} bytes`);
    assert(served.requests <= 6, `${served.requests} requests`);
    const ids = session.entries.map((entry) => entry.id);
    const leaves = [undefined, ...ids.filter((_, i) => i % 997 === 0 || i > ids.length - 4)];
    await assertSameAsWhole(ask, storage, "gen.jsonl", leaves);
  } finally {
    await storage.stop();
  }
});

/**
 * Lines that parse to the same entry as `JSON.stringify` writes it but are not written that
 * way, one rewrite per line in turn: the answer must re-serialise these, never copy them.
 */
const NON_CANONICAL: Array<(line: string) => string> = [
  (line) => line.replace('{"type":', '{ "type" :'), // whitespace between tokens
  (line) => line.replace('"id":', '"\\u0069d":'), // an escaped key
  (line) => line.replace('{"type":', '{"7":0,"type":'), // an integer-like key, moved first by parse
  (line) => line.replace('{"type":', '{"type":"x","type":'), // a repeated key
  (line) => line.replace(/"timestamp":(\d+)/, '"timestamp":$1.0'), // a number not in its shortest form
  (line) => line.replace(/"timestamp":(\d+)/, '"timestamp":$1e0'), // a number with an exponent
  (line) => line.replace(/"text":"(\w)/, '"text":"\\u0041$1'), // a needless \u escape
  (line) => line.replace(/"text":"(\w)/, '"text":"\\/$1'), // an escaped solidus
  (line) => line.replace(/\}$/, " }"), // whitespace before the end
  (line) => `${line}\r`, // a CRLF line end
];

Deno.test("lines not in JSON.stringify's form: the same answers as the whole body", async () => {
  const storage = startRangeStorage();
  try {
    const ask = handlerFor(storage);
    const session = generatedSession(400, 8);
    const lines = [session.header, ...session.entries].map((line) => JSON.stringify(line));
    let rewritten = 0;
    const text = lines.map((line, i) => {
      const out = i === 0 ? line : NON_CANONICAL[i % NON_CANONICAL.length](line);
      if (out !== line) rewritten++;
      return out;
    }).join("\n") + "\n";
    assert(rewritten > 250, `${rewritten} lines rewritten`);
    const bytes = encoder.encode(text);
    putPair(storage, "odd.jsonl", bytes, serializeExportIndex(await buildExportIndex(bytes)));
    const ids = session.entries.map((entry) => entry.id);
    await assertSameAsWhole(ask, storage, "odd.jsonl", [
      undefined,
      ...ids.filter((_, i) => i % 7 === 0),
    ]);
  } finally {
    await storage.stop();
  }
});

Deno.test("a range answer's stored messages are copied from their verified bytes", async () => {
  const storage = startRangeStorage();
  try {
    const bytes = jsonlOf(generatedSession(400, 12));
    putPair(storage, "copy.jsonl", bytes, serializeExportIndex(await buildExportIndex(bytes)));
    const read = await readExportContext({
      url: `${storage.origin}/o/copy.jsonl`,
      get: (url, headers, signal) =>
        Promise.resolve(storage.fetch(new Request(url, { headers, signal }))),
      maxBytes: 1 << 30,
      signal: AbortSignal.timeout(10_000),
    });
    assert(read.kind === "answer", read.kind);
    const { projection, raw, context } = read.answer;
    const stored = new Set(
      [...context.prefix, ...context.entries].map((entry) =>
        (entry as { message?: unknown }).message
      ),
    );
    // Every stored message the answer writes (not those the projection builds) is copied.
    const copied = projection.messages.filter((message) => stored.has(message));
    assert(copied.length > projection.messages.length * 0.9, `${copied.length} stored messages`);
    for (const message of copied) {
      const bytes = raw.get(message);
      assert(bytes, `no bytes for a ${message.role} message`);
      assertEquals(new TextDecoder().decode(bytes), JSON.stringify(message));
    }
  } finally {
    await storage.stop();
  }
});

/** A 3,000-entry generated export (several blocks, one boundary) and its index. */
async function generatedExport() {
  const bytes = jsonlOf(generatedSession(3000, 5));
  return { bytes, index: await buildExportIndex(bytes) };
}

async function expectError(answer: Promise<Answer>, status: number, error: string, says = "") {
  const got = await answer;
  assertEquals(got.status, status, `${error}: ${got.text.slice(0, 300)}`);
  const body = JSON.parse(got.text);
  assertEquals(body.error, error, got.text);
  assert(body.message.includes(says), `"${body.message}" does not say "${says}"`);
}

Deno.test("a server that ignores Range: the whole export, verified, or 413 over the limit", async () => {
  const storage = startRangeStorage();
  try {
    const { bytes, index } = await generatedExport();
    putPair(storage, "g.jsonl", bytes, serializeExportIndex(index));
    const ask = handlerFor(storage);
    for (const query of ["", "&form=compact", `&leaf=${index.ids[100]}`]) {
      const want = await ask(`url=${storage.origin}/o/whole/g.jsonl${query}`);
      const got = await ask(`url=${storage.origin}/plain/g.jsonl${query}`);
      assertEquals([got.status, got.text.length], [200, want.text.length], query);
      assert(got.text === want.text, `ignored Range ${query}: different bytes`);
    }
    // A flipped byte anywhere is caught while streaming: every block is checked.
    const flipped = bytes.slice();
    flipped[index.blockSize + 5] ^= 0x20;
    storage.put("flipped.jsonl", flipped);
    storage.put("flipped.jsonl.idx", serializeExportIndex(index));
    await expectError(
      ask(`url=${storage.origin}/plain/flipped.jsonl`),
      502,
      "ExportIndexMismatch",
      "block 1",
    );
    const small = handlerFor(storage, bytes.length - 1);
    await expectError(
      small(`url=${storage.origin}/plain/g.jsonl`),
      413,
      "PayloadTooLarge",
      "ignores Range",
    );
    // The same limit through ranges: only the context is fetched, and it fits.
    assertEquals((await small(`url=${storage.origin}/o/g.jsonl`)).status, 200);
  } finally {
    await storage.stop();
  }
});

Deno.test("tampering is a typed JSON error, never an answer", async (t) => {
  const storage = startRangeStorage();
  const ask = handlerFor(storage);
  const url = (name: string) => `url=${storage.origin}/o/${name}`;
  try {
    const { bytes, index } = await generatedExport();
    const text = serializeExportIndex(index);
    putPair(storage, "g.jsonl", bytes, text);
    assertEquals((await ask(url("g.jsonl"))).status, 200);
    const lastBlock = index.blocks.length - 1;
    await t.step("a flipped byte in a block the context reads", async () => {
      const flipped = bytes.slice();
      flipped[bytes.length - 10] ^= 0x01;
      putPair(storage, "flipped.jsonl", flipped, text);
      await expectError(
        ask(url("flipped.jsonl")),
        502,
        "ExportIndexMismatch",
        `block ${lastBlock}`,
      );
    });
    await t.step("another session's index", async () => {
      const other = await buildExportIndex(jsonlOf(generatedSession(3001, 6)));
      putPair(storage, "swapped.jsonl", bytes, serializeExportIndex(other));
      await expectError(ask(url("swapped.jsonl")), 502, "ExportIndexMismatch");
    });
    await t.step("an index whose entries point at the wrong lines", async () => {
      const shifted = structuredClone(index);
      const last = shifted.ids.length - 1;
      [shifted.ids[last], shifted.ids[last - 1]] = [shifted.ids[last - 1], shifted.ids[last]];
      putPair(storage, "lying.jsonl", bytes, serializeExportIndex(shifted));
      await expectError(ask(url("lying.jsonl")), 502, "ExportIndexMismatch", "does not describe");
    });
    await t.step("an index whose message span is not the line's message", async () => {
      const last = index.ids.length - 1;
      const line = new TextDecoder().decode(
        bytes.subarray(index.offsets[last], index.offsets[last] + index.lengths[last]),
      );
      assert(index.messages[last] > 0, "the last entry is a message with a span");
      // Inside the message value: its first key, and its last nested object or array.
      const inner = line.indexOf('"role":');
      const nested = Math.max(line.lastIndexOf(":{"), line.lastIndexOf(":[")) + 1;
      assert(nested > index.messages[last], "the last message has a nested value");
      for (const at of [index.messages[last] + 1, inner, nested, index.messages[last] - 1]) {
        const lying = structuredClone(index);
        (lying.messages as number[])[last] = encoder.encode(line.slice(0, at)).length;
        putPair(storage, "span.jsonl", bytes, serializeExportIndex(lying));
        await expectError(ask(url("span.jsonl")), 502, "ExportIndexMismatch", "does not parse");
      }
    });
    await t.step("a file appended to after indexing", async () => {
      const line = '{"type":"label","id":"late","parentId":null,"timestamp":"x","targetId":"a"}\n';
      const appended = new Uint8Array([...bytes, ...encoder.encode(line)]);
      putPair(storage, "appended.jsonl", appended, text);
      await expectError(ask(url("appended.jsonl")), 502, "ExportIndexMismatch", "bytes");
    });
    await t.step("an explicit index= that is not an index", async () => {
      await expectError(
        ask(`${url("g.jsonl")}&index=${encodeURIComponent(`${storage.origin}/o/g.jsonl`)}`),
        502,
        "ExportIndexMismatch",
        "not JSON",
      );
    });
    await t.step("the object replaced while it is read", async () => {
      const replaced = new Uint8Array([...bytes, ...encoder.encode("\n")]);
      for (const after of [1, 2]) {
        putPair(storage, "moving.jsonl", bytes, text);
        storage.reset();
        storage.onRequest = (name, count) => {
          if (name === "moving.jsonl" && count === after + 1) storage.put(name, replaced);
        };
        await expectError(ask(url("moving.jsonl")), 409, "ExportChanged", "changed");
        storage.onRequest = undefined;
      }
    });
    await t.step("the same URL policy for the index and every range", async () => {
      await expectError(
        ask(`${url("g.jsonl")}&index=${encodeURIComponent("https://elsewhere.example/g.idx")}`),
        403,
        "UrlNotAllowed",
      );
      const guarded = createProjectionHandler({
        allowUrl: (target) => target.origin === storage.origin && !target.pathname.endsWith(".idx"),
      });
      const refused = await guarded(new Request(`http://edge.local/?${url("g.jsonl")}`));
      assertEquals(refused.status, 403);
      await refused.body?.cancel();
    });
  } finally {
    storage.onRequest = undefined;
    await storage.stop();
  }
});

Deno.test("a server that answers ranges wrongly is a 502, never an answer", async () => {
  const storage = startRangeStorage();
  try {
    const { bytes, index } = await generatedExport();
    putPair(storage, "g.jsonl", bytes, serializeExportIndex(index));
    const wrongly = (change: (headers: Headers) => void) =>
      createProjectionHandler({
        allowUrl: (url) => url.origin === storage.origin,
        fetch: async (input, init) => {
          const response = await fetch(input, init);
          if (response.status !== 206) return response;
          const headers = new Headers(response.headers);
          change(headers);
          return new Response(response.body, { status: 206, headers });
        },
      });
    const cases: [string, (headers: Headers) => void][] = [
      [
        "asked for bytes",
        (h) => h.set("content-range", h.get("content-range")!.replace(/^bytes 0-/, "bytes 1-")),
      ],
      ["Content-Range", (h) => h.delete("content-range")],
    ];
    for (const [says, change] of cases) {
      const response = await wrongly(change)(
        new Request(`http://edge.local/?url=${storage.origin}/o/g.jsonl`),
      );
      await expectError(
        Promise.resolve({ status: response.status, text: await response.text() }),
        502,
        "FetchFailed",
        says,
      );
    }
  } finally {
    await storage.stop();
  }
});

Deno.test("a host answering 200 for any path has no index there; a range that breaks off is a 502", async () => {
  const storage = startRangeStorage();
  try {
    const { bytes, index } = await generatedExport();
    putPair(storage, "g.jsonl", bytes, serializeExportIndex(index));
    const page = createProjectionHandler({
      allowUrl: (url) => url.origin === storage.origin,
      fetch: (input, init) =>
        String(input).endsWith(".idx")
          ? Promise.resolve(new Response("<!doctype html><title>app</title>"))
          : fetch(input, init),
    });
    const ask = handlerFor(storage);
    const got = await page(new Request(`http://edge.local/?url=${storage.origin}/o/g.jsonl`));
    const want = await ask(`url=${storage.origin}/o/whole/g.jsonl`);
    assertEquals(got.status, 200);
    assert((await got.text()) === want.text, "the fallback page was taken for an index");
    const broken = createProjectionHandler({
      allowUrl: (url) => url.origin === storage.origin,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        if (response.status !== 206) return response;
        await response.body?.cancel();
        const body = new ReadableStream<Uint8Array>({
          pull: (controller) => controller.error(new TypeError("connection reset")),
        });
        return new Response(body, { status: 206, headers: response.headers });
      },
    });
    const reset = await broken(new Request(`http://edge.local/?url=${storage.origin}/o/g.jsonl`));
    await expectError(
      Promise.resolve({ status: reset.status, text: await reset.text() }),
      502,
      "FetchFailed",
      "connection reset",
    );
  } finally {
    await storage.stop();
  }
});
