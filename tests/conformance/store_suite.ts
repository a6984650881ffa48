/**
 * Store-level conformance: the SessionStore contract, run against every driver in every
 * runtime it supports. Manager-level behaviour is in `manager_suite.ts`; `mod.ts` here
 * runs both.
 */
import {
  exportSessionJsonl,
  parseSessionJsonlSync,
  type SessionEntry,
  SessionExistsError,
  SessionFormatError,
  type SessionHeader,
  type SessionInfo,
  SessionNotFoundError,
  SessionStorageError,
  type SessionStore,
} from "../../core.ts";
import { assert, assertEquals, assertRejects } from "./assert.ts";
import type { Register, StoreContext, StoreSubject } from "./harness.ts";
import { withStore } from "./harness.ts";

let counter = 0;
/** A unique session id per test, so shared storage never collides. */
export function freshId(prefix = "s"): string {
  return `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`;
}

export function header(id: string, extra: Partial<SessionHeader> = {}): SessionHeader {
  return {
    type: "session",
    version: 4,
    id,
    createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, counter++)).toISOString(),
    cwd: "/work/project",
    ...extra,
  };
}

let entryCounter = 0;
export function userEntry(text: string, parentId: string | null, id?: string): SessionEntry {
  const n = entryCounter++;
  return {
    type: "message",
    id: id ?? (0x10000000 + n).toString(16),
    parentId,
    timestamp: new Date(Date.UTC(2026, 0, 2, 0, 0, 0, n)).toISOString(),
    message: { role: "user", content: text, timestamp: Date.UTC(2026, 0, 2, 0, 0, 0, n) },
  };
}

export function assistantEntry(text: string, parentId: string | null): SessionEntry {
  const n = entryCounter++;
  return {
    type: "message",
    id: (0x20000000 + n).toString(16),
    parentId,
    timestamp: new Date(Date.UTC(2026, 0, 2, 0, 0, 0, n)).toISOString(),
    message: {
      role: "assistant",
      content: [{ type: "text", text }],
      provider: "anthropic",
      model: "claude-test",
      stopReason: "stop",
      usage: {
        input: 10,
        output: 5,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 15,
        cost: { total: 0.001 },
      },
      timestamp: Date.UTC(2026, 0, 2, 0, 0, 0, n),
    },
  };
}

/** A format-4 file with unusual but valid JSON spelling, to prove raw text is kept. */
export function oddlySpelledSession(id: string): string {
  return [
    `{"type":"session","version":4,"id":"${id}","createdAt":"2026-02-01T00:00:00.000Z","cwd":"/odd", "future":{"b":1,"a":2}}`,
    `{"type":"message","id":"e0000001","parentId":null,"timestamp":"2026-02-01T00:00:01.000Z","message":{"role":"user","content":"caf\\u00e9 \u2028 \\ud800 \u{1F600}","timestamp":1.0e3}}`,
    `{ "type" : "custom", "id":"e0000002","parentId":"e0000001","timestamp":"2026-02-01T00:00:02.000Z","customType":"x","data":{"z":1,"a":[1,2,3]},"zz":"kept"}`,
  ].join("\n") + "\n";
}

