/**
 * Search conformance: every store answers `searchSessions` with the same hits (its index
 * when it has one, the scan otherwise), and an indexed store's hits equal the scan's on
 * the same data. Each test works in its own cwd, so shared storage never leaks hits.
 */
import {
  InvalidArgumentError,
  scanSearch,
  type SearchHit,
  type SearchOptions,
  searchSessions,
  type SessionEntry,
  type SessionStore,
} from "../../core.ts";
import { assert, assertEquals, assertRejects } from "./assert.ts";
import type { Register, StoreContext, StoreSubject } from "./harness.ts";
import { withStore } from "./harness.ts";
import { freshId, header } from "./store_suite.ts";

let clock = 0;
/** An entry with a distinct, increasing timestamp. */
function entry(
  id: string,
  parentId: string | null,
  body: Record<string, unknown>,
): SessionEntry {
  const ms = Date.UTC(2026, 2, 1) + 1000 * clock++;
  return { type: "message", id, parentId, timestamp: new Date(ms).toISOString(), ...body } as
    & SessionEntry
    & Record<string, unknown>;
}
const user = (id: string, parent: string | null, content: string) =>
  entry(id, parent, { message: { role: "user", content, timestamp: 0 } });
const assistant = (id: string, parent: string | null, content: unknown[]) =>
  entry(id, parent, { message: { role: "assistant", content, timestamp: 0 } });
const other = (id: string, parent: string | null, fields: Record<string, unknown>) =>
  ({ ...entry(id, parent, {}), ...fields }) as SessionEntry;

/** A session covering every indexed kind of text, with an abandoned branch (b1). */
function corpus(): SessionEntry[] {
  return [
    user("u1", null, "Why does refreshToken expire? 東京の天気は晴れです"),
    assistant("a1", "u1", [
      { type: "thinking", thinking: "The cache layer drops the session cookie" },
      { type: "text", text: "Let me look at the token handler." },
      {
        type: "toolCall",
        id: "t1",
        name: "read_file",
        arguments: { path: "src/auth/quokkaStore.ts", lines: [1, 40] },
      },
    ]),
    entry("r1", "a1", {
      message: {
        role: "toolResult",
        toolCallId: "t1",
        content: [{ type: "text", text: "export function renewAccessGrant() {}" }],
        timestamp: 0,
      },
    }),
    user("b1", "r1", "abandoned idea about the wombat migration"),
    other("bs", "r1", { type: "branch_summary", fromId: "b1", summary: "Tried platypus caching" }),
    other("n1", "bs", { type: "session_info", name: "Auth debugging narwhal" }),
    other("cm", "n1", { type: "custom_message", customType: "note", content: "ocelot reminder" }),
    user("u2", "cm", "fix the bug in the login flow, then fix the logger"),
  ];
}

const WORKFLOW = { runId: "r", stageId: "s", stageName: "search" };
const ids = (hits: SearchHit[]) => hits.map((hit) => `${hit.entryId}:${hit.role}`);

