/**
 * `mu serve` answers a branch's conversation a page at a time from the session it keeps
 * open (`GET /api/sessions/:id/conversation`), reading only the start of the branch for the
 * first page: each page equals the same slice of the whole branch's conversation
 * (`conversationItems`), on every store and for the v3 format (a full load), and the
 * branch entries parsed for the first page are counted, not timed.
 */
import type { SessionEntry, SessionStore } from "../../core.ts";
import { importSession } from "../../src/import_rule.ts";
import { serializeSessionJsonl } from "../../src/jsonl.ts";
import { SessionIndex } from "../../src/tree.ts";
import { openJsonlFsStore } from "../../stores/jsonl/fs.ts";
import { openSqliteStore } from "../../stores/sqlite/file.ts";
import { createSessionApi } from "../../web/api/routes.ts";
import { CONV_PAGE, conversationItems } from "../../web/conversation/model.ts";
import { type ConversationServer, SessionHandle } from "../../web/worker/session_handle.ts";
import { HttpSessionStore } from "../../stores/http/store.ts";
import { type BranchReader, conversationPrefix } from "../../web/conversation/prefix.ts";
import { assert, assertEquals } from "../conformance/assert.ts";
import { generatedSession } from "../unit/context_sessions.ts";
import { fixtureText } from "../unit/fixtures.ts";
import { removeDir, tempDir } from "../jsonl/subjects.ts";

/** A branch over `path` that counts the entries asked for. */
function countedBranch(path: readonly SessionEntry[]): BranchReader & { asked: () => number } {
  let asked = 0;
  return {
    length: path.length,
    entry: (i) => (asked++, path[i]),
    asked: () => asked,
  };
}

let clock = 0;
function message(id: string, parentId: string | null, message: object): SessionEntry {
  const timestamp = new Date(Date.UTC(2026, 3, 1) + ++clock * 1000).toISOString();
  return { type: "message", id, parentId, timestamp, message } as SessionEntry;
}
const user = (id: string, parent: string | null) =>
  message(id, parent, { role: "user", content: `question ${id}`, timestamp: 1 });
const call = (id: string, parent: string, callId: string) =>
  message(id, parent, {
    role: "assistant",
    content: [{ type: "toolCall", id: callId, name: "ls", arguments: {} }],
    stopReason: "toolUse",
    timestamp: 1,
  });
const result = (id: string, parent: string, callId: string) =>
  message(id, parent, {
    role: "toolResult",
    toolCallId: callId,
    toolName: "ls",
    content: [{ type: "text", text: `result ${id}` }],
    timestamp: 1,
  });

/** A linear branch of `turns` user messages, each followed by a call and its result. */
function linear(turns: number, shape: (turn: number, parent: string) => SessionEntry[]) {
  const path: SessionEntry[] = [];
  let parent: string | null = null;
  for (let turn = 0; turn < turns; turn++) {
    const u = user(`u${turn}`, parent);
    path.push(u, ...shape(turn, u.id));
    parent = path[path.length - 1].id;
  }
  return path;
}

Deno.test("conversation prefix: the first page reads the start of the branch and equals the whole branch's", () => {
  const path = linear(400, (turn, parent) => [
    call(`a${turn}`, parent, `c${turn}`),
    result(`r${turn}`, `a${turn}`, `c${turn}`),
  ]);
  const whole = conversationItems(path);
  const branch = countedBranch(path);
  const first = conversationPrefix(branch, 30);
  assertEquals(first.items, whole.slice(0, 30));
  assertEquals(first.total, null, "the rest of the branch was not read");
  assert(branch.asked() < path.length / 4, `read ${branch.asked()} of ${path.length} entries`);
  // Read to its end, the count is known.
  assertEquals(conversationPrefix(countedBranch(path), whole.length).total, whole.length);
});

Deno.test("conversation prefix: a call answered far on, or a result claimed by a later call, is read up to", () => {
  // The first call's result comes after 200 turns: the first page must carry it.
  const late = linear(
    300,
    (turn, parent) =>
      turn === 0
        ? [call("a0", parent, "late")]
        : turn === 200
        ? [result("r-late", parent, "late")]
        : [],
  );
  const branch = countedBranch(late);
  assertEquals(conversationPrefix(branch, 30).items, conversationItems(late).slice(0, 30));
  assert(branch.asked() > 200, "read up to the answer");

  // A result before the call that claims it is folded into that call, not shown alone.
  const early = linear(
    300,
    (turn, parent) =>
      turn === 1
        ? [result("r-early", parent, "later")]
        : turn === 250
        ? [call("a250", parent, "later")]
        : [],
  );
  assertEquals(
    conversationPrefix(countedBranch(early), 30).items,
    conversationItems(early).slice(0, 30),
  );

  // A call never answered: the whole branch is read, and the count comes with it.
  const unanswered = linear(100, (turn, parent) => turn === 0 ? [call("a0", parent, "never")] : []);
  const answer = conversationPrefix(countedBranch(unanswered), 30);
  assertEquals(answer.items, conversationItems(unanswered).slice(0, 30));
  assertEquals(answer.total, conversationItems(unanswered).length);
});

const kinds: [string, (dir: string) => Promise<SessionStore>][] = [
  ["jsonl", (dir) => openJsonlFsStore(`${dir}/sessions`)],
  ["sqlite", (dir) => openSqliteStore(`${dir}/sessions.db`)],
];

async function conversationPage(
  api: (request: Request) => Promise<Response | undefined>,
  id: string,
  query: Record<string, string>,
) {
  const url = new URL(`http://127.0.0.1/api/sessions/${encodeURIComponent(id)}/conversation`);
  url.search = new URLSearchParams(query).toString();
  const response = (await api(new Request(url)))!;
  return { status: response.status, body: await response.json() };
}

