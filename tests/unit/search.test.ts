/**
 * The query language, folding, snippets and the streaming scan (runs in Deno and Node).
 * Store behaviour is in the conformance suite (`tests/conformance/search_suite.ts`).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  MemorySessionStore,
  scanSearch,
  type SearchHit,
  type SessionEntry,
  SessionManager,
} from "../../core.ts";
import { parseSearchQuery, searchSnippet } from "../../src/_search_query.ts";
import { searchFields } from "../../src/search_text.ts";
import {
  foldSearchText,
  matchFolded,
  maxSearchScore,
  scoreFolded,
} from "../../src/_search_query.ts";

const terms = (query: string) =>
  parseSearchQuery(query).terms.map((t) => `${t.exclude ? "-" : ""}${t.kind}:${t.text}`);

test("queries parse into words, phrases, prefixes and exclusions", () => {
  assert.deepEqual(terms('Fix "the  BUG" log* -draft -"old code" 東京'), [
    "word:fix",
    "phrase:the bug",
    "prefix:log",
    "-word:draft",
    "-phrase:old code",
    "word:東京",
  ]);
  assert.deepEqual(terms('"unterminated phrase'), ["phrase:unterminated phrase"]);
  assert.deepEqual(terms('a-b "one" * - x**'), ["word:a-b", "word:one", "prefix:x"]);
});

test("matching: words anywhere, phrases across any whitespace, prefixes at word starts", () => {
  const q = (query: string, text: string) =>
    matchFolded(foldSearchText(text).text, parseSearchQuery(query));
  assert.ok(q("refreshTok", "call refreshToken()"));
  assert.ok(q('"line one line"', "line one\n\tline two"));
  assert.equal(q('"one line"', "one-line"), null);
  assert.ok(q("tok*", "a token"));
  assert.equal(q("tok*", "refreshToken"), null);
  assert.ok(q("京*", "東京"), "CJK has no word starts: a prefix may start anywhere");
  assert.equal(q("a -b", "a b"), null);
  assert.ok(q("(a+b)*", "x (a+b)*y"), "regular-expression characters are literal");
  assert.ok(q("x", "x")!.score > q("x", "xy")!.score, "a whole word ranks higher");
});

test("snippets mark matches in original offsets, also when folding changes lengths", () => {
  const text = "İİ café İstanbul";
  const { snippet, ranges } = searchSnippet(text, parseSearchQuery("CAFÉ"));
  assert.deepEqual(ranges.map(([s, e]) => snippet.slice(s, e)), ["café"]);
  const long = `${"word ".repeat(100)}needle\n${"tail ".repeat(100)}`;
  const cut = searchSnippet(long, parseSearchQuery("needle"));
  assert.ok(cut.snippet.startsWith("…") && cut.snippet.endsWith("…"));
  assert.equal(cut.snippet.slice(...cut.ranges[0]), "needle");
  assert.ok(!cut.snippet.includes("\n"));
  const emoji = searchSnippet(`${"😀".repeat(200)}x`, parseSearchQuery("x"));
  assert.ok(
    !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(
      emoji.snippet,
    ),
    "no surrogate pair cut in half",
  );
});

test("searchFields reads every searchable text and nothing else", () => {
  const base = { id: "e", parentId: null, timestamp: "2026-01-01T00:00:00.000Z" };
  const fields = (entry: Record<string, unknown>) =>
    searchFields({ ...base, ...entry } as SessionEntry).map((f) => `${f.role}=${f.text}`);
  assert.deepEqual(
    fields({
      type: "message",
      message: {
        role: "assistant",
        content: [
          { type: "text", text: "a" },
          { type: "thinking", thinking: "t" },
          { type: "text", text: "b" },
          { type: "toolCall", id: "1", name: "bash", arguments: { command: "ls -la", n: 2 } },
        ],
      },
    }),
    ["assistant=a\nb", "thinking=t", "toolCall=bash\ncommand\nls -la\nn\n2"],
  );
  assert.deepEqual(fields({ type: "message", message: { role: "system", content: "p" } }), []);
  assert.deepEqual(
    fields({ type: "message", message: { role: "bashExecution", command: "c", output: "o" } }),
    ["toolResult=c\no"],
  );
  assert.deepEqual(fields({ type: "custom", customType: "x", data: { secret: "s" } }), []);
  assert.deepEqual(fields({ type: "compaction", summary: "sum" }), ["summary=sum"]);
  assert.deepEqual(fields({ type: "message", message: null }), [], "malformed: nothing");
});

test("a cancelled scan stops loading sessions", async () => {
  const store = new MemorySessionStore();
  for (let i = 0; i < 5; i++) {
    const manager = await SessionManager.create(store, "/p");
    await manager.appendMessage({ role: "user", content: `needle ${i}`, timestamp: 0 });
  }
  const controller = new AbortController();
  let loads = 0;
  const load = store.load.bind(store);
  store.load = async (id) => {
    loads++;
    if (loads === 2) controller.abort(new Error("stopped"));
    return await load(id);
  };
  await assert.rejects(
    () => scanSearch(store, "needle", { signal: controller.signal }),
    /stopped/,
  );
  assert.equal(loads, 2, "no session loaded after the abort");
  const hits: SearchHit[] = await SessionManager.search("needle", store, { cwd: "/p" });
  assert.equal(hits.length, 5);
});

test("a term scores by its best match only: inside a word 1, word start 2, whole word 3", () => {
  const score = (query: string, text: string) =>
    scoreFolded(foldSearchText(text).text, parseSearchQuery(query));
  assert.equal(score("gnu", "agnus"), 1);
  assert.equal(score("gnu", "agnus gnus"), 2);
  assert.equal(score("gnu", "agnus gnus gnu"), 3);
  assert.equal(
    score("gnu", "gnu"),
    score("gnu", "gnu gnu gnu gnu gnu gnu"),
    "occurrences do not count",
  );
  assert.equal(score("gnu*", "gnus"), 3, "a prefix always starts a word");
  assert.equal(score("東京", "東京都"), 2);
  assert.equal(score('"fix the" bug -yak', "fix the bug"), 6);
  assert.equal(maxSearchScore(parseSearchQuery('"fix the" bug -yak')), 6);
});

test("the score-only matcher ranks exactly as the full match (it only stops sooner)", () => {
  const texts = [
    "the theme: the other the. the! the; the_x the",
    `${"token ".repeat(40)}refreshToken tokens`,
    "refreshtoken refreshtokens xrefreshtoken",
    "東京 東京都 京都 東",
    "log logger catalog log-in log_file",
    "one line\none\tline one-line",
    "",
  ];
  const queries = [
    "the",
    "tok*",
    "token",
    "refreshtok",
    "東京",
    "log*",
    '"one line"',
    "the -x",
    "a",
  ];
  for (const text of texts) {
    for (const query of queries) {
      const parsed = parseSearchQuery(query);
      const folded = foldSearchText(text).text;
      assert.equal(scoreFolded(folded, parsed), matchFolded(folded, parsed)?.score ?? null);
    }
  }
});
