/**
 * `mu serve` as a process: every API route and error status over the default SQLite store,
 * the same-origin guard, and change events for appends made by another process.
 */
import { readFile } from "node:fs/promises";
import { SessionManager } from "../../core.ts";
import { openSqliteStore } from "../../stores/sqlite/file.ts";
import { assert, assertEquals } from "../conformance/assert.ts";
import { fixturePath } from "../unit/fixtures.ts";
import { removeDir, tempDir } from "../jsonl/subjects.ts";
import { startServe } from "../cli/serve.ts";

const V4 = fixturePath("codec/v4.jsonl");
const ID = "0b7c3f5e-4d2a-4c61-9e57-1f7a2b3c4d5e";

function serveTest(
  name: string,
  fn: (origin: string, agentDir: string) => Promise<void>,
  args: string[] = [],
) {
  Deno.test(`mu serve: ${name}`, async () => {
    const root = await tempDir("mu-serve-");
    const agentDir = `${root}/agent`;
    // An empty viewer folder: these tests are about the API; the viewer test builds it.
    await Deno.mkdir(`${root}/viewer`);
    await Deno.writeTextFile(`${root}/viewer/index.html`, "<!doctype html><title>viewer</title>");
    const server = await startServe(agentDir, ["--root", `${root}/viewer`, ...args]);
    try {
      await fn(server.origin, agentDir);
    } finally {
      await server.stop();
      await removeDir(root);
    }
  });
}

/** A raw HTTP/1.1 GET with chosen headers (fetch may not set Host or Origin); the whole answer. */
function rawGet(port: number, host: string, extra = ""): Promise<string> {
  return rawRequest(
    port,
    `GET /api/sessions HTTP/1.1\r\nHost: ${host}\r\n${extra}Connection: close\r\n\r\n`,
  );
}

/** Send `request` as is over TCP and read the whole answer. */
async function rawRequest(port: number, request: string): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(new TextEncoder().encode(request));
  let text = "";
  for await (const chunk of conn.readable.pipeThrough(new TextDecoderStream())) text += chunk;
  return text;
}

async function status(response: Promise<Response>): Promise<[number, Record<string, unknown>]> {
  const r = await response;
  return [r.status, await r.json()];
}

serveTest(
  "import, list, page, context, export; every error is JSON with a usable status",
  async (origin) => {
    const bytes = await readFile(V4);
    const post = (body: BodyInit) => fetch(`${origin}/api/import`, { method: "POST", body });
    assertEquals((await status(post(bytes)))[0], 201);
    assertEquals(await status(post(bytes)), [200, { status: "already-present", sessionId: ID }]);
    const changed = new TextDecoder().decode(bytes).replace("Hello", "Changed");
    assertEquals((await status(post(changed)))[0], 409);
    const [badStatus, bad] = await status(
      post(
        '{"type":"session","version":4,"id":"x","createdAt":"2026-01-01T00:00:00.000Z","cwd":"/p"}\n{"type":"message"}\n',
      ),
    );
    assertEquals(badStatus, 400);
    assertEquals(bad.line, 2);
    assert(typeof bad.reason === "string");

    const [, listing] = await status(fetch(`${origin}/api/sessions?cwd=/home/dev/project`));
    assertEquals((listing.sessions as { id: string }[]).map((s) => s.id), [ID]);
    const [, paged] = await status(fetch(`${origin}/api/sessions?limit=1&cursor=1`));
    assertEquals(paged.sessions, []);

    const [, page] = await status(fetch(`${origin}/api/sessions/${ID}?offset=1&limit=1`));
    assertEquals(page.total, 2);
    assertEquals((page.entries as { id: string }[]).map((e) => e.id), ["b2c3d4e5"]);
    const [, context] = await status(fetch(`${origin}/api/sessions/${ID}/context?leaf=a1b2c3d4`));
    assertEquals((context.projection as { messages: unknown[] }).messages.length, 1);
    const exported = await fetch(`${origin}/api/sessions/${ID}/export`);
    assertEquals(exported.headers.get("content-type"), "application/jsonl; charset=utf-8");
    assertEquals(new Uint8Array(await exported.arrayBuffer()), new Uint8Array(bytes));

    assertEquals((await status(fetch(`${origin}/api/sessions/nope`)))[0], 404);
    assertEquals((await status(fetch(`${origin}/api/sessions/${ID}/context?leaf=nope`)))[0], 404);
    assertEquals((await status(fetch(`${origin}/api/nothing`)))[0], 404);
    assertEquals((await status(fetch(`${origin}/api/sessions`, { method: "DELETE" })))[0], 405);
    assertEquals((await status(fetch(`${origin}/api/sessions?limit=-1`)))[0], 400);
    const [, internal] = await status(fetch(`${origin}/api/sessions/nope`));
    assert(!JSON.stringify(internal).includes("    at "), "no stack traces");
  },
);

