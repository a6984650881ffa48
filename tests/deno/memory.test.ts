import { MemorySessionStore, SessionNotFoundError } from "../../core.ts";
import type { SessionRecords } from "../../src/_records.ts";
import { assert, assertEquals, assertRejects } from "../conformance/assert.ts";
import { conformance } from "../conformance/mod.ts";
import { header, userEntry } from "../conformance/store_suite.ts";
import { memorySubject } from "../conformance/faults.ts";

conformance((name, fn) => Deno.test(name, fn), memorySubject("memory"));

Deno.test("memory: the change token moves with every write to the session, by any store over the map", async () => {
  const sessions = new Map<string, SessionRecords>();
  const store = new MemorySessionStore({ sessions });
  const other = new MemorySessionStore({ sessions });
  await store.create(header("s"));
  await store.create(header("t"));
  const first = await store.changeToken("s");
  assertEquals(await store.changeToken("s"), first, "stable while nothing changes");
  const whole = await store.changeToken();
  await other.append("t", [userEntry("elsewhere", null)]);
  assertEquals(await store.changeToken("s"), first, "another session's write leaves it");
  assert(await store.changeToken() !== whole, "the store's token moved");
  await other.append("s", [userEntry("hi", null)]);
  const appended = await store.changeToken("s");
  assert(appended !== first, "an append by another store over the map moves it");
  const renamed = { ...(await store.load("s")).header, cwd: "/moved" };
  await store.updateHeader(renamed);
  assert(await store.changeToken("s") !== appended, "a header update moves it");
  await assertRejects(() => store.changeToken("gone"), SessionNotFoundError);
});