export function searchSuite(register: Register, subject: StoreSubject): void {
  const t = (
    name: string,
    fn: (store: SessionStore, cwd: string, ctx: StoreContext) => Promise<void>,
  ) =>
    register(
      `${subject.name}: search: ${name}`,
      () => withStore(subject, (store, ctx) => fn(store, `/search/${freshId("cwd")}`, ctx)),
    );
  const seed = async (store: SessionStore, cwd: string, entries = corpus()) => {
    const id = freshId("search");
    await store.create(header(id, { cwd }), entries);
    return id;
  };
  const find = (store: SessionStore, cwd: string, query: string, options: SearchOptions = {}) =>
    searchSessions(store, query, { cwd, ...options });

  t(
    "finds every kind of text, CJK, parts of identifiers and tool-call arguments",
    async (store, cwd) => {
      const id = await seed(store, cwd);
      const [hit] = await find(store, cwd, "refreshTok");
      assertEquals([hit.sessionId, hit.entryId, hit.role], [id, "u1", "user"]);
      assertEquals(hit.snippet.slice(...hit.ranges[0]), "refreshTok");
      assertEquals(ids(await find(store, cwd, "天気")), ["u1:user"]);
      assertEquals(ids(await find(store, cwd, "晴")), ["u1:user"], "one CJK character");
      assertEquals(ids(await find(store, cwd, "quokka")), ["a1:toolCall"], "only in arguments");
      assertEquals(ids(await find(store, cwd, "read_file")), ["a1:toolCall"], "tool name");
      assertEquals(ids(await find(store, cwd, "cookie")), ["a1:thinking"]);
      assertEquals(ids(await find(store, cwd, "AccessGrant")), ["r1:toolResult"]);
      assertEquals(ids(await find(store, cwd, "platypus")), ["bs:summary"]);
      assertEquals(ids(await find(store, cwd, "narwhal")), ["n1:summary"], "session name");
      assertEquals(ids(await find(store, cwd, "ocelot")), ["cm:custom"]);
    },
  );

  t("finds entries on an abandoned branch", async (store, cwd) => {
    await seed(store, cwd);
    assertEquals(ids(await find(store, cwd, "wombat")), ["b1:user"]);
  });

  t("phrases, prefixes and exclusions", async (store, cwd) => {
    await seed(store, cwd);
    assertEquals(ids(await find(store, cwd, '"fix the bug"')), ["u2:user"]);
    assertEquals(ids(await find(store, cwd, '"the fix bug"')), []);
    assertEquals(ids(await find(store, cwd, "login bug")), ["u2:user"], "all words, any order");
    assertEquals(ids(await find(store, cwd, "login wombat")), [], "all words in one text");
    assertEquals(ids(await find(store, cwd, "log*")), ["u2:user"]);
    assertEquals(ids(await find(store, cwd, "ogger*")), [], "a prefix starts a word");
    assertEquals(ids(await find(store, cwd, "token")), ["a1:assistant", "u1:user"]);
    assertEquals(ids(await find(store, cwd, "token -handler")), ["u1:user"]);
    assertEquals(ids(await find(store, cwd, 'token -"token handler"')), ["u1:user"]);
    assertEquals(ids(await find(store, cwd, "REFRESHTOKEN")), ["u1:user"], "case-insensitive");
    await assertRejects(() => find(store, cwd, "  "), InvalidArgumentError);
    await assertRejects(() => find(store, cwd, "-only"), InvalidArgumentError);
    await assertRejects(() => find(store, cwd, "x", { limit: 0 }), InvalidArgumentError);
    await assertRejects(
      () => find(store, cwd, "x", { roles: ["nope" as "user"] }),
      InvalidArgumentError,
    );
  });

  t(
    "ranks by score, then newest first; filters by role, session, cwd, internal",
    async (store, cwd) => {
      const older = await seed(store, cwd, [user("o1", null, "a gecko")]);
      const newer = await seed(store, cwd, [
        user("n1", null, "a gecko"),
        user("n2", "n1", "geckos"),
      ]);
      const hits = await find(store, cwd, "gecko");
      assertEquals(hits.map((h) => [h.sessionId, h.entryId]), [[newer, "n1"], [older, "o1"], [
        newer,
        "n2",
      ]]);
      assert(hits[0].score === hits[1].score && hits[1].score > hits[2].score, "whole word first");
      assertEquals((await find(store, cwd, "gecko", { limit: 1 })).length, 1);
      assertEquals((await find(store, cwd, "gecko", { sessionId: older })).length, 1);
      assertEquals((await find(store, cwd, "gecko", { roles: ["assistant"] })).length, 0);
      assertEquals((await find(store, `${cwd}/other`, "gecko")).length, 0);
      const internal = freshId("internal");
      await store.create(header(internal, { cwd, internal: true, workflow: WORKFLOW }), [
        user("i1", null, "gecko"),
      ]);
      assertEquals((await find(store, cwd, "gecko")).length, 3, "internal left out");
      assertEquals((await find(store, cwd, "gecko", { includeInternal: true })).length, 4);
    },
  );

  t("appends are found, deletion and replace remove hits", async (store, cwd) => {
    const id = await seed(store, cwd, [user("x1", null, "first capybara")]);
    await store.append(id, [user("x2", "x1", "second capybara")]);
    assertEquals(ids(await find(store, cwd, "capybara")).sort(), ["x1:user", "x2:user"]);
    await store.replace(header(id, { cwd }), [user("y1", null, "only an axolotl now")]);
    assertEquals(ids(await find(store, cwd, "capybara")), []);
    assertEquals(ids(await find(store, cwd, "axolotl")), ["y1:user"]);
    await store.delete(id);
    assertEquals(ids(await find(store, cwd, "axolotl")), []);
  });

  t("an indexed search returns exactly the scan's hits", async (store, cwd) => {
    await seed(store, cwd);
    await seed(store, cwd, corpus().map((e) => ({ ...e, id: `${e.id}x` }) as SessionEntry));
    for (
      const query of [
        "token",
        "fix",
        "to",
        "東京",
        "の",
        '"fix the"',
        "f*",
        "e -token",
        "a b c",
        "session",
      ]
    ) {
      for (const roles of [undefined, ["user", "toolCall"] as const]) {
        const options = { cwd, roles: roles ? [...roles] : undefined, limit: 7 };
        assertEquals(
          await searchSessions(store, query, options),
          await scanSearch(store, query, options),
          query,
        );
      }
    }
  });

  t(
    "many equal scores: newest first, odd timestamps, exactly the scan's hits",
    async (store, cwd) => {
      // Timestamps shared by many entries, and ones that do not sort by time as text
      // (invalid days read as a later date, an offset, no milliseconds, hour 24, a month 13,
      // before 1970, unparseable, a number).
      const odd = [
        "2026-02-31T00:00:00.000Z",
        "2026-03-04T23:00:00.000-05:00",
        "2026-04-31T00:00:00.000Z",
        "2026-13-01T00:00:00.000Z",
        "1969-12-31T23:59:59.000Z",
        "2026-03-05T10:00:00Z",
        "2026-03-01T24:00:00.000Z",
        "2026-03-01T24:30:00.000Z",
        "yesterday",
        "1772400000000",
      ];
      const texts = ["gnu here", "the gnus", "agnu", "gnu gnu gnu", "a gnu and a yak"];
      for (let s = 0; s < 3; s++) {
        const entries: SessionEntry[] = [];
        for (let i = 0; i < 60; i++) {
          const id = `g${s}_${i}`;
          const ms = Date.UTC(2026, 2, 1 + (i % 7), i % 3) + (i % 5 === 0 ? 0 : s);
          const timestamp = i % 11 === 3 ? odd[(i + s) % odd.length] : new Date(ms).toISOString();
          const body = user(id, entries.at(-1)?.id ?? null, texts[(i + s) % texts.length]);
          entries.push({ ...body, timestamp } as SessionEntry);
        }
        await seed(store, cwd, entries);
      }
      for (const query of ["gnu", "gnu*", "gnu yak", "gnu -yak", "gn"]) {
        for (const limit of [1, 5, 17, 40, 60, 80, 200]) {
          const options = { cwd, limit };
          const hits = await searchSessions(store, query, options);
          assertEquals(hits, await scanSearch(store, query, options), `${query} ${limit}`);
          assert(hits.length > 0, query);
        }
      }
    },
  );

  t("a session listings skip as damaged is left out of searches", async (store, cwd, ctx) => {
    if (!ctx.damage) return; // this subject cannot damage its storage
    const good = await seed(store, cwd, [user("g1", null, "a damaged dingo")]);
    const bad = await seed(store, cwd, [user("b1", null, "a damaged dingo")]);
    await ctx.damage(bad);
    const hits = await find(store, cwd, "dingo");
    assertEquals(hits.map((hit) => hit.sessionId), [good]);
    assertEquals(hits, await scanSearch(store, "dingo", { cwd }));
  });

  t("an aborted search rejects with the signal's reason", async (store, cwd) => {
    await seed(store, cwd);
    const controller = new AbortController();
    controller.abort(new DOMException("stop", "AbortError"));
    const error = await assertRejects(
      () => find(store, cwd, "token", { signal: controller.signal }),
      DOMException,
    );
    assertEquals(error.name, "AbortError");
  });
}