serveTest("a body over the limit answers 413, with or without a content-length", async (origin) => {
  const declared = await fetch(`${origin}/api/import`, {
    method: "POST",
    body: new Uint8Array(1024 * 1024 + 1),
  });
  assertEquals(declared.status, 413);
  await declared.body?.cancel();
  // Chunked, with no length: the server must stop reading and answer once the limit passes.
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: Number(new URL(origin).port) });
  const encoder = new TextEncoder();
  await conn.write(encoder.encode(
    `POST /api/import HTTP/1.1\r\nHost: 127.0.0.1:${
      new URL(origin).port
    }\r\nTransfer-Encoding: chunked\r\n\r\n`,
  ));
  const chunk = encoder.encode(`10000\r\n${"x".repeat(0x10000)}\r\n`);
  const reply = conn.readable.pipeThrough(new TextDecoderStream()).getReader();
  let answer = "";
  const reading = (async () => {
    while (!answer.includes("\r\n")) {
      const { value, done } = await reply.read();
      if (done) break;
      answer += value;
    }
  })();
  // 17 chunks of 64 KiB pass the 1 MiB limit; then wait for the answer without sending more.
  for (let i = 0; i < 17; i++) await conn.write(chunk);
  await reading;
  assert(answer.startsWith("HTTP/1.1 413"), answer.slice(0, 40));
  reply.cancel().catch(() => {});
  try {
    conn.close();
  } catch { /* closed */ }
}, ["--max-import-bytes", String(1024 * 1024)]);

serveTest("requests for another host name or from another origin are refused", async (origin) => {
  const port = new URL(origin).port;
  const host = `127.0.0.1:${port}`;
  assert((await rawGet(Number(port), `evil.example:${port}`)).startsWith("HTTP/1.1 403"));
  assert((await rawGet(Number(port), `localhost:${port}`)).startsWith("HTTP/1.1 200"));
  const evil = "Origin: http://evil.example\r\n";
  assert((await rawGet(Number(port), host, evil)).startsWith("HTTP/1.1 403"));
  assert(
    (await rawGet(Number(port), host, `Origin: http://${host}\r\n`)).startsWith("HTTP/1.1 200"),
  );
  const crossSite = "Sec-Fetch-Site: cross-site\r\n";
  assert((await rawGet(Number(port), host, crossSite)).startsWith("HTTP/1.1 403"));
  const body = await readFile(V4, "utf8");
  const csrf = await rawRequest(
    Number(port),
    `POST /api/import HTTP/1.1\r\nHost: ${host}\r\nOrigin: http://evil.example\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
  );
  assert(csrf.startsWith("HTTP/1.1 403"), csrf.slice(0, 40));
  assertEquals(
    (await (await fetch(`${origin}/api/sessions`)).json()).sessions,
    [],
    "nothing was imported",
  );
  const page = await fetch(`${origin}/`);
  assertEquals(page.status, 200);
  assert(page.headers.get("content-security-policy")?.includes("default-src 'none'"));
  await page.body?.cancel();
});

serveTest("a malformed percent-encoding in a session id answers 400, not 500", async (origin) => {
  for (
    const path of ["/api/sessions/%E0%A4%A", "/api/sessions/%zz/context", "/api/sessions/%/export"]
  ) {
    const [code, body] = await status(fetch(`${origin}${path}`));
    assertEquals([code, body.error], [400, "BadRequest"], path);
  }
  assertEquals((await status(fetch(`${origin}/api/sessions/%41bc`)))[0], 404, "a valid escape");
});

serveTest(
  "a request with two Host headers is refused with 400, whichever comes first",
  async (origin) => {
    const port = Number(new URL(origin).port);
    const ours = `127.0.0.1:${port}`;
    for (const [first, second] of [[ours, "evil.example"], ["evil.example", ours], [ours, ours]]) {
      const answer = await rawGet(port, first, `Host: ${second}\r\n`);
      assert(answer.startsWith("HTTP/1.1 400"), `${first} then ${second}: ${answer.slice(0, 40)}`);
      assert(answer.includes("more than one Host header"), answer);
    }
    assert((await rawGet(port, ours)).startsWith("HTTP/1.1 200"), "one Host header passes");
  },
);

serveTest(
  "an append by another process reaches /api/events as a session event",
  async (origin, agentDir) => {
    await fetch(`${origin}/api/import`, { method: "POST", body: await readFile(V4) }).then((r) =>
      r.body?.cancel()
    );
    const events = await fetch(`${origin}/api/events?session=${ID}`);
    const reader = events.body!.pipeThrough(new TextDecoderStream()).getReader();
    let seen = "";
    while (!seen.includes("event: ready")) seen += (await reader.read()).value ?? "";
    const writer = new Deno.Command(Deno.execPath(), {
      args: [
        "eval",
        `
      import { SessionManager } from "${new URL("../../core.ts", import.meta.url).href}";
      import { openSqliteStore } from "${
          new URL("../../stores/sqlite/file.ts", import.meta.url).href
        }";
      const store = await openSqliteStore(${JSON.stringify(`${agentDir}/sessions.db`)});
      const manager = await SessionManager.open(store, ${JSON.stringify(ID)});
      await manager.appendMessage({ role: "user", content: "from another process", timestamp: 1 });
      await store.close();`,
      ],
      stdout: "inherit",
      stderr: "inherit",
    });
    assertEquals((await writer.output()).code, 0);
    while (!seen.includes(`"sessionId":"${ID}"`)) {
      const { value, done } = await reader.read();
      assert(!done, `event stream ended: ${seen}`);
      seen += value;
    }
    await reader.cancel();
    const [, page] = await status(fetch(`${origin}/api/sessions/${ID}`));
    assertEquals(page.total, 3);
    assert(SessionManager !== undefined && openSqliteStore !== undefined);
  },
);
