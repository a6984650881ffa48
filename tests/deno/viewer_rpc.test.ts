/**
 * The viewer's page ↔ worker calls ride the library's one message layer (src/rpc.ts): an
 * error thrown in the worker reaches the page as the same class with its fields, worker
 * events reach the page's listeners, and an unknown method is a typed error. Runs over a
 * MessageChannel; Chromium runs the built viewer in tests/deno/viewer.test.ts.
 */
import {
  InvalidArgumentError,
  SessionFormatError,
  SessionNotFoundError,
  SessionStorageError,
} from "../../core.ts";
import {
  createViewerClient,
  type RpcEvent,
  serveViewerApi,
  type ViewerApi,
} from "../../web/rpc.ts";
import { assert, assertEquals, assertRejects } from "../conformance/assert.ts";
import type { ImportProgressView } from "../../web/types.ts";

function connect(api: Partial<ViewerApi>) {
  const { port1, port2 } = new MessageChannel();
  const emit = serveViewerApi(port2, api as ViewerApi);
  const client = createViewerClient(port1 as unknown as Worker);
  return { client, emit, close: () => (port1.close(), port2.close()) };
}

Deno.test("viewer rpc: a worker error arrives as its class, with line, offset, reason and source", async () => {
  const { client, close } = connect({
    openSession: () =>
      Promise.reject(
        new SessionFormatError("session format version 99 is newer than 4", {
          line: 1,
          byteOffset: 0,
          source: "a.jsonl",
        }),
      ),
    deleteSession: (id) => Promise.reject(new SessionNotFoundError(id)),
    usage: () => Promise.reject(new TypeError("boom")),
  });
  try {
    const error = await assertRejects(() => client.call("openSession", "s1"), SessionFormatError);
    assertEquals(
      [error.name, error.line, error.byteOffset, error.source, error.reason],
      ["SessionFormatError", 1, 0, "a.jsonl", "session format version 99 is newer than 4"],
    );
    assertEquals(error.message, "a.jsonl, line 1: session format version 99 is newer than 4");
    const missing = await assertRejects(
      () => client.call("deleteSession", "gone"),
      SessionNotFoundError,
    );
    assertEquals(missing.sessionId, "gone");
    const foreign = await assertRejects(
      () => client.call("usage", "s1", null),
      SessionStorageError,
    );
    assertEquals(foreign.message, "TypeError: boom");
    await assertRejects(
      () => (client.call as (m: string) => Promise<unknown>)("noSuchMethod"),
      InvalidArgumentError,
    );
  } finally {
    close();
  }
});

Deno.test("viewer rpc: results and broadcast events reach the page in order", async () => {
  const { client, emit, close } = connect({ treeRowIndex: async (_, entryId) => entryId.length });
  try {
    const seen: RpcEvent[] = [];
    const done = new Promise<void>((resolve) =>
      client.onEvent((event) => {
        seen.push(event);
        if (seen.length === 2) resolve();
      })
    );
    const progress = (n: number) => ({ file: "a", done: n }) as unknown as ImportProgressView;
    emit({ kind: "event", type: "import-progress", data: progress(1) });
    emit({ kind: "event", type: "import-progress", data: progress(2) });
    assertEquals(await client.call("treeRowIndex", "s", "abc"), 3);
    await done;
    assertEquals(seen.map((e) => (e.data as unknown as { done: number }).done), [1, 2]);
    assert(seen.every((e) => e.type === "import-progress"), "event type kept");
  } finally {
    close();
  }
});