export function storeSuite(register: Register, subject: StoreSubject): void {
  const t = (
    name: string,
    fn: (store: SessionStore, ctx: StoreContext) => Promise<void>,
  ) => register(`${subject.name}: store: ${name}`, () => withStore(subject, fn));

  t("create then load returns the header and entries, unknown fields kept", async (store) => {
    const id = freshId();
    const h = header(id, { parentSessionId: "parent-1" } as Partial<SessionHeader>);
    (h as Record<string, unknown>).futureField = { nested: [1, "two"] };
    const e1 = userEntry("hello", null);
    const e2 = { ...assistantEntry("hi", e1.id), extraField: true } as SessionEntry;
    await store.create(h, [e1, e2]);
    const loaded = await store.load(id);
    assertEquals(loaded.header, h);
    assertEquals(loaded.entries, [e1, e2]);
    assertEquals(loaded.upgraded, false);
    assertEquals(loaded.sourceVersion, 4);
    assert(await store.has(id), "has() after create");
  });

  t("creating an existing id raises SessionExistsError and keeps the original", async (store) => {
    const id = freshId();
    const first = userEntry("original", null);
    await store.create(header(id), [first]);
    await assertRejects(
      () => store.create(header(id), [userEntry("impostor", null)]),
      SessionExistsError,
    );
    assertEquals((await store.load(id)).entries, [first]);
  });

  t("unknown ids raise SessionNotFoundError and create nothing", async (store) => {
    const id = freshId("missing");
    await assertRejects(() => store.load(id), SessionNotFoundError);
    await assertRejects(() => store.append(id, [userEntry("x", null)]), SessionNotFoundError);
    assertEquals(await store.has(id), false);
    assertEquals((await store.list()).some((row) => row.id === id), false);
  });

  t("appends keep commit order across calls", async (store) => {
    const id = freshId();
    await store.create(header(id));
    const entries: SessionEntry[] = [];
    let parent: string | null = null;
    for (let i = 0; i < 25; i++) {
      const entry: SessionEntry = i % 2
        ? assistantEntry(`a${i}`, parent)
        : userEntry(`u${i}`, parent);
      entries.push(entry);
      parent = entry.id;
    }
    await store.append(id, entries.slice(0, 1));
    await store.append(id, entries.slice(1, 10));
    await store.append(id, entries.slice(10));
    assertEquals((await store.load(id)).entries.map((e) => e.id), entries.map((e) => e.id));
  });

  t(
    "a failing append rejects with SessionStorageError and commits none of its entries",
    async (store) => {
      const id = freshId();
      const committed = userEntry("committed", null);
      await store.create(header(id), [committed]);
      const good = assistantEntry("good", committed.id);
      // A BigInt cannot be serialised: the batch must fail as a whole.
      const bad = { ...userEntry("bad", good.id), poison: 1n } as unknown as SessionEntry;
      await assertRejects(() => store.append(id, [good, bad]), SessionStorageError);
      assertEquals((await store.load(id)).entries, [committed]);
      const retry = assistantEntry("retry", committed.id);
      await store.append(id, [retry]);
      assertEquals((await store.load(id)).entries, [committed, retry]);
    },
  );

  t(
    "a value JSON cannot store as an object is refused before anything is written",
    async (store) => {
      const id = freshId();
      const committed = userEntry("committed", null);
      await store.create(header(id), [committed]);
      // A toJSON that yields no object would be stored as text no reader can load.
      const hollow = { ...assistantEntry("hollow", committed.id), toJSON: () => undefined };
      const numeric = { ...assistantEntry("numeric", committed.id), toJSON: () => 42 };
      for (const bad of [hollow, numeric] as unknown as SessionEntry[]) {
        await assertRejects(() => store.append(id, [bad]), SessionStorageError);
        await assertRejects(() => store.create(header(freshId()), [bad]), SessionStorageError);
      }
      assertEquals((await store.load(id)).entries, [committed]);
      assertEquals((await store.list()).map((row) => row.messageCount), [1]);
    },
  );

  t("a storage fault during a write rejects with a typed error and loses nothing", async (
    store,
    ctx,
  ) => {
    if (!ctx.failNextWrite) return; // this subject cannot inject a fault
    const id = freshId();
    const [a, b, c] = [userEntry("a", null), assistantEntry("b", null), userEntry("c", null)];
    b.parentId = a.id;
    c.parentId = b.id;
    await store.create(header(id), [a]);
    await ctx.failNextWrite();
    await assertRejects(() => store.append(id, [b, c]), SessionStorageError);
    assertEquals((await store.load(id)).entries, [a]);
    assertEquals((await store.list()).find((row) => row.id === id)?.messageCount, 1);
    await ctx.failNextWrite();
    await assertRejects(
      () => store.updateHeader(header(id, { cwd: "/moved" })),
      SessionStorageError,
    );
    assertEquals((await store.load(id)).header.cwd, "/work/project");
    await store.append(id, [b, c]); // the store still works after the fault
    assertEquals((await store.load(id)).entries, [a, b, c]);
    if (!ctx.reopen) return;
    await store.close();
    const again = await ctx.reopen();
    try {
      assertEquals((await again.load(id)).entries, [a, b, c]);
    } finally {
      await again.close();
    }
  });

  t(
    "a session with damaged stored data is skipped and reported; load raises SessionFormatError",
    async (
      store,
      ctx,
    ) => {
      if (!ctx.damage) return; // this subject cannot damage its storage
      const good = freshId("good");
      const bad = freshId("bad");
      await store.create(header(good), [userEntry("fine", null)]);
      await store.create(header(bad), [userEntry("lost", null)]);
      await ctx.damage(bad);
      const skipped: { path: string; error: Error }[] = [];
      const rows = await store.list({ onSkipped: (s) => skipped.push(s) });
      assertEquals(rows.map((row) => row.id), [good]);
      assertEquals(skipped.length, 1, "the damaged session is reported");
      assert(skipped[0].error instanceof SessionFormatError, `typed: ${skipped[0].error}`);
      const error = await assertRejects(() => store.load(bad), SessionFormatError);
      assert(error.reason.length > 0 && error.line >= 1, `reason and line: ${error.message}`);
      assertEquals((await store.load(good)).entries.length, 1);
    },
  );

  t(
    "entries are copied: mutating objects after append or load changes nothing stored",
    async (store) => {
      const id = freshId();
      const entry = userEntry("stable", null);
      await store.create(header(id), [entry]);
      (entry as { message: { content: string } }).message.content = "mutated";
      const loaded = await store.load(id);
      assertEquals(
        (loaded.entries[0] as { message: { content: string } }).message.content,
        "stable",
      );
      (loaded.entries[0] as { message: { content: string } }).message.content = "mutated again";
      assertEquals(
        ((await store.load(id)).entries[0] as { message: { content: string } }).message.content,
        "stable",
      );
    },
  );

  t("unicode, U+2028 and lone surrogates survive", async (store) => {
    const id = freshId();
    const text = 'naïve — 日本語 \u2028 \u2029 \ud83d\ude00 lone:\ud800 \u0000 "quoted"\n';
    const entry = userEntry(text, null);
    await store.create(header(id), [entry]);
    const loaded = await store.load(id);
    assertEquals((loaded.entries[0] as { message: { content: string } }).message.content, text);
  });

  t("export of an imported format-4 session is byte-identical", async (store) => {
    const id = freshId("odd");
    const text = oddlySpelledSession(id);
    const parsed = parseSessionJsonlSync(text);
    await store.create(parsed.header, parsed.entries);
    assertEquals(await exportSessionJsonl(store, id), text);
    const appended = assistantEntry("later", "e0000002");
    await store.append(id, [appended]);
    assertEquals(await exportSessionJsonl(store, id), text + JSON.stringify(appended) + "\n");
  });

  t("replace swaps header and entries; updateHeader keeps entries", async (store) => {
    const id = freshId();
    const a = userEntry("a", null);
    await store.create(header(id), [a]);
    const b = userEntry("b", null);
    const c = assistantEntry("c", b.id);
    const replaced = header(id, { cwd: "/elsewhere" });
    await store.replace(replaced, [b, c]);
    let loaded = await store.load(id);
    assertEquals(loaded.header, replaced);
    assertEquals(loaded.entries, [b, c]);
    const marked = {
      ...replaced,
      internal: true,
      workflow: { runId: "r", stageId: "s", stageName: "n" },
    };
    await store.updateHeader(marked);
    loaded = await store.load(id);
    assertEquals(loaded.header, marked);
    assertEquals(loaded.entries, [b, c]);
    await assertRejects(() => store.replace(header(freshId("nope")), []), SessionNotFoundError);
  });

  t("list reports name state, summary freshness, counts and first message", async (store) => {
    const id = freshId();
    const u1 = userEntry("first question", null);
    const a1 = assistantEntry("answer", u1.id);
    const named: SessionEntry = {
      type: "session_info",
      id: "i0000001",
      parentId: a1.id,
      timestamp: a1.timestamp,
      name: " Named ",
    };
    const summary: SessionEntry = {
      type: "session_summary",
      id: "i0000002",
      parentId: named.id,
      timestamp: a1.timestamp,
      summary: "A fresh summary",
      summarizedThroughId: a1.id,
    };
    await store.create(header(id), [u1, a1, named, summary]);
    let row = (await store.list()).find((r) => r.id === id)!;
    assert(row, "row listed");
    assertEquals(row.name, "Named");
    assertEquals(row.hasName, true);
    assertEquals(row.summary, "A fresh summary");
    assertEquals(row.messageCount, 2);
    assertEquals(row.firstMessage, "first question");
    assertEquals(row.cwd, "/work/project");
    assertEquals(
      row.modified.getTime(),
      (a1 as { message: { timestamp: number } }).message.timestamp,
    );
    // A newer conversation message makes the summary stale; an empty name clears the title.
    const u2 = userEntry("second", summary.id);
    const cleared: SessionEntry = {
      type: "session_info",
      id: "i0000003",
      parentId: u2.id,
      timestamp: u2.timestamp,
      name: "",
    };
    await store.append(id, [u2, cleared]);
    row = (await store.list()).find((r) => r.id === id)!;
    assertEquals(row.summary, undefined);
    assertEquals(row.name, undefined);
    assertEquals(row.hasName, true);
    assertEquals(row.messageCount, 3);
  });

  t(
    "list filters by cwd, hides classified workflow sessions unless asked, sorts newest first",
    async (store) => {
      const cwd = `/cwd-${freshId()}`;
      const older = freshId("older");
      const newer = freshId("newer");
      const internal = freshId("internal");
      const malformed = freshId("malformed");
      const other = freshId("other");
      const at = (ms: number, parent: string | null) => {
        const e = userEntry(`at ${ms}`, parent);
        (e as { message: { timestamp: number } }).message.timestamp = ms;
        return e;
      };
      await store.create(header(older, { cwd }), [at(1_000_000, null)]);
      await store.create(header(newer, { cwd }), [at(2_000_000, null)]);
      await store.create(
        header(internal, {
          cwd,
          internal: true,
          workflow: { runId: "r", stageId: "s", stageName: "build" },
        }),
        [at(3_000_000, null)],
      );
      await store.create(
        header(malformed, {
          cwd,
          internal: true,
          workflow: { runId: "r", stageId: " ", stageName: "x" },
        }),
        [
          at(500_000, null),
        ],
      );
      await store.create(header(other, { cwd: `${cwd}-other` }), [at(4_000_000, null)]);
      const ids = (rows: SessionInfo[]) => rows.map((row) => row.id);
      assertEquals(ids(await store.list({ cwd })), [newer, older, malformed]);
      const all = await store.list({ cwd, includeInternal: true });
      assertEquals(ids(all), [internal, newer, older, malformed]);
      assertEquals(all[0].internal, true);
      assertEquals(all[0].workflow?.stageName, "build");
      assertEquals(all[3].internal, undefined);
      assert(
        (await store.list()).some((row) => row.id === other),
        "unfiltered list includes other cwd",
      );
    },
  );

  t("list reports progress ending at total/total and honours an AbortSignal", async (store) => {
    for (let i = 0; i < 3; i++) await store.create(header(freshId()), [userEntry("x", null)]);
    const calls: Array<[number, number]> = [];
    await store.list({ onProgress: (loaded, total) => calls.push([loaded, total]) });
    assert(calls.length > 0, "progress called");
    const [loaded, total] = calls[calls.length - 1];
    assertEquals(loaded, total);
    assert(total >= 3, "total counts sessions");
    const controller = new AbortController();
    controller.abort(new Error("stop listing"));
    let rejected = false;
    try {
      await store.list({ signal: controller.signal });
    } catch {
      rejected = true;
    }
    assert(rejected, "aborted listing rejects");
  });

  t("delete removes one session, leaves the others, and ignores unknown ids", async (store) => {
    const keep = freshId("keep");
    const drop = freshId("drop");
    await store.create(header(keep), [userEntry("keep", null)]);
    await store.create(header(drop), [userEntry("drop", null)]);
    await store.delete(drop);
    await store.delete(freshId("never-existed"));
    await assertRejects(() => store.load(drop), SessionNotFoundError);
    assertEquals((await store.load(keep)).entries.length, 1);
    assertEquals((await store.list()).some((row) => row.id === drop), false);
  });

  t("ids that could escape a folder are rejected", async (store) => {
    for (const bad of ["../evil", "a/b", "a\\b", "", "x\u0000y", ".."]) {
      let failed = false;
      try {
        await store.create(header(bad));
      } catch (error) {
        failed = !(error instanceof SessionFormatError) && error instanceof Error;
      }
      assert(failed, `id ${JSON.stringify(bad)} rejected`);
    }
  });

  t("data survives closing and reopening the store", async (store, ctx) => {
    if (!ctx.reopen) return;
    const id = freshId();
    const a = userEntry("persisted", null);
    const b = assistantEntry("reply", a.id);
    await store.create(header(id), [a]);
    await store.append(id, [b]);
    await store.close();
    const again = await ctx.reopen();
    try {
      assertEquals((await again.load(id)).entries, [a, b]);
      assert((await again.list()).some((row) => row.id === id), "listed after reopen");
    } finally {
      await again.close();
    }
  });

  t("a closed store rejects with SessionStorageError", async (store, ctx) => {
    const id = freshId();
    await store.create(header(id));
    await store.close();
    await assertRejects(() => store.load(id), SessionStorageError);
    await assertRejects(() => store.append(id, [userEntry("late", null)]), SessionStorageError);
    if (ctx.reopen) await (await ctx.reopen()).close();
  });
}
