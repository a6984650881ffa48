/**
 * Inputs for the differential validation test: every record of every session file in the
 * repository, one hand-written record of each entry type and message role with every
 * optional field filled in (so mutations reach every field), and a seeded mutator that
 * drops, replaces and adds fields anywhere in a record, with odd values and with parts of
 * other records.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { Rng } from "../../bench/gen/text.ts";
import { repoRoot } from "./fixtures.ts";

type Obj = Record<PropertyKey, unknown>;

/** Every JSON record (header or entry) of every `.jsonl` under fixtures/ and web/demo/. */
export function sessionFileRecords(): { headers: Obj[]; entries: Obj[]; files: number } {
  const headers: Obj[] = [], entries: Obj[] = [];
  let files = 0;
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith(".jsonl")) {
        files++;
        for (const line of readFileSync(path, "utf8").split("\n")) {
          let value: unknown;
          try {
            value = JSON.parse(line);
          } catch {
            continue; // torn and invalid fixture lines are not records
          }
          if (value === null || typeof value !== "object") continue;
          ((value as Obj).type === "session" ? headers : entries).push(value as Obj);
        }
      }
    }
  };
  walk(join(repoRoot, "fixtures"));
  walk(join(repoRoot, "web", "demo"));
  return { headers, entries, files };
}

const base = (type: string, id: string) => ({
  type,
  id,
  parentId: "p0",
  timestamp: "2026-01-01T00:00:00.000Z",
});
const usage = {
  input: 1,
  output: 2,
  cacheRead: 3,
  cacheWrite: 4,
  totalTokens: 10,
  cost: { input: 0.1, output: 0.2, cacheRead: 0, cacheWrite: 0, total: 0.3 },
};
const text = { type: "text", text: "hello" };
const image = { type: "image", data: "aGk=", mimeType: "image/png" };
const message = (role: string, fields: Obj) => ({
  ...base("message", `m-${role}`),
  message: { role, ...fields },
});

/** One record of each entry type and message role, every optional field present. */
export const SEEDS: Obj[] = [
  { type: "session", version: 4, id: "s1", createdAt: "t", cwd: "/p", parentSessionId: "s0" },
  message("system", {
    content: [text],
    sections: { base: "You are", extra: null },
    toolsAdded: [{ name: "read" }],
    toolsRemoved: [{ name: "write" }],
    timestamp: 1,
  }),
  message("user", { content: [text, image], timestamp: 2 }),
  message("assistant", {
    content: [text, { type: "thinking", thinking: "hm" }, {
      type: "toolCall",
      id: "c1",
      name: "read",
      arguments: { path: "/x" },
    }],
    api: "a",
    provider: "p",
    model: "m",
    usage,
    stopReason: "toolUse",
    errorMessage: "e",
    timestamp: 3,
  }),
  message("toolResult", {
    toolCallId: "c1",
    toolName: "read",
    content: [text],
    usage,
    nestedCalls: {
      calls: [{ id: "n1", name: "bash", status: "ok", arguments: {}, durationMs: 5, error: null }],
      complete: true,
    },
    isError: false,
    timestamp: 4,
  }),
  message("bashExecution", {
    command: "ls",
    output: "a",
    exitCode: 0,
    cancelled: false,
    truncated: false,
    excludeFromContext: false,
    timestamp: 5,
  }),
  message("custom", { customType: "x", content: "c", display: true, timestamp: 6 }),
  message("branchSummary", { summary: "s", fromId: null, timestamp: 7 }),
  message("compactionSummary", { summary: "s", tokensBefore: 9, timestamp: 8 }),
  { ...base("model_change", "e1"), provider: "p", modelId: "m" },
  { ...base("thinking_level_change", "e2"), thinkingLevel: "high" },
  { ...base("context_window_change", "e3"), contextWindow: 200000 },
  { ...base("usage", "e4"), kind: "warm", provider: "p", model: "m", usage },
  {
    ...base("compaction", "e5"),
    summary: "s",
    firstKeptEntryId: "e1",
    tokensBefore: 100,
    details: { strategy: "verbatim-lines" },
    systemMessage: { role: "system", content: "sys", sections: { a: "b" } },
    usage,
    fromHook: false,
  },
  { ...base("context_compaction", "e6") },
  { ...base("context_edit", "e7"), targetId: "e1", replacement: { content: [text] } },
  {
    ...base("branch_summary", "e8"),
    fromId: "e1",
    summary: "s",
    details: [],
    fromHook: true,
    usage,
  },
  { ...base("custom", "e9"), customType: "ext", data: { any: [1] } },
  {
    ...base("custom_message", "e10"),
    customType: "ext",
    content: [image],
    display: false,
    details: 1,
    excludeFromContext: true,
  },
  { ...base("label", "e11"), targetId: "e1", label: "bookmark" },
  { ...base("session_info", "e12"), name: "n" },
  {
    ...base("session_summary", "e13"),
    summary: "s",
    summarizedThroughId: "e1",
    usage: { input: 1, output: 2 },
  },
  { ...base("future_kind", "e14"), anything: true },
];

