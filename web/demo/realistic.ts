/**
 * The flagship demo session: a token-refresh race fixed on one branch with a shared promise
 * and on another with a mutex; a branch summary, labels, an omitted failed attempt and an
 * elided tool result (context edits), a model switch, a screenshot, usage and a name and
 * summary.
 *
 * @module
 */
import { assistant, call, DemoSession, result, screenshotPng, text, usage } from "./builder.ts";

const SESSION_TS = `import { refreshToken } from "./oauth.ts";

export class Session {
  #token: Token;
  constructor(token: Token) {
    this.#token = token;
  }

  async accessToken(): Promise<string> {
    if (this.#token.expiresAt - Date.now() < 30_000) {
      // BUG: two callers arriving together both refresh
      this.#token = await refreshToken(this.#token.refresh);
    }
    return this.#token.access;
  }
}
`;

// ------------------------------------------------------------------ 01: realistic session

/** A realistic v4 session: branches, labels, context edits, a screenshot, usage. */
export async function realistic(): Promise<string> {
  const s = new DemoSession(
    {
      type: "session",
      version: 4,
      id: "4f7c2a9e-1b3d-4e8f-9a6b-2c5d7e9f1a3b",
      createdAt: "2026-07-13T09:00:00.000Z",
      cwd: "/home/dev/acme-api",
    },
    "a1",
    "2026-07-13T09:00:00.000Z",
  );
  let p = s.add(null, "model_change", { provider: "anthropic", modelId: "claude-sonnet-4-5" }, 1);
  p = s.add(p, "thinking_level_change", { thinkingLevel: "medium" }, 1);
  p = s.add(p, "context_window_change", { contextWindow: 200000 }, 1);
  p = s.msg(p, {
    role: "system",
    content:
      "You are Atomic, a coding agent. Work in small verified steps; run the tests before you say something works.",
    toolsAdded: [{ name: "read" }, { name: "bash" }, { name: "edit" }],
  }, 1);
  const u1 = s.msg(p, {
    role: "user",
    content: [
      text(
        "Token refresh in src/auth/session.ts races when two requests expire together: we see bursts of 401s (screenshot of the error rate below). Can you fix it?",
      ),
      { type: "image", mimeType: "image/png", data: await screenshotPng() },
    ],
  }, 20);
  const a1 = s.msg(
    u1,
    assistant(
      [
        {
          type: "thinking",
          thinking:
            "Two concurrent callers both see the token as expiring and both call refreshToken. The second refresh invalidates the first refresh token. I should look at the file first.",
        },
        text("Let me look at the current implementation."),
        call("toolu_01", "read", { path: "src/auth/session.ts" }),
      ],
      usage(3120, 96, 0, 2900),
      "toolUse",
    ),
  );
  const t1 = s.msg(a1, result("toolu_01", "read", SESSION_TS));
  const a2 = s.msg(
    t1,
    assistant(
      [
        text(
          "Confirmed: `accessToken()` has no in-flight guard, so concurrent callers refresh twice and the provider rotates the refresh token under the first caller. Let me run the existing tests first.",
        ),
        call("toolu_02", "bash", { command: "npm test -- src/auth" }),
      ],
      usage(410, 88, 3020, 0),
      "toolUse",
    ),
  );
  const t2 = s.msg(
    a2,
    result(
      "toolu_02",
      "bash",
      "> acme-api@2.3.0 test\n> vitest run src/auth\n\n ✓ src/auth/oauth.test.ts (6)\n ✓ src/auth/session.test.ts (7)\n\n Test Files  2 passed (2)\n      Tests  13 passed (13)\n",
    ),
  );
  const a3 = s.msg(
    t2,
    assistant(
      [
        text(
          "Tests pass today, so the race is untested. I'll share one in-flight refresh between callers.",
        ),
        call("toolu_03", "edit", {
          path: "src/auth/session.ts",
          oldText: "      this.#token = await refreshToken(this.#token.refresh);",
          newText:
            "      this.#refreshing ??= refreshToken(this.#token.refresh).finally(() => (this.#refreshing = undefined));\n      this.#token = await this.#refreshing;",
        }),
      ],
      usage(380, 240, 3400, 0),
      "toolUse",
    ),
  );
  const t3 = s.msg(a3, result("toolu_03", "edit", "Applied 1 edit to src/auth/session.ts"));
  const a4 = s.msg(
    t3,
    assistant([
      text(
        "Done: concurrent callers now await the same refresh promise, so the refresh token is rotated once. The field resets when the refresh settles, including on failure.",
      ),
    ], usage(300, 120, 3700, 0)),
  );
  s.add(a4, "label", { targetId: u1, label: "bug report" }, 2);
  // Branch A: a regression test with fake timers.
  let b = s.msg(
    a4,
    { role: "user", content: "Add a regression test with two concurrent callers." },
    40,
  );
  const a5 = s.msg(
    b,
    assistant(
      [
        call("toolu_05", "edit", {
          path: "src/auth/session.test.ts",
          oldText: "});\n",
          newText:
            '  it("refreshes once for concurrent callers", async () => { /* ... */ });\n});\n',
        }),
      ],
      usage(520, 310, 3900, 0),
      "toolUse",
    ),
  );
  b = s.msg(a5, result("toolu_05", "edit", "Applied 1 edit to src/auth/session.test.ts"));
  const a6 = s.msg(
    b,
    assistant(
      [call("toolu_06", "bash", { command: "npm test -- src/auth" })],
      usage(210, 40, 4300, 0),
      "toolUse",
    ),
  );
  b = s.msg(
    a6,
    result(
      "toolu_06",
      "bash",
      " ✓ src/auth/oauth.test.ts (6)\n ✓ src/auth/session.test.ts (8)\n\n      Tests  14 passed (14)\n",
    ),
  );
  const a7 = s.msg(
    b,
    assistant(
      [text("Added `refreshes once for concurrent callers`; all 14 tests pass.")],
      usage(190, 60, 4400, 0),
    ),
  );
  s.add(a7, "label", { targetId: a7, label: "test added" }, 1);
  // Branch B: back to a4, with a summary of the abandoned branch, then a different approach.
  let c = s.add(a4, "branch_summary", {
    fromId: a7,
    summary:
      "Explored a fake-timer regression test for concurrent refresh; it passed but the user preferred a mutex-based design.",
    details: { readFiles: ["src/auth/session.ts"], modifiedFiles: ["src/auth/session.test.ts"] },
    usage: usage(2100, 90),
  }, 60);
  c = s.msg(c, {
    role: "user",
    content:
      "Actually, use a small mutex instead of the shared promise; we have one in src/lib/mutex.ts.",
  }, 15);
  const failed = s.msg(
    c,
    assistant([], usage(1800, 0), "error", { errorMessage: "529 overloaded_error: Overloaded" }),
  );
  c = s.add(failed, "context_edit", { targetId: failed, replacement: null }, 1);
  c = s.add(c, "model_change", { provider: "anthropic", modelId: "claude-opus-4-1" }, 1);
  const a9 = s.msg(c, {
    ...assistant(
      [
        text("Switching to the existing mutex."),
        call("toolu_09", "edit", {
          path: "src/auth/session.ts",
          oldText: "this.#refreshing ??=",
          newText: "await this.#mutex.run(async () => {",
        }),
      ],
      usage(4100, 180, 0, 0),
      "toolUse",
    ),
    provider: "anthropic",
    model: "claude-opus-4-1",
  });
  c = s.msg(a9, result("toolu_09", "edit", "Applied 1 edit to src/auth/session.ts"));
  c = s.add(c, "context_edit", {
    targetId: t1,
    replacement: {
      content: "[src/auth/session.ts, 17 lines: read earlier; elided to save context]",
    },
  }, 1);
  const a10 = s.msg(c, {
    ...assistant([
      text(
        "Now `accessToken()` takes the mutex, re-checks expiry inside it, and refreshes at most once. Existing tests still pass.",
      ),
    ], usage(4300, 95, 0, 0)),
    provider: "anthropic",
    model: "claude-opus-4-1",
  });
  c = s.add(a10, "label", { targetId: a10, label: "mutex version" }, 1);
  c = s.add(c, "session_info", { name: "Fix token refresh race" }, 1);
  s.add(c, "session_summary", {
    summary: "Fixed concurrent token refresh in the auth session with a mutex",
    summarizedThroughId: a10,
    usage: { input: 900, output: 18 },
  }, 2);
  return s.text();
}
