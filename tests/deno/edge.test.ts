/**
 * The edge handler (`web/edge.ts`): projection of a POSTed JSONL body or a `?url=` export,
 * `?leaf=`, typed errors (400 with line/reason, 404 unknown leaf, 403 refused URL, 413 too
 * large, 405, 502), and the default SSRF policy.
 */
import { parseSessionJsonlSync } from "../../src/jsonl.ts";
import { buildSessionProjection } from "../../src/projection.ts";
import {
  createProjectionHandler,
  handleProjectionRequest,
  isPublicHttpsUrl,
} from "../../web/edge.ts";

const DEMO = new URL("../../web/demo/", import.meta.url).pathname;
const REALISTIC = await Deno.readTextFile(`${DEMO}01-token-refresh-race.jsonl`);
const BOUNDARY = await Deno.readTextFile(`${DEMO}02-verbatim-boundary.jsonl`);
const INTERRUPTED = await Deno.readTextFile(`${DEMO}03-interrupted-tool-call.jsonl`);
const V1 = await Deno.readTextFile(`${DEMO}04-pi-v1-zsh-startup.jsonl`);

function assert(condition: unknown, message = "assertion failed"): asserts condition {
  if (!condition) throw new Error(message);
}

function assertEquals(actual: unknown, expected: unknown, message = ""): void {
  const a = JSON.stringify(actual), e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${message}\nexpected: ${e}\nactual:   ${a}`);
}

function post(body: BodyInit, query = ""): Request {
  return new Request(`https://edge.example/project${query}`, { method: "POST", body });
}

async function call(
  request: Request,
  handler = handleProjectionRequest,
  // deno-lint-ignore no-explicit-any
): Promise<{ status: number; body: any; type: string }> {
  const response = await handler(request);
  return {
    status: response.status,
    body: await response.json(),
    type: response.headers.get("content-type") ?? "",
  };
}

Deno.test("POST a v4 session: the projection is buildSessionProjection at the last entry", async () => {
  const { status, body, type } = await call(post(REALISTIC));
  assertEquals(status, 200);
  assert(type.startsWith("application/json"), type);
  const parsed = parseSessionJsonlSync(REALISTIC);
  const expected = buildSessionProjection(parsed.entries, undefined);
  assertEquals(body.sessionId, parsed.header.id);
  assertEquals(body.leafId, expected.leafId);
  assertEquals(body.projection, JSON.parse(JSON.stringify(expected)));
  assert(body.projection.entries.some((e: { edited?: unknown }) => e.edited), "an edited entry");
});

Deno.test("?leaf= picks another branch and the context changes", async () => {
  const parsed = parseSessionJsonlSync(REALISTIC);
  const branchLeaf = parsed.entries.find((e) => e.type === "label" && e.label === "test added")!.id;
  const { status, body } = await call(post(REALISTIC, `?leaf=${branchLeaf}`));
  assertEquals(status, 200);
  assertEquals(body.leafId, branchLeaf);
  const expected = buildSessionProjection(parsed.entries, branchLeaf);
  assertEquals(body.projection.messages, JSON.parse(JSON.stringify(expected.messages)));
  const last = await call(post(REALISTIC));
  assert(
    body.projection.messages.length !== last.body.projection.messages.length,
    "branches differ",
  );
});

Deno.test("a streamed body (ReadableStream) works like a string", async () => {
  const bytes = new TextEncoder().encode(BOUNDARY);
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < bytes.length; i += 97) controller.enqueue(bytes.slice(i, i + 97));
      controller.close();
    },
  });
  const { status, body } = await call(post(stream));
  assertEquals(status, 200);
  assertEquals(body.projection.entries[0].derived, "compaction-boundary");
  assert(body.projection.boundary?.details?.strategy === "verbatim-lines");
});

Deno.test("interrupted tool call: the synthetic result is in the projection", async () => {
  const { body } = await call(post(INTERRUPTED));
  const derived = body.projection.entries.filter((e: { derived?: string }) =>
    e.derived === "interrupted-tool-result"
  );
  assertEquals(derived.length, 1);
  assertEquals(derived[0].messages[0].role, "toolResult");
  assertEquals(derived[0].messages[0].isError, true);
});

Deno.test("v1 file: upgraded, sourceVersion 1", async () => {
  const { status, body } = await call(post(V1));
  assertEquals(status, 200);
  assertEquals(body.sourceVersion, 1);
  assertEquals(body.upgraded, true);
  assertEquals(body.header.version, 4);
  assertEquals(body.projection.messages.length, 4);
});

Deno.test("torn final record → 400 SessionFormatError with line and reason", async () => {
  const torn = REALISTIC.split("\n").slice(0, 5).join("\n") + '\n{"type":"message","id":"x","par';
  const { status, body } = await call(post(torn));
  assertEquals(status, 400);
  assertEquals(body.error, "SessionFormatError");
  assertEquals(body.line, 6);
  assert(/torn/.test(body.reason), body.reason);
});

Deno.test("future version and invalid JSON → 400 with the line", async () => {
  const future = await call(
    post('{"type":"session","version":9,"id":"f","createdAt":"x","cwd":"/"}\n'),
  );
  assertEquals(future.status, 400);
  assertEquals(future.body.line, 1);
  assert(/newer/.test(future.body.reason), future.body.reason);
  const bad = await call(
    post(
      V1.split("\n").slice(0, 2).join("\n") + "\nnot json\n" + V1.split("\n").slice(2).join("\n"),
    ),
  );
  assertEquals(bad.status, 400);
  assertEquals(bad.body.line, 3);
});

