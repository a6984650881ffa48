/**
 * The edge handler's memory bounds (issue 11, finding 3): the answer is streamed as it is
 * serialised (the default form byte-identical to the old one-shot JSON), `?form=compact`
 * does not copy the caller's entries back, and at most `maxConcurrent` requests read and
 * project at once, `maxQueued` wait unread, the rest get 503.
 */
import { parseSessionJsonlSync } from "../../src/jsonl.ts";
import { buildSessionProjection } from "../../src/projection.ts";
import { createProjectionHandler } from "../../web/edge.ts";
import { linearSessionStream } from "../edge/linear.ts";

const DEMO = new URL("../../web/demo/", import.meta.url).pathname;
const REALISTIC = await Deno.readTextFile(`${DEMO}01-token-refresh-race.jsonl`);
const LARGE = new TextDecoder().decode(
  new Uint8Array(await new Response(linearSessionStream(1024 * 1024)).arrayBuffer()),
);

function assert(condition: unknown, message = "assertion failed"): asserts condition {
  if (!condition) throw new Error(message);
}

function assertEquals(actual: unknown, expected: unknown, message = ""): void {
  const a = JSON.stringify(actual), e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${message}\nexpected: ${e}\nactual:   ${a}`);
}

const post = (body: BodyInit, query = "") =>
  new Request(`https://edge.example/project${query}`, { method: "POST", body });

Deno.test("edge: the default answer is streamed in pieces, byte-identical to the one-shot JSON", async () => {
  const response = await createProjectionHandler()(post(LARGE));
  assertEquals(response.status, 200);
  const pieces: Uint8Array[] = [];
  for await (const piece of response.body!) pieces.push(piece);
  assert(pieces.length > 10, `answered in ${pieces.length} pieces`);
  const text = await new Blob(pieces as Uint8Array<ArrayBuffer>[]).text();
  const parsed = parseSessionJsonlSync(LARGE, { retainRaw: false });
  const projection = buildSessionProjection(parsed.entries, undefined);
  assertEquals(
    text,
    JSON.stringify({
      sessionId: parsed.header.id,
      header: parsed.header,
      sourceVersion: parsed.sourceVersion,
      upgraded: parsed.upgraded,
      leafId: projection.leafId,
      missingParentIds: [],
      projection,
    }),
  );
});

Deno.test("edge: ?form=compact refers to the caller's entries instead of copying them", async () => {
  const handler = createProjectionHandler();
  const fullText = await (await handler(post(REALISTIC))).text();
  const response = await handler(post(REALISTIC, "?form=compact"));
  assertEquals(response.status, 200);
  const compactText = await response.text();
  const full = JSON.parse(fullText), compact = JSON.parse(compactText);
  assertEquals(compact.projection.messages, full.projection.messages);
  assertEquals(compact.projection.entries.length, full.projection.entries.length);
  let at = 0;
  full.projection.entries.forEach((entry: Record<string, unknown>, i: number) => {
    const row = compact.projection.entries[i];
    const { sourceEntry, messages, ...rest } = entry as {
      sourceEntry: { id: string };
      messages: unknown[];
    };
    assertEquals(row, { sourceEntryId: sourceEntry.id, messageCount: messages.length, ...rest });
    assertEquals(compact.projection.messages.slice(at, at += messages.length), messages);
  });
  assertEquals(at, compact.projection.messages.length);
  assert(!compactText.includes('"sourceEntry"'), "no entry copied back");
  assert(
    compactText.length < fullText.length * 0.75,
    `${compactText.length} vs ${fullText.length}`,
  );
  assertEquals((await handler(post(REALISTIC, "?form=huge"))).status, 400);
});

/** A body that sends the session only once `release()` is called; counts reads. */
function heldBody() {
  let release!: () => void;
  const released = new Promise<void>((done) => release = done);
  const seen = { pulls: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      seen.pulls++;
      await released;
      controller.enqueue(new TextEncoder().encode(REALISTIC));
      controller.close();
    },
    cancel() {
      seen.cancelled = true;
    },
  }, { highWaterMark: 0 }); // pulled only when read
  return { body, seen, release };
}

Deno.test("edge: at most maxConcurrent requests are read at once, maxQueued wait unread, more get 503", async () => {
  const handler = createProjectionHandler({ maxConcurrent: 1, maxQueued: 1 });
  const [a, b, c] = [heldBody(), heldBody(), heldBody()];
  const first = handler(post(a.body));
  const second = handler(post(b.body));
  const third = await handler(post(c.body));
  assertEquals(third.status, 503);
  assertEquals(third.headers.get("retry-after"), "1");
  assert(c.seen.cancelled, "the refused body is cancelled");
  await new Promise((tick) => setTimeout(tick, 0));
  assert(a.seen.pulls > 0, "the admitted request reads its body");
  assertEquals(b.seen.pulls, 0, "the queued request's body is not read yet");
  a.release();
  const one = await first;
  assertEquals(b.seen.pulls, 0, "still queued while the first answer is being sent");
  await one.text(); // sent: the slot passes on
  b.release();
  const two = await second;
  assertEquals(two.status, 200);
  await two.text();
  // The gate is free again.
  assertEquals((await handler(post(REALISTIC))).status, 200);
});

/** A session holding one user message with `text`. */
function oneMessageSession(id: string, text: string): string {
  const header = {
    type: "session",
    version: 4,
    id,
    createdAt: "2026-01-01T00:00:00.000Z",
    cwd: "/",
  };
  const message = {
    type: "message",
    id: "m1",
    parentId: null,
    timestamp: "2026-01-01T00:00:00.000Z",
    message: { role: "user", content: text, timestamp: 1 },
  };
  return `${JSON.stringify(header)}\n${JSON.stringify(message)}\n`;
}

Deno.test("edge: a message longer than one slice is sent in slices with characters kept whole", async () => {
  const text = `a${"\u{1F600}".repeat(200_000)}é`; // pairs straddle every slice boundary
  const session = oneMessageSession("long", text);
  const response = await createProjectionHandler()(post(session, "?form=compact"));
  const pieces: Uint8Array<ArrayBuffer>[] = [];
  for await (const piece of response.body!) pieces.push(piece as Uint8Array<ArrayBuffer>);
  assert(pieces.length > 2, `the long message went out in ${pieces.length} pieces`);
  const bytes = new Uint8Array(await new Blob(pieces).arrayBuffer());
  const body = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes)); // whole chars
  assertEquals(body.projection.messages[0].content, text);
});

Deno.test("edge: a long message with escapes is written in slices, byte-identical to JSON.stringify", async () => {
  const text = `"quoted"\n\ttab \u0001 \\ back ${"\u{1F600}é\u2028".repeat(150_000)} end`;
  const session = oneMessageSession("esc", text);
  const answer = await (await createProjectionHandler()(post(session))).text();
  const parsed = parseSessionJsonlSync(session, { retainRaw: false });
  const projection = buildSessionProjection(parsed.entries, undefined);
  const expected = JSON.stringify({
    sessionId: "esc",
    header: parsed.header,
    sourceVersion: 4,
    upgraded: false,
    leafId: projection.leafId,
    missingParentIds: [],
    projection,
  });
  assert(answer === expected, "the sliced answer differs from JSON.stringify");
});
