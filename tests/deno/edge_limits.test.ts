/**
 * The edge handler under hostile requests (issue 11): the `?url=` guard over a table of
 * IP literal forms, bodies cancelled once refused, a body-read timeout.
 */
import { createProjectionHandler, isPublicHttpsUrl } from "../../web/edge.ts";

function assert(condition: unknown, message = "assertion failed"): asserts condition {
  if (!condition) throw new Error(message);
}

function assertEquals(actual: unknown, expected: unknown, message = ""): void {
  const a = JSON.stringify(actual), e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${message}\nexpected: ${e}\nactual:   ${a}`);
}

const REFUSED_HOSTS = [
  "[::1]",
  "[::]",
  "[0:0:0:0:0:0:0:1]",
  "[::127.0.0.1]", // IPv4-compatible
  "[::7f00:1]",
  "[::8.8.8.8]",
  "[::ffff:127.0.0.1]", // IPv4-mapped
  "[::ffff:7f00:1]",
  "[::ffff:8.8.8.8]", // mapped, even to a public address
  "[::ffff:0:7f00:1]", // SIIT
  "[64:ff9b::7f00:1]", // NAT64 to 127.0.0.1
  "[64:ff9b::8.8.8.8]",
  "[64:ff9b:1::1]", // local-use NAT64
  "[100::1]", // discard
  "[fec0::1]", // site local
  "[feff::1]",
  "[fe80::1]", // link local
  "[fc00::1]", // unique local
  "[fd12:3456::1]",
  "[ff02::1]", // multicast
  "[2001::1]", // Teredo
  "[2001:10::1]", // ORCHID
  "[2001:db8::1]", // documentation
  "[3fff::1]",
  "[2002:7f00:1::1]", // 6to4 embedding 127.0.0.1
  "[4000::1]", // not yet allocated: not global unicast
  "127.0.0.1",
  "0x7f.1",
  "10.1.2.3",
  "192.0.2.1",
  "localhost",
  "a.localhost",
];
const ALLOWED_HOSTS = [
  "example.com",
  "8.8.8.8",
  "[2606:4700:4700::1111]",
  "[2a00:1450:4001:81b::200e]",
  "[2001:4860:4860::8888]",
];

Deno.test("edge ?url= guard: every non-global IP literal form is refused, global ones pass", () => {
  for (const host of REFUSED_HOSTS) {
    assert(!isPublicHttpsUrl(new URL(`https://${host}/s.jsonl`)), `${host} must be refused`);
  }
  for (const host of ALLOWED_HOSTS) {
    assert(isPublicHttpsUrl(new URL(`https://${host}/s.jsonl`)), `${host} must pass`);
  }
});

/** A body that counts what was read from it and whether it was cancelled. */
function countingBody(chunks: number, chunkBytes: number, stallAfter = Infinity) {
  const line = new TextEncoder().encode(
    '{"type":"session","version":4,"id":"big","createdAt":"2026-01-01T00:00:00.000Z","cwd":"/"}\n{"type":"custom","id":"c1","parentId":null,"timestamp":"t","customType":"x","data":"',
  );
  const filler = new Uint8Array(chunkBytes).fill(0x61);
  const seen = { pulls: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (seen.pulls >= stallAfter) return new Promise<void>(() => {}); // trickle: nothing more
      seen.pulls++;
      if (seen.pulls > chunks) return controller.close();
      controller.enqueue(seen.pulls === 1 ? line : filler);
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { body, seen };
}

const post = (body: ReadableStream<Uint8Array>, headers: HeadersInit = {}) =>
  new Request("https://edge.example/project", { method: "POST", body, headers });

Deno.test("edge: a streamed body over the limit is answered 413 and cancelled, not read to the end", async () => {
  const { body, seen } = countingBody(1_000, 1024);
  const handler = createProjectionHandler({ maxBytes: 10 * 1024 });
  const response = await handler(post(body));
  assertEquals(response.status, 413);
  assertEquals((await response.json()).error, "PayloadTooLarge");
  assert(seen.cancelled, "the body was cancelled");
  assert(seen.pulls < 20, `read ${seen.pulls} of 1000 chunks after refusing`);
});

Deno.test("edge: a declared length over the limit is answered 413 with the body cancelled unread", async () => {
  const { body, seen } = countingBody(1_000, 1024);
  const handler = createProjectionHandler({ maxBytes: 10 * 1024 });
  const response = await handler(post(body, { "content-length": String(1_000 * 1024) }));
  assertEquals(response.status, 413);
  assertEquals(response.headers.get("connection"), "close", "the server need not drain it");
  assert(seen.cancelled, "the body was cancelled");
  assert(seen.pulls <= 1, `read ${seen.pulls} chunks of a refused body`);
});

Deno.test("edge: a body that stops arriving is answered 408 and cancelled", async () => {
  const { body, seen } = countingBody(1_000, 1024, 3);
  const handler = createProjectionHandler({ bodyTimeoutMs: 50 });
  const response = await handler(post(body));
  assertEquals(response.status, 408);
  assertEquals((await response.json()).error, "RequestTimeout");
  assert(seen.cancelled, "the body was cancelled");
});

/** A fetched session whose body sends one chunk, then stalls or fails (a reset). */
function brokenFetch(ending: "stall" | "reset"): typeof fetch {
  return (input, init) => {
    // No export index beside it: the handler's probe finds none and reads the body whole.
    if (String(input).endsWith(".idx")) return Promise.resolve(new Response(null, { status: 404 }));
    const signal = (init as RequestInit).signal!;
    let sent = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (!sent) {
          sent = true;
          return controller.enqueue(new TextEncoder().encode(
            '{"type":"session","version":4,"id":"s","createdAt":"2026-01-01T00:00:00.000Z"}\n',
          ));
        }
        if (ending === "reset") return controller.error(new TypeError("connection reset"));
        // A stalled body ends only when the fetch's signal aborts it, as in a runtime.
        return new Promise<void>((_, fail) =>
          signal.addEventListener("abort", () => fail(signal.reason), { once: true })
        );
      },
    });
    return Promise.resolve(new Response(body, { status: 200 }));
  };
}

Deno.test("edge ?url=: a body that stalls past timeoutMs or resets mid-way answers 502 with the reason", async () => {
  const url = "?url=https://exports.example/s.jsonl";
  for (const ending of ["stall", "reset"] as const) {
    const handler = createProjectionHandler({ fetch: brokenFetch(ending), timeoutMs: 50 });
    const response = await handler(new Request(`https://edge.example/${url}`));
    assertEquals(response.status, 502, ending);
    const body = await response.json();
    assertEquals(body.error, "FetchFailed");
    assert(/session body/.test(body.message), body.message);
    if (ending === "reset") assert(body.message.includes("connection reset"), body.message);
  }
});
