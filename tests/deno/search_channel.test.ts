/**
 * Search through the worker store channel: a served store with an index (SQLite) gives
 * the client a `search` that runs in the worker (not a scan over the channel) and that
 * an abort signal cancels.
 */
import { DatabaseSync } from "node:sqlite";
import { searchSessions } from "../../core.ts";
import { serveSessionStore } from "../../stores/browser/_channel.ts";
import { WorkerSessionStore } from "../../stores/browser/worker_client.ts";
import { SqliteSessionStore } from "../../stores/sqlite/store.ts";
import { assert, assertEquals, assertRejects } from "../conformance/assert.ts";
import { header, userEntry } from "../conformance/store_suite.ts";

Deno.test("worker channel: search runs in the served store and can be aborted", async () => {
  const served = await SqliteSessionStore.open(new DatabaseSync(":memory:"));
  await served.create(header("s1"), [userEntry("the refreshToken expired", null)]);
  const { port1, port2 } = new MessageChannel();
  serveSessionStore(port2, served);
  const client = await WorkerSessionStore.overPort(port1);
  try {
    assert(typeof client.search === "function", "the client mirrors the capability");
    let loads = 0;
    const load = client.load.bind(client);
    client.load = (id) => (loads++, load(id));
    const hits = await searchSessions(client, "refreshTok");
    assertEquals(hits, await served.search("refreshTok"));
    assertEquals(hits.map((h) => h.sessionId), ["s1"]);
    assertEquals(loads, 0, "no session crossed the channel");
    const controller = new AbortController();
    controller.abort(new DOMException("stop", "AbortError"));
    await assertRejects(() => client.search!("token", { signal: controller.signal }), DOMException);
  } finally {
    await client.close();
  }
});

Deno.test("worker channel: a search's partial results cross as events", async () => {
  // Indexing deferred: the first search indexes the session as it searches it.
  const served = await SqliteSessionStore.open(new DatabaseSync(":memory:"), {
    deferSearchIndexAbove: 1,
  });
  await served.create(header("s1"), [
    userEntry("the refreshToken expired", null),
    userEntry("renew the refreshToken", null),
  ]);
  const { port1, port2 } = new MessageChannel();
  serveSessionStore(port2, served);
  const client = await WorkerSessionStore.overPort(port1);
  try {
    const reports: { hits: unknown[]; entriesDone: number; entries: number }[] = [];
    const hits = await client.search!("refreshTok", { onProgress: (p) => reports.push(p) });
    assertEquals(hits.length, 2);
    assert(reports.length > 0, "progress reached the page");
    assertEquals(reports.at(-1)!.entries, 2);
    assert(reports.some((report) => report.hits.length > 0), "with the hits found so far");
  } finally {
    await client.close();
  }
});
