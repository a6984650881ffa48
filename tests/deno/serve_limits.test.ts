/**
 * The limits of `mu serve`'s API handler, in process: an import is parsed as it arrives
 * (a line that is not JSON is refused before the rest of the upload is read, and nothing is stored), an
 * upload that stalls is refused with 408, and event streams past the cap are refused with
 * 503 until one closes.
 */
import { MemorySessionStore } from "../../core.ts";
import { createSessionApi } from "../../web/api/routes.ts";
import { assert, assertEquals } from "../conformance/assert.ts";

const ORIGIN = "http://127.0.0.1:8787";
const HEADER =
  '{"type":"session","version":4,"id":"s1","createdAt":"2026-01-01T00:00:00.000Z","cwd":"/p"}\n';

function message(id: string, parentId: string | null): string {
  return JSON.stringify({
    type: "message",
    id,
    parentId,
    timestamp: "2026-01-01T00:00:01.000Z",
    message: { role: "user", content: "hello", timestamp: 1 },
  }) + "\n";
}

/** An upload of `chunks`, counting how many the server asked for. */
function countedUpload(chunks: string[]) {
  let pulled = 0;
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled === chunks.length) return controller.close();
      controller.enqueue(encoder.encode(chunks[pulled++]));
    },
  });
  return { body, pulled: () => pulled };
}

function post(body: BodyInit): Request {
  return new Request(`${ORIGIN}/api/import`, {
    method: "POST",
    body,
    // @ts-ignore: streamed request bodies need duplex
    duplex: "half",
  });
}

/** `count` chained message lines, starting at `from`, in chunks of about 64 KiB. */
function messageChunks(from: number, count: number): string[] {
  const chunks: string[] = [];
  let chunk = "";
  for (let i = from; i < from + count; i++) {
    chunk += message(`m${i}`, i ? `m${i - 1}` : null);
    if (chunk.length >= 64 * 1024) {
      chunks.push(chunk);
      chunk = "";
    }
  }
  if (chunk) chunks.push(chunk);
  return chunks;
}

/** `store` with its `create` and `append` calls counted. */
function countedWrites(store: MemorySessionStore) {
  const writes: string[] = [];
  const create = store.create.bind(store);
  const append = store.append.bind(store);
  store.create = (...args) => (writes.push("create"), create(...args));
  store.append = (...args) => (writes.push("append"), append(...args));
  return writes;
}

Deno.test("mu serve import: a line that is not JSON is refused before the rest of the upload is read, nothing stored", async () => {
  const store = new MemorySessionStore();
  const api = createSessionApi({ store });
  const before = messageChunks(0, 100);
  const after = messageChunks(100, 40_000); // about 6 MiB after the bad line
  const upload = countedUpload([HEADER, ...before, '{"type":"message", "id": \n', ...after]);
  const response = (await api(post(upload.body)))!;
  assertEquals(response.status, 400);
  assertEquals((await response.json()).line, 102);
  const total = after.length + before.length + 2;
  assert(upload.pulled() < total / 2, `read ${upload.pulled()} of ${total} chunks`);
  assertEquals(await store.list({ includeInternal: true }), [], "nothing stored");
});

Deno.test("mu serve import: a new session is stored in batches as it arrives, equal to the upload", async () => {
  const store = new MemorySessionStore();
  const writes = countedWrites(store);
  const api = createSessionApi({ store });
  const lines = [HEADER, ...messageChunks(0, 20_000)]; // about 3 MiB
  const response = (await api(post(countedUpload(lines).body)))!;
  assertEquals(response.status, 201);
  assertEquals(writes[0], "create");
  assert(writes.length >= 3, `stored in ${writes.length} writes`);
  assertEquals(await store.exportJsonl("s1"), lines.join(""), "byte for byte");

  // The same upload again goes through the import rule: already present, nothing written.
  const written = writes.length;
  const again = (await api(post(countedUpload(lines).body)))!;
  assertEquals(await again.json(), { status: "already-present", sessionId: "s1" });
  assertEquals(writes.length, written);
});

Deno.test("mu serve import: an entry refused in a later batch names its upload line and leaves nothing behind", async () => {
  const store = new MemorySessionStore();
  const api = createSessionApi({ store });
  const chunks = messageChunks(0, 20_000);
  const bad =
    '{"type":"message","id":"bad","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z"}\n';
  const response = (await api(post(countedUpload([HEADER, ...chunks, bad]).body)))!;
  assertEquals(response.status, 400);
  const refusal = await response.json();
  assertEquals(refusal.line, 20_002);
  assertEquals(refusal.error, "SessionFormatError");
  assertEquals(
    await store.list({ includeInternal: true }),
    [],
    "the partly stored session is removed",
  );
});

Deno.test("mu serve import: an upload that stops sending is refused with 408, nothing stored", async () => {
  const store = new MemorySessionStore();
  const api = createSessionApi({ store, uploadIdleMs: 50 });
  let cancelled = false;
  const stalled = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(HEADER + message("m0", null)));
    },
    cancel() {
      cancelled = true;
    },
  });
  const response = (await api(post(stalled)))!;
  assertEquals(response.status, 408);
  assertEquals((await response.json()).error, "RequestTimeout");
  assert(cancelled, "the upload is cancelled");
  assertEquals(await store.list({ includeInternal: true }), []);
});

Deno.test("mu serve events: streams past the cap are refused with 503 until one closes", async () => {
  const api = createSessionApi({ store: new MemorySessionStore(), maxEventStreams: 2 });
  const open = async () => {
    const leave = new AbortController();
    const response = (await api(new Request(`${ORIGIN}/api/events`, { signal: leave.signal })))!;
    return { response, leave };
  };
  const first = await open();
  const second = await open();
  assertEquals([first.response.status, second.response.status], [200, 200]);
  const third = await open();
  assertEquals(third.response.status, 503);
  const refusal = await third.response.json();
  assertEquals(refusal.error, "TooManyEventStreams");
  assert(refusal.message.includes("2 event streams"), refusal.message);

  first.leave.abort(); // the client goes away: its slot is free again
  await first.response.body?.cancel().catch(() => {});
  const fourth = await open();
  assertEquals(fourth.response.status, 200);
  assertEquals((await open()).response.status, 503);
  for (const stream of [second, fourth]) {
    stream.leave.abort();
    await stream.response.body?.cancel().catch(() => {});
  }
  const after = await open();
  assertEquals(after.response.status, 200);
  after.leave.abort();
  await after.response.body?.cancel().catch(() => {});
});