Deno.test("unknown leaf → 404; empty leaf → 400", async () => {
  const missing = await call(post(REALISTIC, "?leaf=deadbeef"));
  assertEquals(missing.status, 404);
  assertEquals(missing.body.error, "EntryNotFoundError");
  assertEquals(missing.body.leafId, "deadbeef");
  assertEquals((await call(post(REALISTIC, "?leaf="))).status, 400);
});

Deno.test("missing parent ids are named in the answer", async () => {
  const dangling = await Deno.readTextFile(
    new URL("../../fixtures/projection/leaf-selection.jsonl", import.meta.url),
  );
  const answer = await call(post(dangling, "?leaf=x1"));
  assertEquals(answer.status, 200);
  assertEquals(answer.body.missingParentIds, ["missing0"]);
  assertEquals((await call(post(REALISTIC))).body.missingParentIds, []);
});

Deno.test("a one-line body that is not JSON is invalid JSON, not a torn record", async () => {
  const bad = await call(post("not json"));
  assertEquals(bad.status, 400);
  assertEquals(bad.body.line, 1);
  assertEquals(String(bad.body.reason).startsWith("invalid JSON: "), true);
});

Deno.test("bad requests: other methods 405, no body 400, body and url 400", async () => {
  const put = await handleProjectionRequest(
    new Request("https://edge/", { method: "PUT", body: "x" }),
  );
  assertEquals(put.status, 405);
  await put.body?.cancel();
  assertEquals((await call(new Request("https://edge/"))).status, 400);
  assertEquals((await call(post(REALISTIC, "?url=https://example.com/s.jsonl"))).status, 400);
});

Deno.test("bodies over maxBytes → 413 (declared or streamed)", async () => {
  const handler = createProjectionHandler({ maxBytes: 1000 });
  assertEquals((await call(post(REALISTIC), handler)).status, 413);
  const stream = new Blob([REALISTIC]).stream();
  assertEquals((await call(post(stream), handler)).status, 413);
});

Deno.test("default ?url= policy refuses private, loopback, http and credentialed URLs", async () => {
  for (
    const url of [
      "http://example.com/s.jsonl",
      "https://localhost/s.jsonl",
      "https://127.0.0.1/s.jsonl",
      "https://10.1.2.3/s.jsonl",
      "https://169.254.169.254/latest/meta-data",
      "https://[::1]/s.jsonl",
      "https://[::ffff:7f00:1]/s.jsonl",
      "https://user:pw@example.com/s.jsonl",
      "https://example.com:8443/s.jsonl",
      "file:///etc/passwd",
    ]
  ) {
    assertEquals(isPublicHttpsUrl(new URL(url)), false, url);
    const { status, body } = await call(
      new Request(`https://edge/?url=${encodeURIComponent(url)}`),
    );
    assertEquals(status, 403, url);
    assertEquals(body.error, "UrlNotAllowed");
  }
  assert(isPublicHttpsUrl(new URL("https://exports.example.com/a.jsonl")));
  assertEquals((await call(new Request("https://edge/?url=not%20a%20url"))).status, 400);
});

Deno.test("?url= fetch: served session, redirects refused, errors 502, size capped", async () => {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    const path = new URL(request.url).pathname;
    if (request.headers.get("cookie")) return new Response("cookie forwarded", { status: 500 });
    if (path === "/s.jsonl") return new Response(REALISTIC);
    if (path === "/redirect") return Response.redirect("http://127.0.0.1:1/elsewhere", 302);
    return new Response("nope", { status: 404 });
  });
  const base = `http://127.0.0.1:${server.addr.port}`;
  const allowLocal = createProjectionHandler({ allowUrl: (url) => url.origin === base });
  try {
    const ok = await call(
      new Request(`https://edge/?url=${base}/s.jsonl&leaf=a1000006`, {
        headers: { cookie: "a=b" },
      }),
      allowLocal,
    );
    assertEquals(ok.status, 200);
    assertEquals(ok.body.leafId, "a1000006");
    assertEquals(
      (await call(new Request(`https://edge/?url=${base}/redirect`), allowLocal)).status,
      502,
    );
    assertEquals(
      (await call(new Request(`https://edge/?url=${base}/missing`), allowLocal)).status,
      502,
    );
    const small = createProjectionHandler({ allowUrl: () => true, maxBytes: 500 });
    assertEquals((await call(new Request(`https://edge/?url=${base}/s.jsonl`), small)).status, 413);
    const other = await call(
      new Request(`https://edge/?url=${encodeURIComponent("https://example.org/x.jsonl")}`),
      allowLocal,
    );
    assertEquals(other.status, 403);
  } finally {
    await server.shutdown();
  }
});

Deno.test("an injected fetch is used and given no caller headers", async () => {
  let seen: RequestInit | undefined;
  const handler = createProjectionHandler({
    fetch: (async (_url: URL, init?: RequestInit) => {
      seen = init;
      return new Response(BOUNDARY);
    }) as typeof fetch,
  });
  const { status } = await call(
    new Request("https://edge/?url=https%3A%2F%2Fexports.example.com%2Fb.jsonl", {
      headers: { authorization: "Bearer x" },
    }),
    handler,
  );
  assertEquals(status, 200);
  assertEquals(seen?.redirect, "manual");
  assertEquals(seen?.credentials, "omit");
  assert(!new Headers(seen?.headers).has("authorization"), "authorization forwarded");
});
