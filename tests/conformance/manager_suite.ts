/**
 * Manager-level conformance: SessionManager behaviour over each store (the manager is
 * store-agnostic, so every driver must give the same results).
 */
import {
  EntryNotFoundError,
  InvalidArgumentError,
  SessionExistsError,
  SessionManager,
  SessionNotFoundError,
  SessionStorageError,
  type SessionStore,
} from "../../core.ts";
import { assert, assertEquals, assertRejects, assertThrows } from "./assert.ts";
import { type Register, type StoreContext, type StoreSubject, withStore } from "./harness.ts";
import { freshId, oddlySpelledSession } from "./store_suite.ts";

const workflow = { runId: "run-1", stageId: "stage-build", stageName: "build" };

function user(text: string, timestamp = Date.now()) {
  return { role: "user" as const, content: text, timestamp };
}

function assistant(
  text: string,
  usage = {
    input: 100,
    output: 20,
    cacheRead: 5,
    cacheWrite: 0,
    totalTokens: 125,
    cost: { total: 0.01 },
  },
) {
  return {
    role: "assistant" as const,
    content: [{ type: "text" as const, text }],
    provider: "anthropic",
    model: "claude-test",
    usage,
    stopReason: "stop",
    timestamp: Date.now(),
  };
}

/** A store wrapper whose next append fails, to check nothing is published. */
function failingOnce(inner: SessionStore): SessionStore & { failNext: () => void } {
  let fail = false;
  return {
    kind: inner.kind,
    directory: inner.directory,
    failNext: () => (fail = true),
    create: (header, entries) => inner.create(header, entries),
    append: (id, entries) => {
      if (!fail) return inner.append(id, entries);
      fail = false;
      return Promise.reject(new SessionStorageError("injected append failure"));
    },
    load: (id) => inner.load(id),
    replace: (header, entries) => inner.replace(header, entries),
    updateHeader: (header) => inner.updateHeader(header),
    list: (options) => inner.list(options),
    delete: (id) => inner.delete(id),
    has: (id) => inner.has(id),
    close: () => inner.close(),
  };
}

