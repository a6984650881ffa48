/**
 * Sessions for the context-only load tests (tests/unit/context_load.test.ts and the SQLite
 * cases): every parseable fixture, generated sessions (the bench generator, small texts),
 * and hand-made sessions for the tool-pairing cases a context-only load cannot decide.
 * Runtime neutral (bundled for Node too).
 *
 * @module
 */
import { readdirSync, statSync } from "node:fs";
import { parseSessionJsonlSync, type SessionEntry, type SessionHeader } from "../../core.ts";
import { SessionWriter } from "../../bench/gen/session.ts";
import { Rng, TextPools } from "../../bench/gen/text.ts";
import { fixturePath, fixtureText } from "./fixtures.ts";

/** A parsed session to compare projections on. */
export interface TestSession {
  name: string;
  header: SessionHeader;
  entries: SessionEntry[];
}

/** Every fixture file that parses as a session (named by its path under fixtures/). */
export function parseableFixtures(): TestSession[] {
  const found: TestSession[] = [];
  const walk = (relative: string) => {
    for (const name of readdirSync(fixturePath(relative)).sort()) {
      const child = relative ? `${relative}/${name}` : name;
      if (statSync(fixturePath(child)).isDirectory()) walk(child);
      else if (name.endsWith(".jsonl")) {
        try {
          const parsed = parseSessionJsonlSync(fixtureText(child));
          found.push({ name: child, header: parsed.header, entries: parsed.entries });
        } catch {
          // a fixture of a rejected file: nothing to project
        }
      }
    }
  };
  walk("");
  return found;
}

function header(id: string): SessionHeader {
  return { type: "session", version: 4, id, createdAt: "2026-04-01T00:00:00.000Z", cwd: "/p" };
}

/** A seeded generated session: branches, verbatim compactions every ~2,500 entries. */
export function generatedSession(entries: number, seed: number): TestSession {
  const writer = new SessionWriter(new Rng(seed), new TextPools(new Rng(seed + 1)), {
    entries,
    startMs: Date.UTC(2026, 3, 1),
    contentScale: 0.05,
    imageEvery: 0,
  });
  const lines = [JSON.stringify(header(`gen-${entries}`))];
  for (const entry of writer.run()) lines.push(JSON.stringify(entry));
  const parsed = parseSessionJsonlSync(lines.join("\n") + "\n");
  return { name: `generated ${entries}`, header: parsed.header, entries: parsed.entries };
}

let clock = 0;
function entry(type: string, id: string, parentId: string | null, body: object): SessionEntry {
  const timestamp = new Date(Date.UTC(2026, 3, 1) + ++clock * 1000).toISOString();
  return { type, id, parentId, timestamp, ...body } as SessionEntry;
}
const user = (id: string, parent: string | null) =>
  entry("message", id, parent, { message: { role: "user", content: id, timestamp: 1 } });
const call = (id: string, parent: string | null, callId: string, stopReason = "toolUse") =>
  entry("message", id, parent, {
    message: {
      role: "assistant",
      content: [{ type: "toolCall", id: callId, name: "ls", arguments: {} }],
      provider: "p",
      model: `m-${id}`,
      stopReason,
      timestamp: 1,
    },
  });
const result = (id: string, parent: string | null, callId: string) =>
  entry("message", id, parent, {
    message: { role: "toolResult", toolCallId: callId, toolName: "ls", content: [], timestamp: 1 },
  });
const boundary = (id: string, parent: string, firstKept: string) =>
  entry("compaction", id, parent, {
    summary: "s",
    firstKeptEntryId: firstKept,
    tokensBefore: 1,
    details: { strategy: "verbatim-lines" },
  });

/** Sessions whose kept tail does (not) depend on tool calls made before it. */
export function handMadeSessions(): (TestSession & { decidable: boolean })[] {
  return [
    {
      // the tail starts between a call and its result: the result's call is hidden
      name: "kept-tail result answers a hidden call",
      header: header("hidden-call"),
      entries: [
        user("u1", null),
        call("a1", "u1", "c1"),
        user("u2", "a1"),
        result("r1", "u2", "c1"),
        boundary("b1", "r1", "u2"),
        user("u3", "b1"),
      ],
      decidable: false,
    },
    {
      // answered before the tail, answered again inside it: a duplicate only the full path sees
      name: "kept-tail duplicate of a hidden answer",
      header: header("hidden-duplicate"),
      entries: [
        call("a1", null, "c1"),
        result("r1", "a1", "c1"),
        user("u2", "r1"),
        result("r2", "u2", "c1"),
        boundary("b1", "r2", "u2"),
      ],
      decidable: false,
    },
    {
      // no systemMessage checkpoint: every earlier system message replays; settings too
      name: "settings and system prompt replayed from before the kept tail",
      header: header("replayed"),
      entries: [
        entry("message", "s0", null, {
          message: { role: "system", content: "base", sections: { a: "1" }, timestamp: 1 },
        }),
        entry("model_change", "m0", "s0", { provider: "p", modelId: "early" }),
        entry("thinking_level_change", "t0", "m0", { thinkingLevel: "high" }),
        entry("context_window_change", "w0", "t0", { contextWindow: 1000 }),
        entry("message", "s1", "w0", {
          message: { role: "system", content: "more", sections: { b: "2" }, timestamp: 1 },
        }),
        entry("thinking_level_change", "t1", "s1", { thinkingLevel: "low" }),
        user("u1", "t1"),
        boundary("b1", "u1", "u1"),
        user("u2", "b1"),
      ],
      decidable: true,
    },
    {
      name: "kept tail pairs its own calls; the model comes from a hidden assistant",
      header: header("own-calls"),
      entries: [
        call("a0", null, "c0", "error"),
        user("u1", "a0"),
        call("a1", "u1", "c1"),
        result("r1", "a1", "c1"),
        boundary("b1", "r1", "u1"),
        user("u2", "b1"),
      ],
      decidable: true,
    },
  ];
}
