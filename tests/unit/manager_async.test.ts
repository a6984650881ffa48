/**
 * Every async method of SessionManager reports bad arguments as a rejected promise carrying
 * a typed error, never as a synchronous throw: callers chain `.catch()` (or fire and forget
 * with a handler), and a synchronous throw skips both. The method list is checked against
 * the class so a new async method must be added here.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { MemorySessionStore, SessionError, SessionManager } from "../../core.ts";

// deno-lint-ignore no-explicit-any
type Any = any;
type Call = (manager: SessionManager, store: MemorySessionStore) => unknown;

const bad: Any = 42;

const instanceCalls: Record<string, Call> = {
  appendMessage: (m) => m.appendMessage(bad),
  appendThinkingLevelChange: (m) => m.appendThinkingLevelChange(bad),
  appendContextWindowChange: (m) => m.appendContextWindowChange("wide" as Any),
  appendModelChange: (m) => m.appendModelChange(bad, bad),
  appendCompaction: (m) => m.appendCompaction("s", "missing", 0),
  appendCustomEntry: (m) => m.appendCustomEntry(bad),
  appendCustomMessageEntry: (m) => m.appendCustomMessageEntry(bad, bad, bad),
  appendSessionInfo: (m) => m.appendSessionInfo(bad),
  appendSessionSummary: (m) => m.appendSessionSummary("s", "missing"),
  appendLabelChange: (m) => m.appendLabelChange("missing", "x"),
  appendContextEdit: (m) => m.appendContextEdit("missing", null),
  branchWithSummary: (m) => m.branchWithSummary("missing", "s"),
  newSession: (m) => m.newSession({ id: "../evil" }),
  markSessionInternal: (m) => m.markSessionInternal(bad),
  createBranchedSession: (m) => m.createBranchedSession("missing"),
  forkTo: (m) => m.forkTo(bad, bad),
  deleteSession: (m) => m.deleteSession(m.getSessionId()),
  setSessionFile: (m) => m.setSessionFile(bad),
};

const staticCalls: Record<string, (store: MemorySessionStore) => unknown> = {
  create: (store) => SessionManager.create(store, "/p", { id: "../evil" }),
  open: (store) => SessionManager.open(store, "missing"),
  continueRecent: () => SessionManager.continueRecent(bad, bad),
  forkFrom: () => SessionManager.forkFrom(bad, bad),
  importFromJsonl: (store) => SessionManager.importFromJsonl(new Uint8Array([1, 2]), "/p", store),
  list: () => SessionManager.list(bad, bad),
  listAll: () => SessionManager.listAll(bad),
  search: (store) => SessionManager.search("", store),
};

/** Methods that are synchronous on purpose (getters, navigation, builders, internals). */
const synchronous = new Set([
  "constructor",
  "getSessionStore",
  "getSessionDir",
  "isPersisted",
  "load",
  "publish",
  "requireEntry",
  "branch",
  "resetLeaf",
  "getLeafId",
  "getLeafEntry",
  "getEntry",
  "getBranch",
  "getTree",
  "getChildren",
  "getLabel",
  "getEntries",
  "getHeader",
  "getDanglingEntryIds",
  "buildSessionProjection",
  "buildSessionContext",
  "buildContextEntries",
  "getSessionName",
  "getSessionNameState",
  "getSessionSummary",
  "getUsageTotals",
  "getCwd",
  "getSessionId",
  "getSessionFile",
  "isInternal",
]);

async function assertRejectsTyped(name: string, call: () => unknown): Promise<void> {
  let result: unknown;
  try {
    result = call();
  } catch (error) {
    assert.fail(`${name} threw synchronously: ${(error as Error).message}`);
  }
  assert.ok(result instanceof Promise, `${name} returned no promise`);
  await assert.rejects(result as Promise<unknown>, (error: unknown) => {
    assert.ok(error instanceof SessionError, `${name} rejected with ${String(error)}`);
    return true;
  });
}

test("SessionManager: the table covers every method that is not synchronous on purpose", () => {
  const names = new Set<string>();
  for (let p = SessionManager.prototype; p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    for (const name of Object.getOwnPropertyNames(p)) names.add(name);
  }
  const async = [...names].filter((name) => !synchronous.has(name)).sort();
  assert.deepEqual(async, Object.keys(instanceCalls).sort());
  const statics = Object.getOwnPropertyNames(SessionManager)
    .filter((name) => typeof (SessionManager as Any)[name] === "function" && name !== "inMemory");
  assert.deepEqual(statics.sort(), Object.keys(staticCalls).sort());
});

for (const [name, call] of Object.entries(instanceCalls)) {
  test(`SessionManager.${name} with bad arguments rejects, never throws`, async () => {
    const store = new MemorySessionStore();
    const manager = await SessionManager.create(store, "/p");
    await manager.appendMessage({ role: "user", content: "hi", timestamp: 1 });
    const before = manager.getEntries();
    await assertRejectsTyped(name, () => call(manager, store));
    assert.deepEqual(manager.getEntries(), before, "nothing published");
  });
}

for (const [name, call] of Object.entries(staticCalls)) {
  test(`SessionManager.${name} with bad arguments rejects, never throws`, async () => {
    await assertRejectsTyped(name, () => call(new MemorySessionStore()));
  });
}
