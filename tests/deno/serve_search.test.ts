/**
 * `GET /api/search` of the session API: hits as JSON, filters from the query string, bad
 * queries as 400 with the typed error's name.
 */
import { MemorySessionStore } from "../../core.ts";
import { createSessionApi } from "../../web/api/routes.ts";
import { assertEquals } from "../conformance/assert.ts";
import { header, userEntry } from "../conformance/store_suite.ts";

Deno.test("session API: /api/search answers hits, filters and typed errors", async () => {
  const store = new MemorySessionStore();
  await store.create(header("s1"), [userEntry("the refreshToken expired", null, "e1")]);
  const api = createSessionApi({ store });
  const get = async (query: string) => {
    const response = (await api(new Request(`http://127.0.0.1/api/search?${query}`)))!;
    return { status: response.status, body: await response.json() };
  };
  const found = await get("q=refreshTok");
  assertEquals(found.status, 200);
  assertEquals(found.body.hits.map((h: { entryId: string }) => h.entryId), ["e1"]);
  assertEquals(found.body.hits[0].ranges, [[4, 14]]);
  assertEquals((await get("q=refreshTok&role=assistant,toolCall")).body.hits, []);
  assertEquals((await get("q=refreshTok&cwd=/elsewhere")).body.hits, []);
  const bad = await get("q=");
  assertEquals([bad.status, bad.body.error], [400, "InvalidArgumentError"]);
  assertEquals((await get("q=x&role=robot")).status, 400);
  await store.close();
});
