/**
 * `HttpSessionStore` against the `mu serve` API handler, in process (a `fetch` that calls
 * `createSessionApi`): it reads exactly what the server's store holds, across pages; its
 * errors are the library's typed errors; writes other than `create` are refused and commit
 * nothing.
 */
import {
  EntryNotFoundError,
  InvalidArgumentError,
  MemorySessionStore,
  SessionExistsError,
  SessionFormatError,
  SessionNotFoundError,
  SessionStorageError,
} from "../../core.ts";
import { importSession } from "../../src/import_rule.ts";
import { exportSessionJsonl } from "../../src/store.ts";
import { searchSessions } from "../../src/search.ts";
import { HttpSessionStore, isSessionServer } from "../../stores/http/store.ts";
import { createSessionApi } from "../../web/api/routes.ts";
import { assert, assertEquals, assertRejects } from "../conformance/assert.ts";
import { compareLeaves } from "../unit/context_compare.ts";
import { generatedSession, handMadeSessions } from "../unit/context_sessions.ts";
import { fixtureNames, fixtureText } from "../unit/fixtures.ts";

const BASE = "http://127.0.0.1:4173/";

/** A server store holding every loadable codec fixture, and a client over its API. */
async function setup(pageSizes: { list?: number; entries?: number } = {}) {
  const server = new MemorySessionStore();
  for (const name of fixtureNames("codec")) {
    await importSession(server, fixtureText(`codec/${name}.jsonl`));
  }
  const api = createSessionApi({ store: server });
  let requests = 0;
  const fetcher = async (request: Request) => {
    requests++;
    return (await api(request)) ?? new Response("not found", { status: 404 });
  };
  const client = new HttpSessionStore({
    baseUrl: BASE,
    fetch: fetcher,
    listPageSize: pageSizes.list,
    entryPageSize: pageSizes.entries,
  });
  return { server, client, fetcher, requests: () => requests };
}

Deno.test("http store: list follows pages and equals the server's listing", async () => {
  const { server, client, requests } = await setup({ list: 2 });
  const expected = await server.list({ includeInternal: true });
  assert(expected.length > 4, "enough sessions for several pages");
  const before = requests();
  const rows = await client.list({ includeInternal: true });
  assertEquals(rows, expected);
  assertEquals(requests() - before, Math.ceil(expected.length / 2));
  assert(rows[0].modified instanceof Date);
});

Deno.test("http store: load follows entry pages; export is byte-identical", async () => {
  const { server, client } = await setup({ entries: 1 });
  for (const row of await server.list({ includeInternal: true })) {
    const want = await server.load(row.id);
    const got = await client.load(row.id);
    assertEquals(got.header, want.header);
    assertEquals(got.entries, want.entries);
    assertEquals(got.sourceVersion, want.sourceVersion);
    assertEquals(await client.exportJsonl(row.id), await exportSessionJsonl(server, row.id));
    assertEquals(await client.has(row.id), true);
  }
  assertEquals(await client.has("no-such-session"), false);
});

Deno.test("http store: API errors come back as typed errors", async () => {
  const { client } = await setup();
  const missing = await assertRejects(() => client.load("no-such-session"), SessionNotFoundError);
  assertEquals(missing.sessionId, "no-such-session");
  await assertRejects(() => client.exportJsonl("no-such-session"), SessionNotFoundError);
  const refused = new HttpSessionStore({
    baseUrl: BASE,
    fetch: () => Promise.reject(new TypeError("connection refused")),
  });
  await assertRejects(() => refused.list(), SessionStorageError);
});

Deno.test("http store: create imports; an existing id and bad data are refused", async () => {
  const { server, client } = await setup();
  const header = {
    type: "session" as const,
    version: 4 as const,
    id: "made-over-http",
    createdAt: "2026-01-01T00:00:00.000Z",
    cwd: "/p",
  };
  assertEquals(await client.create(header), { id: "made-over-http" });
  assertEquals((await server.load("made-over-http")).header, header);
  await assertRejects(() => client.create(header), SessionExistsError);
  const bad = { ...header, id: "bad-entry" };
  const error = await assertRejects(
    () => client.create(bad, [{ type: "message" } as never]),
    SessionFormatError,
  );
  assert(error.line > 0, "the line of the bad record");
  assertEquals(await server.has("bad-entry"), false);
});

Deno.test("http store: other writes are refused, nothing changes; close ends it", async () => {
  const { server, client } = await setup();
  const [row] = await server.list();
  const before = await exportSessionJsonl(server, row.id);
  const { header, entries } = await client.load(row.id);
  for (
    const write of [
      () => client.append(row.id, entries.slice(0, 1)),
      () => client.replace(header, []),
      () => client.updateHeader({ ...header, cwd: "/elsewhere" }),
      () => client.delete(row.id),
    ]
  ) {
    const error = await assertRejects(write, SessionStorageError);
    assert(error.message.startsWith("read-only:"), error.message);
  }
  assertEquals(await exportSessionJsonl(server, row.id), before);
  await client.close();
  await assertRejects(() => client.list(), SessionStorageError);
});

Deno.test("http store: isSessionServer tells mu serve from a static site", async () => {
  const { fetcher } = await setup();
  assertEquals(await isSessionServer(BASE, fetcher), true);
  const staticSite = async () => new Response("<!doctype html>", { status: 200 });
  assertEquals(await isSessionServer(BASE, staticSite), false);
  assertEquals(await isSessionServer(BASE, async () => new Response("", { status: 404 })), false);
});

Deno.test("http store: search is one request to the server and equals its hits", async () => {
  const { server, client, requests } = await setup();
  for (
    const [query, options] of [
      ["hello", { limit: 5 }],
      ["hello", { roles: ["user" as const], includeInternal: true }],
      ["nothing-like-this-anywhere", {}],
    ] as const
  ) {
    const before = requests();
    const hits = await searchSessions(client, query, options);
    // One request, not a load of every session (the viewer's "This computer" search).
    assertEquals(requests() - before, 1, query);
    assertEquals(hits, await searchSessions(server, query, options), query);
  }
  assert((await searchSessions(client, "hello")).length > 0, "the fixtures say hello");
  const before = requests();
  await assertRejects(() => searchSessions(client, "hello", { limit: 0 }), InvalidArgumentError);
  await assertRejects(
    () => searchSessions(client, "hello", { roles: ["nobody" as never] }),
    InvalidArgumentError,
  );
  assertEquals(requests() - before, 0, "bad options are refused before any request");
});

Deno.test("http store: loadContext equals the full projection and sends only the context", async () => {
  const { server, client } = await setup();
  for (const session of handMadeSessions()) {
    await server.create(session.header, session.entries);
    await compareLeaves(client, session);
  }
  const big = generatedSession(3_000, 3_000);
  await server.create(big.header, big.entries);
  await compareLeaves(client, big, 701);
  const loaded = await client.loadContext(big.header.id);
  assert(loaded.prefix.length + loaded.entries.length < big.entries.length / 2, "a context range");
  assertEquals(await client.loadContext(big.header.id, null), {
    header: big.header,
    prefix: [],
    entries: [],
  });
  await assertRejects(() => client.loadContext(big.header.id, "nope"), EntryNotFoundError);
  await assertRejects(() => client.loadContext("missing-session"), SessionNotFoundError);
});