/** Every page of the branch to `leaf` through the API, checked against the whole branch. */
async function checkPages(
  api: (request: Request) => Promise<Response | undefined>,
  id: string,
  entries: SessionEntry[],
  leaf: string | undefined,
) {
  const index = SessionIndex.build(entries, { source: id });
  const whole = conversationItems(index.getPath(leaf ?? entries.at(-1)!.id));
  assert(whole.length > 40, "more than one page");
  for (let offset = 0; offset < whole.length; offset += 25) {
    const query: Record<string, string> = { offset: `${offset}`, limit: "25" };
    if (leaf) query.leaf = leaf;
    const { status, body } = await conversationPage(api, id, query);
    assertEquals(status, 200);
    assertEquals(body.items, whole.slice(offset, offset + 25), `items at ${offset}`);
    assertEquals(body.leafId, leaf ?? entries.at(-1)!.id);
    assert(body.total === null || body.total === whole.length, `total at ${offset}`);
  }
}

for (const [kind, open] of kinds) {
  Deno.test(`mu serve conversation (${kind}): every page equals the whole branch's conversation`, async () => {
    const dir = await tempDir("mu-serve-conversation-");
    const store = await open(dir);
    try {
      const session = generatedSession(1200, 5);
      await importSession(store, serializeSessionJsonl(session.header, session.entries));
      const api = createSessionApi({ store });
      const id = session.header.id;
      await checkPages(api, id, session.entries, undefined);
      // Another branch's leaf: the first entry with two children has one that is not last.
      const index = SessionIndex.build(session.entries, { source: id });
      const fork = session.entries.find((entry) => index.getChildren(entry.id).length > 1);
      assert(fork !== undefined, "the generated session branches");
      let leaf = index.getChildren(fork.id)[0].id;
      while (index.getChildren(leaf).length) leaf = index.getChildren(leaf)[0].id;
      await checkPages(api, id, session.entries, leaf);

      const missing = await conversationPage(api, id, { leaf: "no-such-entry" });
      assertEquals([missing.status, missing.body.error], [404, "EntryNotFoundError"]);
      assertEquals((await conversationPage(api, "no-such-session", {})).status, 404);
      const bad = await conversationPage(api, id, { offset: "-1" });
      assertEquals(bad.status, 400);
    } finally {
      await store.close();
      await removeDir(dir);
    }
  });
}

Deno.test("mu serve conversation: an older-format session (a full load) pages the same way", async () => {
  const dir = await tempDir("mu-serve-conversation-");
  const store = await openJsonlFsStore(dir);
  try {
    await Deno.writeTextFile(`${dir}/old.jsonl`, fixtureText("codec/v3.jsonl"));
    const [row] = await store.list({ includeInternal: true });
    const { entries } = await store.load(row.id);
    const api = createSessionApi({ store });
    const whole = conversationItems(
      SessionIndex.build(entries, { source: row.id }).getPath(entries.at(-1)!.id),
    );
    const { status, body } = await conversationPage(api, row.id, { offset: "0", limit: "1000" });
    assertEquals(status, 200);
    assertEquals(body, { leafId: entries.at(-1)!.id, items: whole, total: whole.length });
  } finally {
    await store.close();
    await removeDir(dir);
  }
});

Deno.test("viewer worker: the first conversation page asked at the open is used once, for its own leaf", async () => {
  const dir = await tempDir("mu-serve-conversation-");
  const store = await openJsonlFsStore(dir);
  try {
    const session = generatedSession(1200, 5);
    await importSession(store, serializeSessionJsonl(session.header, session.entries));
    const api = createSessionApi({ store });
    const id = session.header.id;
    const asked: (string | undefined)[] = [];
    let misname = false; // answer the open's request as if another leaf were the last
    const server: ConversationServer = {
      async serverConversation(sessionId, leafId, offset, limit) {
        asked.push(leafId);
        const query: Record<string, string> = { offset: `${offset}`, limit: `${limit}` };
        if (leafId !== undefined) query.leaf = leafId;
        const { body } = await conversationPage(api, sessionId, query);
        return misname && leafId === undefined ? { ...body, leafId: "elsewhere" } : body;
      },
    };
    const client = new HttpSessionStore({
      baseUrl: "http://127.0.0.1/",
      fetch: async (request) => (await api(request)) ?? new Response(null, { status: 404 }),
    });
    const index = SessionIndex.build(session.entries, { source: id });
    const leaf = session.entries.at(-1)!.id;
    const whole = conversationItems(index.getPath(leaf));

    const handle = await SessionHandle.open(client, id, server);
    assertEquals(asked, [undefined], "the open asks for the default branch's first page");
    const first = await handle.conversation(leaf, 0, CONV_PAGE);
    assertEquals(first.items, whole.slice(0, CONV_PAGE));
    assertEquals(first.partial, true);
    assertEquals(asked, [undefined], "answered by the page asked at the open");
    await handle.conversation(leaf, 0, CONV_PAGE);
    assertEquals(asked, [undefined, leaf], "used once");

    misname = true;
    asked.length = 0;
    const other = await SessionHandle.open(client, id, server);
    assertEquals(
      (await other.conversation(leaf, 0, CONV_PAGE)).items,
      whole.slice(0, CONV_PAGE),
    );
    assertEquals(asked, [undefined, leaf], "a page of another leaf is asked again");
  } finally {
    await store.close();
    await removeDir(dir);
  }
});
