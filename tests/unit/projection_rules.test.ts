/**
 * Explicit per-rule assertions for context building (spec "Context Building", derived
 * context repair), on small inline sessions, independent of the fixture files.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  type AgentMessage,
  buildContextEntries,
  buildSessionContext,
  buildSessionProjection,
  EntryNotFoundError,
  type SessionEntry,
  SessionIndex,
  SessionManager,
} from "../../core.ts";
import { INTERRUPTED_TOOL_RESULT_TEXT } from "../../src/_context_repair.ts";
import { VERBATIM_COMPACTION_PREAMBLE } from "../../src/_transcript.ts";
import { call, image, SessionBuilder, text, thinking } from "../../fixtures/projection/case_kit.ts";

const entriesOf = (b: SessionBuilder) => b.entries as SessionEntry[];
const textOf = (message: AgentMessage | undefined): string => {
  const content = (message as { content?: unknown })?.content;
  if (typeof content === "string") return content;
  return (content as Array<{ type: string; text?: string }>)
    .filter((block) => block.type === "text").map((block) => block.text).join("");
};
const ids = (messages: AgentMessage[], b: SessionBuilder) =>
  messages.map((m) => b.entries.find((e) => e.message === m)?.id ?? `(${m.role})`);

test("no boundary: stored messages pass through by reference, inert entries add nothing", () => {
  const b = new SessionBuilder("s");
  b.user("u1", "hi");
  b.add("label", "l1", { targetId: "u1", label: "x" });
  b.add("custom", "c1", { customType: "state", data: {} });
  b.add("session_info", "n1", { name: "Demo" });
  b.add("future_type", "f1", {});
  b.add("message", "cs", { message: { role: "compactionSummary", summary: "old" } });
  b.assistant("a1", [text("hello")]);
  b.add("custom_message", "cm", { customType: "ext", content: "note", display: true });
  const projection = buildSessionProjection(entriesOf(b), "cm");
  assert.equal(projection.messages.length, 3);
  assert.equal(projection.messages[0], b.msg("u1"), "same object, not a copy");
  assert.equal(projection.messages[1], b.msg("a1"));
  assert.deepEqual(projection.messages[2], {
    role: "custom",
    customType: "ext",
    content: "note",
    display: true,
    timestamp: b.ms("cm"),
  });
  assert.deepEqual(projection.entries.map((e) => e.messages.length), [1, 0, 0, 0, 0, 0, 1, 1]);
  assert.equal(projection.boundary, null);
});

function compacted(firstKept: string | null) {
  const b = new SessionBuilder("s");
  b.user("u1", "OLD QUESTION");
  b.assistant("a1", [text("OLD ANSWER")]);
  b.user("u2", "kept question");
  b.assistant("a2", [thinking("hmm"), text("kept answer"), call("c1", "read", { path: "a.ts" })]);
  b.result("r1", "c1", "read", [text("FULL OUTPUT ".repeat(2000))]);
  b.verbatim("cx", "durable summary", firstKept);
  b.user("u3", "after");
  return b;
}

test("verbatim boundary with a string id: one compaction message, then post-boundary", () => {
  const b = compacted("u2");
  const projection = buildSessionProjection(entriesOf(b), "u3");
  assert.equal(projection.boundary?.id, "cx");
  assert.equal(projection.messages.length, 2);
  const [boundary, after] = projection.messages;
  assert.ok(boundary.role === "custom");
  assert.equal(boundary.customType, "compaction");
  assert.equal(boundary.display, true);
  assert.equal(boundary.details, b.byId.get("cx").details);
  assert.equal(boundary.timestamp, Date.parse(b.byId.get("cx").timestamp));
  assert.equal(
    textOf(boundary),
    VERBATIM_COMPACTION_PREAMBLE + "durable summary\n\n[User]: kept question\n\n" +
      '[Assistant thinking]: hmm\n\n[Assistant]: kept answer\n\n[Assistant tool calls]: read(path="a.ts")' +
      `\n\n[Tool result]: ${"FULL OUTPUT ".repeat(2000)}`,
    "full tool output, never truncated",
  );
  assert.equal(after, b.msg("u3"));
  const tail = projection.entries.filter((e) => e.keptTail);
  assert.deepEqual(tail.map((e) => e.sourceEntry.id), ["u2", "a2", "r1"]);
  assert.ok(tail.every((e) => e.messages.length === 0));
  assert.deepEqual(buildContextEntries(entriesOf(b), "u3").map((e) => e.id), [
    "cx",
    "u2",
    "a2",
    "r1",
    "u3",
  ]);
});

test("null, absent, unknown or off-path firstKeptEntryId: boundary + post only", () => {
  for (const firstKept of [null, undefined, "nosuchid", "u3"]) {
    const b = compacted(firstKept as string | null);
    const projection = buildSessionProjection(entriesOf(b), "u3");
    assert.equal(projection.messages.length, 2, String(firstKept));
    assert.equal(textOf(projection.messages[0]), VERBATIM_COMPACTION_PREAMBLE + "durable summary");
    const all = JSON.stringify(projection.messages);
    assert.ok(!all.includes("OLD") && !all.includes("kept question"), "no older content");
    assert.deepEqual(buildContextEntries(entriesOf(b), "u3").map((e) => e.id), ["cx", "u3"]);
  }
});

test("only the latest verbatim compaction is a boundary; other records are inert", () => {
  const b = new SessionBuilder("s");
  b.user("u1", "one");
  b.verbatim("v1", "first boundary", null);
  b.user("u2", "two");
  b.verbatim("v2", "second boundary", "u2");
  b.add("compaction", "pi", { summary: "pi summary", firstKeptEntryId: "u2", details: {} });
  b.add("context_compaction", "cc", { deletedTargets: [{ kind: "entry", entryId: "u3" }] });
  b.user("u3", "three");
  const projection = buildSessionProjection(entriesOf(b), "u3");
  assert.equal(projection.boundary?.id, "v2");
  assert.equal(projection.messages.length, 2);
  assert.equal(
    textOf(projection.messages[0]),
    `${VERBATIM_COMPACTION_PREAMBLE}second boundary\n\n[User]: two`,
  );
  assert.equal(projection.messages[1], b.msg("u3"));
});

test("context edits: null omits, string becomes one text block, metadata kept, raw untouched", () => {
  const b = new SessionBuilder("s");
  b.user("u1", "hi");
  b.assistant("a1", [text("original")], { stopReason: "stop" });
  b.result("r0", "c0", "x", [text("stray")]); // orphan anyway
  b.edit("e1", "a1", { content: "replaced" });
  b.user("u2", "again");
  b.edit("e2", "u2", null);
  b.edit("e3", "u1", { content: [text("block user")] });
  const before = JSON.stringify(b.entries);
  const projection = buildSessionProjection(entriesOf(b), "e3");
  assert.equal(JSON.stringify(b.entries), before);
  const [u1, a1] = projection.messages;
  assert.equal(projection.messages.length, 2);
  assert.deepEqual(a1, { ...b.msg("a1"), content: [{ type: "text", text: "replaced" }] });
  assert.notEqual(a1, b.msg("a1"));
  assert.deepEqual(b.msg("a1").content, [{ type: "text", text: "original" }]);
  assert.deepEqual(u1, { ...b.msg("u1"), content: [{ type: "text", text: "block user" }] });
  const u2 = projection.entries.find((e) => e.sourceEntry.id === "u2");
  assert.deepEqual(u2?.edited, { editEntryId: "e2", omitted: true });
  assert.equal(u2?.messages.length, 0);
});

test("context edits: latest on the active branch wins, branch-relative, system never edited", () => {
  const b = new SessionBuilder("s");
  b.system("sys", { content: "prompt" });
  b.user("u1", "q");
  b.edit("e1", "u1", { content: "v1" });
  b.edit("eSys", "sys", { content: "hacked" });
  b.edit("eEarly", "u2", null); // before its target: inert
  b.user("u2", "later");
  b.edit("e2", "u1", { content: "v2" });
  b.from("u1").edit("side", "u1", { content: "side" });
  const run = (leaf: string) => textOf(buildSessionProjection(entriesOf(b), leaf).messages[0]);
  assert.equal(run("u1"), "q");
  assert.equal(run("e1"), "v1");
  assert.equal(run("e2"), "v2");
  assert.equal(run("side"), "side");
  const last = buildSessionProjection(entriesOf(b), "e2");
  assert.equal(last.system?.content, "prompt");
  assert.equal(last.messages[1], b.msg("u2"));
  assert.equal(last.entries.find((e) => e.sourceEntry.id === "sys")?.edited, undefined);
});

test("interrupted tool calls: synthetic error result after the assistant's existing results", () => {
  const b = new SessionBuilder("s");
  b.user("u1", "go");
  b.assistant("a1", [call("c1", "read"), call("c2", "bash", { cmd: "rm -rf build" })]);
  b.result("r1", "c1", "read", [text("ok")]);
  b.add("label", "l1", { targetId: "u1", label: "x" });
  b.user("u2", "continue");
  b.assistant("a2", [text("done")]);
  const projection = buildSessionProjection(entriesOf(b), "a2");
  assert.deepEqual(ids(projection.messages, b), ["u1", "a1", "r1", "(toolResult)", "u2", "a2"]);
  const synthetic = projection.messages[3];
  assert.deepEqual(synthetic, {
    role: "toolResult",
    toolCallId: "c2",
    toolName: "bash",
    content: [{ type: "text", text: INTERRUPTED_TOOL_RESULT_TEXT }],
    isError: true,
    timestamp: b.msg("a1").timestamp,
  });
  assert.match(INTERRUPTED_TOOL_RESULT_TEXT, /interrupted/);
  assert.match(INTERRUPTED_TOOL_RESULT_TEXT, /unavailable/);
  assert.doesNotMatch(INTERRUPTED_TOOL_RESULT_TEXT, /no side effects|did not run|not executed/i);
  const derived = projection.entries.find((e) => e.derived === "interrupted-tool-result");
  assert.equal(derived?.sourceEntry.id, "a1");
  assert.equal(projection.entries.indexOf(derived!), 3, "placed after r1, before the label");
  assert.equal(b.entries.length, 6, "nothing appended to the stored entries");
  // A trailing unanswered call at the leaf is repaired too.
  const trailing = buildSessionProjection(entriesOf(b), "a1");
  assert.deepEqual(ids(trailing.messages, b), ["u1", "a1", "(toolResult)", "(toolResult)"]);
});

test("orphaned and duplicate results are dropped and flagged", () => {
  const b = new SessionBuilder("s");
  b.user("u1", "go");
  b.result("r0", "c9", "ls", [text("before any call")]);
  b.assistant("a1", [call("c1", "ls")]);
  b.result("r1", "c1", "ls", [text("first")]);
  b.result("r2", "c1", "ls", [text("second")]);
  b.assistant("a2", [call("c2", "rm")]);
  b.edit("e", "a2", null);
  b.result("r3", "c2", "rm", [text("result of omitted call")]);
  const projection = buildSessionProjection(entriesOf(b), "r3");
  assert.deepEqual(ids(projection.messages, b), ["u1", "a1", "r1"]);
  const flag = (id: string) => projection.entries.find((e) => e.sourceEntry.id === id)?.dropped;
  assert.equal(flag("r0"), "orphan");
  assert.equal(flag("r1"), undefined);
  assert.equal(flag("r2"), "duplicate");
  assert.equal(flag("r3"), "orphan");
});

test("kept tail: a result whose call lies before firstKeptEntryId is kept (anchor bug)", () => {
  const b = new SessionBuilder("s");
  b.user("u1", "go");
  b.assistant("a1", [call("c1", "grep", { pattern: "x" }), call("c1b", "grep")]);
  b.result("r1", "c1", "grep", [text("3 matches")]);
  b.assistant("a2", [text("found")]);
  b.result("r1b", "c1b", "grep", [text("late result of a hidden call")]);
  b.verbatim("cx", "", "r1");
  const projection = buildSessionProjection(entriesOf(b), "cx");
  assert.equal(
    textOf(projection.messages[0]),
    `${VERBATIM_COMPACTION_PREAMBLE}[Tool result]: 3 matches\n\n[Assistant]: found`,
  );
  // c1b was announced by the hidden assistant but not answered before a2: out of reach.
  assert.equal(projection.entries.find((e) => e.sourceEntry.id === "r1b")?.dropped, "orphan");
});

test("a compaction boundary is a pairing barrier: a later result for an earlier call is dropped", () => {
  const b = new SessionBuilder("s");
  b.user("u1", "go");
  b.assistant("a1", [call("c1", "build")]);
  b.verbatim("cx", "", "u1");
  b.result("r1", "c1", "build", [text("built after compaction")]);
  b.user("u2", "next");
  const projection = buildSessionProjection(entriesOf(b), "u2");
  assert.equal(
    textOf(projection.messages[0]),
    `${VERBATIM_COMPACTION_PREAMBLE}[User]: go\n\n[Assistant tool calls]: build()\n\n` +
      `[Tool result]: ${INTERRUPTED_TOOL_RESULT_TEXT}`,
  );
  assert.deepEqual(ids(projection.messages.slice(1), b), ["u2"]);
  assert.equal(projection.entries.find((e) => e.sourceEntry.id === "r1")?.dropped, "orphan");
});

test("edits of bash executions, branch summaries and system messages are inert", () => {
  const b = new SessionBuilder("s");
  b.system("sys", { content: "prompt" });
  b.add("message", "bx", {
    message: { role: "bashExecution", command: "ls", output: "a", exitCode: 0 },
  });
  b.add("message", "bsm", { message: { role: "branchSummary", summary: "stored", fromId: "x" } });
  b.add("branch_summary", "bs", { fromId: "x", summary: "entry" });
  for (const target of ["sys", "bx", "bsm", "bs"]) b.edit(`e-${target}`, target, null);
  const projection = buildSessionProjection(entriesOf(b), "e-bs");
  assert.equal(projection.messages.length, 3);
  assert.equal(projection.messages[0], b.msg("bx"));
  assert.equal(projection.messages[1], b.msg("bsm"));
  assert.equal(projection.system?.content, "prompt");
  assert.ok(projection.entries.every((e) => e.edited === undefined));
});

test("model, thinking level and context window replay over the whole path", () => {
  const b = new SessionBuilder("s");
  assert.deepEqual(buildSessionContext([], undefined), {
    messages: [],
    thinkingLevel: "off",
    model: null,
  });
  b.add("model_change", "m1", { provider: "p1", modelId: "one" });
  b.add("thinking_level_change", "t1", { thinkingLevel: "high" });
  b.add("context_window_change", "w1", { contextWindow: 1000 });
  b.user("u1", "x");
  b.assistant("a1", [text("y")], { provider: "p2", model: "two" });
  b.verbatim("cx", "s", null);
  let projection = buildSessionProjection(entriesOf(b), "cx");
  assert.deepEqual(
    projection.model,
    { provider: "p2", modelId: "two" },
    "assistant after change wins",
  );
  assert.equal(projection.thinkingLevel, "high");
  assert.equal(projection.contextWindow, 1000);
  b.add("model_change", "m2", { provider: "p3", modelId: "three" });
  projection = buildSessionProjection(entriesOf(b), "m2");
  assert.deepEqual(
    projection.model,
    { provider: "p3", modelId: "three" },
    "change after assistant wins",
  );
  assert.equal(buildSessionProjection(entriesOf(b), "m1").contextWindow, undefined);
  assert.equal(buildSessionProjection(entriesOf(b), "m1").thinkingLevel, "off");
});

test("system messages replay into prompt state; a boundary checkpoint replaces earlier state", () => {
  const b = new SessionBuilder("s");
  b.system("s1", {
    content: "A",
    sections: { x: "1", y: "2" },
    toolsAdded: [{ name: "t1" }, { name: "t2" }],
  });
  b.user("u1", "q");
  b.system("s2", { content: [text("B")], sections: { y: null }, toolsRemoved: [{ name: "t1" }] });
  let projection = buildSessionProjection(entriesOf(b), "s2");
  assert.deepEqual(projection.system, {
    content: "A\n\nB",
    sections: { x: "1" },
    tools: [{ name: "t2" }],
  });
  assert.deepEqual(ids(projection.messages, b), ["u1"], "system messages are not model messages");
  b.verbatim("cx", "s", "u1", {
    systemMessage: {
      role: "system",
      content: "C",
      sections: { z: "3" },
      toolsAdded: [{ name: "t9" }],
    },
  });
  b.system("s3", { content: "D" });
  projection = buildSessionProjection(entriesOf(b), "s3");
  assert.deepEqual(projection.system, {
    content: "C\n\nD",
    sections: { z: "3" },
    tools: [{ name: "t9" }],
  });
  assert.equal(buildSessionProjection([], null).system, null);
});

test("kept-tail images stay image blocks on the boundary message", () => {
  const png = image("image/png", "AAAA");
  const b = new SessionBuilder("s");
  b.user("u1", [text("see"), png]);
  b.verbatim("cx", "sum", "u1");
  const [boundary] = buildSessionProjection(entriesOf(b), "cx").messages;
  assert.ok(boundary.role === "custom" && Array.isArray(boundary.content));
  assert.deepEqual(boundary.content, [
    { type: "text", text: `${VERBATIM_COMPACTION_PREAMBLE}sum\n\n[User]: see\n[Image #1]` },
    png,
  ]);
});

test("leaf selection: null is empty, unknown throws EntryNotFoundError, undefined is the last entry in file order", () => {
  const b = new SessionBuilder("s");
  b.user("u1", "root");
  b.user("u2", "child");
  b.from("u1").user("u3", "sibling");
  const entries = entriesOf(b);
  assert.deepEqual(ids(buildSessionProjection(entries, undefined).messages, b), ["u1", "u3"]);
  const empty = buildSessionProjection(entries, null);
  assert.deepEqual([empty.leafId, empty.entries, empty.messages], [null, [], []]);
  assert.deepEqual(buildContextEntries(entries, null), []);
  // The same typed error as SessionManager.branch, from every free builder, with or
  // without a prebuilt index: an empty projection would look like an empty session.
  const index = SessionIndex.build(entries);
  for (const given of [undefined, index]) {
    for (const build of [buildSessionProjection, buildSessionContext, buildContextEntries]) {
      assert.throws(() => build(entries, "nosuch", given), (error: unknown) => {
        assert.ok(error instanceof EntryNotFoundError);
        assert.equal(error.entryId, "nosuch");
        return true;
      });
    }
  }
  const manager = SessionManager.inMemory("/p", {}, entries);
  assert.throws(() => manager.branch("nosuch"), EntryNotFoundError);
  assert.deepEqual(buildSessionProjection([], undefined).entries, []);
});

test("with a prebuilt index the projection never reads the session array, and deep paths project fully", () => {
  const b = new SessionBuilder("s");
  for (let i = 0; i < 40_000; i++) {
    if (i % 2) b.assistant(`a${i}`, [text("y")]);
    else b.user(`u${i}`, "x");
  }
  const index = SessionIndex.build(entriesOf(b));
  // Any access to the entries array would mean work proportional to the session, not the
  // path. Speed itself is measured in bench/, never timed here.
  const untouchable = new Proxy([] as SessionEntry[], {
    get(_target, key) {
      throw new Error(`projection read entries[${String(key)}] despite the index`);
    },
  });
  assert.equal(buildSessionProjection(untouchable, "a39999", index).messages.length, 40_000);
  assert.equal(buildContextEntries(untouchable, "a4999", index).length, 5_000);
  b.from(null).user("short", "fresh root");
  index.add(b.byId.get("short"));
  assert.deepEqual(ids(buildSessionProjection(untouchable, "short", index).messages, b), ["short"]);
});