export function managerSuite(register: Register, subject: StoreSubject): void {
  const t = (
    name: string,
    fn: (store: SessionStore, ctx: StoreContext) => Promise<void>,
  ) => register(`${subject.name}: manager: ${name}`, () => withStore(subject, fn));

  t(
    "create, append and reopen by id gives the same entries, leaf at the last entry",
    async (store) => {
      const manager = await SessionManager.create(store, "/proj");
      const u = await manager.appendMessage(user("hello"));
      const a = await manager.appendMessage(assistant("hi"));
      assertEquals(manager.getLeafId(), a);
      assertEquals(manager.getEntry(a)?.parentId, u);
      const reopened = await SessionManager.open(store, manager.getSessionId());
      assertEquals(reopened.getEntries(), manager.getEntries());
      assertEquals(reopened.getLeafId(), a);
      assertEquals(reopened.getCwd(), "/proj");
      assertEquals(reopened.buildSessionContext().messages.length, 2);
      await assertRejects(
        () => SessionManager.open(store, freshId("missing")),
        SessionNotFoundError,
      );
    },
  );

  t("a failed append rejects with the typed error and publishes nothing", async (inner) => {
    const store = failingOnce(inner);
    const manager = await SessionManager.create(store, "/proj");
    await manager.appendMessage(user("committed"));
    const before = {
      entries: manager.getEntries(),
      leaf: manager.getLeafId(),
      context: manager.buildSessionContext(),
    };
    store.failNext();
    await assertRejects(() => manager.appendMessage(assistant("lost")), SessionStorageError);
    assertEquals(manager.getEntries(), before.entries);
    assertEquals(manager.getLeafId(), before.leaf);
    assertEquals(manager.buildSessionContext(), before.context);
    // A real store failure (unserialisable field) behaves the same, and the store keeps its data.
    const poisoned = { ...user("poison"), extra: 1n } as unknown as ReturnType<typeof user>;
    await assertRejects(() => manager.appendMessage(poisoned), SessionStorageError);
    assertEquals(manager.getEntries(), before.entries);
    const retry = await manager.appendMessage(assistant("retry"));
    assertEquals(manager.getEntry(retry)?.parentId, before.leaf);
    const reopened = await SessionManager.open(inner, manager.getSessionId());
    assertEquals(reopened.getEntries(), manager.getEntries());
  });

  t("a storage fault fails the append with a typed error; the manager publishes nothing", async (
    store,
    ctx,
  ) => {
    if (!ctx.failNextWrite) return; // this subject cannot inject a fault
    const manager = await SessionManager.create(store, "/proj");
    await manager.appendMessage(user("committed"));
    const before = { entries: manager.getEntries(), leaf: manager.getLeafId() };
    await ctx.failNextWrite();
    await assertRejects(() => manager.appendMessage(assistant("lost")), SessionStorageError);
    assertEquals(manager.getEntries(), before.entries);
    assertEquals(manager.getLeafId(), before.leaf);
    const reopened = await SessionManager.open(store, manager.getSessionId());
    assertEquals(reopened.getEntries(), before.entries, "the store kept what was committed");
    const retry = await manager.appendMessage(assistant("retry"));
    assertEquals(manager.getEntry(retry)?.parentId, before.leaf);
  });

  t("concurrent appends chain in call order", async (store) => {
    const manager = await SessionManager.create(store, "/proj");
    const [a, b, c] = await Promise.all([
      manager.appendMessage(user("1")),
      manager.appendMessage(assistant("2")),
      manager.appendMessage(user("3")),
    ]);
    assertEquals(manager.getBranch().map((e) => e.id), [a, b, c]);
  });

  t(
    "branching: siblings, tree, children, resetLeaf roots, branchWithSummary fromId",
    async (store) => {
      const manager = await SessionManager.create(store, "/proj");
      const u1 = await manager.appendMessage(user("q1"));
      const a1 = await manager.appendMessage(assistant("a1"));
      const u2 = await manager.appendMessage(user("q2"));
      manager.branch(a1);
      const u2b = await manager.appendMessage(user("q2 alternative"));
      assertEquals(manager.getChildren(a1).map((e) => e.id), [u2, u2b]);
      assertEquals(manager.getBranch().map((e) => e.id), [u1, a1, u2b]);
      assertEquals(manager.getBranch(u2).map((e) => e.id), [u1, a1, u2]);
      const summaryId = await manager.branchWithSummary(u1, "tried an alternative");
      const summary = manager.getEntry(summaryId) as { parentId: string; fromId: string };
      assertEquals(summary.parentId, u1);
      assertEquals(summary.fromId, u2b);
      manager.resetLeaf();
      assertEquals(manager.buildSessionContext().messages, []);
      const root2 = await manager.appendMessage(user("fresh root"));
      assertEquals(manager.getEntry(root2)?.parentId, null);
      assertEquals(manager.getTree().length, 2);
      assertEquals(manager.getTree()[0].children[0].children.length, 2);
      assertThrows(() => manager.branch("nope"), EntryNotFoundError);
    },
  );

  t("labels: set, clear, global across branches, persisted", async (store) => {
    const manager = await SessionManager.create(store, "/proj");
    const u1 = await manager.appendMessage(user("q1"));
    await manager.appendLabelChange(u1, "checkpoint");
    assertEquals(manager.getLabel(u1), "checkpoint");
    manager.branch(u1);
    await manager.appendLabelChange(u1, "renamed");
    const reopened = await SessionManager.open(store, manager.getSessionId());
    assertEquals(reopened.getLabel(u1), "renamed");
    assertEquals(reopened.getTree()[0].label, "renamed");
    await reopened.appendLabelChange(u1, undefined);
    assertEquals(reopened.getLabel(u1), undefined);
    await assertRejects(() => reopened.appendLabelChange("00000000", "x"), EntryNotFoundError);
    assertEquals(reopened.buildSessionContext().messages.length, 1, "labels never reach context");
  });

  t("name state: never named, named, cleared; listing agrees", async (store) => {
    const manager = await SessionManager.create(store, "/names");
    assertEquals(manager.getSessionNameState(), { hasName: false });
    await manager.appendSessionInfo("  First  ");
    assertEquals(manager.getSessionName(), "First");
    await manager.appendSessionInfo("");
    assertEquals(manager.getSessionNameState(), { hasName: true });
    assertEquals(manager.getSessionName(), undefined);
    const reopened = await SessionManager.open(store, manager.getSessionId());
    assertEquals(reopened.getSessionNameState(), { hasName: true });
    const [row] = await SessionManager.list("/names", store);
    assertEquals([row.hasName, row.name], [true, undefined]);
  });

  t("session summary is shown only while fresh; a branch summary retires it", async (store) => {
    const manager = await SessionManager.create(store, "/summary");
    await manager.appendMessage(user("fix the auth bug"));
    const a1 = await manager.appendMessage(assistant("done"));
    await manager.appendSessionSummary("  Fixed   the\nauth bug  ", a1, { input: 800, output: 20 });
    assertEquals(manager.getSessionSummary(), "Fixed the auth bug");
    assertEquals((await SessionManager.list("/summary", store))[0].summary, "Fixed the auth bug");
    const tool = await manager.appendMessage({
      role: "toolResult",
      toolCallId: "c1",
      toolName: "bash",
      content: [{ type: "text", text: "ok" }],
      isError: false,
      timestamp: Date.now(),
    });
    assert(tool, "tool result appended");
    assertEquals(manager.getSessionSummary(), "Fixed the auth bug", "tool results do not stale it");
    await manager.branchWithSummary(a1, "abandoned");
    assertEquals(manager.getSessionSummary(), undefined);
    await assertRejects(() => manager.appendSessionSummary("x", "ffffffff"), EntryNotFoundError);
  });

  t("createBranchedSession extracts the path with its labels into a new session", async (store) => {
    const manager = await SessionManager.create(store, "/proj");
    const originalId = manager.getSessionId();
    const u1 = await manager.appendMessage(user("q1"));
    await manager.appendLabelChange(u1, "start");
    const a1 = await manager.appendMessage(assistant("a1"));
    const u2 = await manager.appendMessage(user("q2"));
    manager.branch(a1);
    await manager.appendMessage(user("other branch"));
    await manager.appendLabelChange(a1, "set elsewhere");
    const expected = await SessionManager.open(store, originalId);
    expected.branch(u2);
    const newId = await manager.createBranchedSession(u2);
    assert(newId !== originalId, "new id");
    assertEquals(manager.getHeader().parentSessionId, originalId);
    assertEquals(manager.buildSessionContext().messages, expected.buildSessionContext().messages);
    assertEquals(manager.getLabel(u1), "start");
    assertEquals(manager.getLabel(a1), "set elsewhere");
    const reopened = await SessionManager.open(store, newId);
    assertEquals(reopened.buildSessionContext().messages, expected.buildSessionContext().messages);
    assertEquals(
      (await SessionManager.open(store, originalId)).getEntries().length,
      6,
      "original untouched",
    );
  });

  t("forkTo copies every branch; workflow classification is inherited", async (store) => {
    const manager = await SessionManager.create(store, "/src", { internal: true, workflow });
    await manager.appendMessage(user("q"));
    const fork = await manager.forkTo("/dst");
    assertEquals(fork.getHeader().parentSessionId, manager.getSessionId());
    assertEquals(fork.getCwd(), "/dst");
    assertEquals(fork.getEntries(), manager.getEntries());
    assertEquals(fork.isInternal(), true);
    assertEquals(fork.getHeader().workflow, workflow);
    assertEquals(await SessionManager.list("/dst", store), []);
    assertEquals(
      (await SessionManager.list("/dst", store, undefined, { includeInternal: true })).length,
      1,
    );
  });

  t(
    "workflow markers: pair required, malformed repaired by markSessionInternal, persisted",
    async (store) => {
      await assertRejects(
        () => SessionManager.create(store, "/wf", { internal: true }),
        InvalidArgumentError,
      );
      await assertRejects(
        () => SessionManager.create(store, "/wf", { workflow }),
        InvalidArgumentError,
      );
      const manager = await SessionManager.create(store, "/wf");
      await manager.appendMessage(user("stage work"));
      assertEquals((await SessionManager.list("/wf", store)).length, 1);
      await assertRejects(
        () => manager.markSessionInternal({ runId: "r", stageId: "", stageName: "x" }),
        InvalidArgumentError,
      );
      await manager.markSessionInternal(workflow);
      await manager.markSessionInternal({ runId: "other", stageId: "s", stageName: "n" });
      assertEquals(manager.getHeader().workflow, workflow, "an existing valid marker is kept");
      assertEquals(await SessionManager.list("/wf", store), []);
      const reopened = await SessionManager.open(store, manager.getSessionId());
      assertEquals(reopened.isInternal(), true);
      assertEquals(reopened.getEntries().length, 1);
    },
  );

  t(
    "continueRecent picks the newest regular session, skipping workflow sessions",
    async (store) => {
      const cwd = `/recent-${freshId()}`;
      const created = await SessionManager.continueRecent(store, cwd);
      assertEquals(created.getEntries().length, 0);
      await created.appendMessage(user("older", 1_000_000));
      const newer = await SessionManager.create(store, cwd);
      await newer.appendMessage(user("newer", 2_000_000));
      const internal = await SessionManager.create(store, cwd, { internal: true, workflow });
      await internal.appendMessage(user("internal is newest", 3_000_000));
      assertEquals(
        (await SessionManager.continueRecent(store, cwd)).getSessionId(),
        newer.getSessionId(),
      );
      const withInternal = await SessionManager.continueRecent(store, cwd, {
        includeInternal: true,
      });
      assertEquals(withInternal.getSessionId(), internal.getSessionId());
    },
  );

  t(
    "deleteSession refuses the open session, deletes others, ignores unknown ids",
    async (store) => {
      const keep = await SessionManager.create(store, "/del");
      const other = await SessionManager.create(store, "/del");
      await assertRejects(() => keep.deleteSession(keep.getSessionId()), InvalidArgumentError);
      await keep.deleteSession(other.getSessionId());
      await keep.deleteSession(freshId("unknown"));
      await assertRejects(
        () => SessionManager.open(store, other.getSessionId()),
        SessionNotFoundError,
      );
      assertEquals(
        (await SessionManager.open(store, keep.getSessionId())).getSessionId(),
        keep.getSessionId(),
      );
    },
  );

  t(
    "importFromJsonl keeps the id and the bytes; a second import raises SessionExistsError",
    async (store) => {
      const id = freshId("import");
      const text = oddlySpelledSession(id);
      const manager = await SessionManager.importFromJsonl(
        new TextEncoder().encode(text),
        "/odd",
        store,
      );
      assertEquals(manager.getSessionId(), id);
      if (store.exportJsonl) assertEquals(await store.exportJsonl(id), text);
      await assertRejects(
        () => SessionManager.importFromJsonl(new TextEncoder().encode(text), "/odd", store),
        SessionExistsError,
      );
      assertEquals((await SessionManager.open(store, id)).getEntries().length, 2);
    },
  );

  t("invalid input is refused before anything is written", async (store) => {
    await assertRejects(
      () => SessionManager.create(store, "/x", { id: "../escape" }),
      InvalidArgumentError,
    );
    const manager = await SessionManager.create(store, "/x");
    const u = await manager.appendMessage(user("q"));
    await assertRejects(() => manager.appendCompaction("text", "deadbeef", 10), EntryNotFoundError);
    await assertRejects(
      () =>
        manager.appendMessage({ role: "user", content: 42 } as unknown as ReturnType<typeof user>),
      InvalidArgumentError,
    );
    const system = await manager.appendMessage({
      role: "system",
      content: "You are helpful.",
      timestamp: 1,
    });
    await assertRejects(() => manager.appendContextEdit(system, null), InvalidArgumentError);
    assertEquals(manager.getEntries().map((e) => e.id), [u, system]);
    assertEquals((await SessionManager.open(store, manager.getSessionId())).getEntries().length, 2);
  });

  t("usage totals add assistant, tool-result, usage-entry and summary usage", async (store) => {
    const manager = await SessionManager.create(store, "/usage");
    await manager.appendMessage(user("q"));
    const a = await manager.appendMessage(assistant("a"));
    await manager.appendMessage({
      role: "toolResult",
      toolCallId: "c",
      toolName: "task",
      content: [{ type: "text", text: "ok" }],
      isError: false,
      usage: {
        input: 10,
        output: 1,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 11,
        cost: { total: 0.002 },
      },
      timestamp: Date.now(),
    });
    await manager.appendSessionSummary("did things", a, { input: 7, output: 3 });
    const totals = manager.getUsageTotals();
    assertEquals([totals.input, totals.output, totals.totalTokens], [117, 24, 146]);
    assert(Math.abs(totals.cost - 0.012) < 1e-9, `cost ${totals.cost}`);
  });
}