class Foo {
  x = 1;
}
const nullProto = Object.assign(Object.create(null), { type: "text", text: "t" });

/** Values of every JSON type and then some that only code can build. */
const ODD: unknown[] = [
  null,
  undefined,
  NaN,
  Infinity,
  -Infinity,
  0,
  -0,
  1,
  -1.5,
  1e300,
  -1e300,
  8.64e15,
  8640000000000001,
  -8640000000000001,
  "",
  "x",
  "a\u0000b",
  "\ud800",
  "\u2028",
  "session",
  "message",
  "text",
  "user",
  "toolCall",
  true,
  false,
  [],
  {},
  [{}],
  [null],
  [text],
  [{ type: "zzz" }],
  { type: "text" },
  text,
  image,
  { role: "user", content: "x" },
  { input: 1, output: 2 },
  { content: "x" },
  JSON.parse('{"__proto__": {"x": 1}, "constructor": "c"}'),
  { constructor: {} },
  new Date(0),
  nullProto,
  Object.create(null),
  new Foo(),
  () => 1,
  10n,
  Symbol("s"),
  { [Symbol("k")]: 1 },
  new Map(),
];

/** A copy of a JSON-built value (odd values inserted by mutations are shared, never copied). */
function copy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copy);
  if (value === null || typeof value !== "object") return value;
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  const out: Obj = {};
  for (const key of Object.keys(value)) out[key] = copy((value as Obj)[key]);
  return out;
}

type Slot = [Obj, PropertyKey];

/** Every (container, key) pair inside a value, by nesting level (0: the value's own keys). */
function slots(value: unknown, level = 0, out: Slot[][] = []): Slot[][] {
  if (level === 6 || value === null || typeof value !== "object") return out;
  if (Object.getPrototypeOf(value) !== Object.prototype && !Array.isArray(value)) return out;
  for (const key of Object.keys(value)) {
    (out[level] ??= []).push([value as Obj, Array.isArray(value) ? Number(key) : key]);
    slots((value as Obj)[key], level + 1, out);
  }
  return out;
}

const EXTRA_KEYS = ["type", "role", "id", "content", "text", "usage", "extra", "timestamp"];

/**
 * `count` mutants of the `samples`, seeded: each a copy of one sample with one to three
 * changes anywhere in it (a field or element replaced by an odd value (40%) or by a part of
 * another sample (30%), or dropped (30%); sometimes a field added).
 */
export function* mutants(samples: readonly Obj[], count: number, seed: number): Generator<Obj> {
  const rng = new Rng(seed);
  const parts = samples.flatMap((sample) => slots(sample).flat().map(([obj, key]) => obj[key]));
  for (let n = 0; n < count; n++) {
    const root = copy(rng.pick(samples)) as Obj;
    for (let changes = rng.int(1, 3); changes > 0; changes--) {
      // A level first, then a slot on it: deep fields are as likely to change as top ones.
      const levels = slots(root);
      const [obj, key] = levels.length && rng.chance(0.9)
        ? rng.pick(rng.pick(levels))
        : [root, rng.pick(EXTRA_KEYS)];
      const roll = rng.next();
      const replacement = copy(roll < 0.4 ? rng.pick(ODD) : rng.pick(parts));
      if (roll >= 0.7) {
        if (Array.isArray(obj)) obj.splice(key as number, 1);
        else delete obj[key];
      } else obj[key] = replacement;
    }
    yield root;
  }
}

/**
 * Every single change of every field of `samples`, at any depth: each field or element
 * dropped, and replaced by each odd value in turn. Unlike the random mutants, this misses
 * no field.
 */
export function* singleChanges(samples: readonly Obj[]): Generator<Obj> {
  for (const sample of samples) {
    const count = slots(sample).flat().length;
    for (let i = 0; i < count; i++) {
      for (let variant = -1; variant < ODD.length; variant++) {
        const root = copy(sample) as Obj;
        const [obj, key] = slots(root).flat()[i];
        if (variant >= 0) obj[key] = copy(ODD[variant]);
        else if (Array.isArray(obj)) obj.splice(key as number, 1);
        else delete obj[key];
        yield root;
      }
    }
  }
}
