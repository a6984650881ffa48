/**
 * `HttpSessionStore` under Node 20 over a real HTTP server (`node:http` serving the
 * `mu serve` API): the driver needs nothing but the runtime's `fetch`.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { MemorySessionStore, SessionNotFoundError, SessionStorageError } from "../../core.ts";
import { exportSessionJsonl } from "../../src/store.ts";
import { importSession } from "../../src/import_rule.ts";
import { HttpSessionStore, isSessionServer } from "../../stores/http/store.ts";
import { createSessionApi } from "../../web/api/routes.ts";
import { serveHttp } from "../../cli/http_server.ts";
import { fixtureText } from "../unit/fixtures.ts";

test("http store (node): list, load, export and typed errors over node:http", async () => {
  const server = new MemorySessionStore();
  const { sessionId } = await importSession(server, fixtureText("codec/v4.jsonl")) as {
    sessionId: string;
  };
  const api = createSessionApi({ store: server });
  const running = await serveHttp(
    async (request) => (await api(request)) ?? new Response("", { status: 404 }),
    "127.0.0.1",
    0,
  );
  try {
    const base = `http://127.0.0.1:${running.port}/`;
    assert.equal(await isSessionServer(base), true);
    const client = new HttpSessionStore({ baseUrl: base, entryPageSize: 1 });
    assert.deepEqual(await client.list(), await server.list());
    assert.deepEqual(
      (await client.load(sessionId)).entries,
      (await server.load(sessionId)).entries,
    );
    assert.equal(await client.exportJsonl(sessionId), await exportSessionJsonl(server, sessionId));
    await assert.rejects(client.load("missing"), SessionNotFoundError);
    await assert.rejects(client.delete(sessionId), SessionStorageError);
    assert.equal(await server.has(sessionId), true);
  } finally {
    await running.close();
  }
});
