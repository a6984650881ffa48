/**
 * Writes the viewer's demo sessions (`web/demo/*.jsonl`): a realistic v4 session with
 * branches, labels, context edits, a screenshot and usage; a verbatim compaction boundary;
 * an interrupted tool call; a pi v1 file; and an internal workflow stage. Deterministic:
 * run it again and the files are identical.
 *
 * Usage: `deno run --allow-write web/demo/generate.ts`
 *
 * @module
 */

type Json = Record<string, unknown>;

const OUT = new URL("./", import.meta.url).pathname;

// ------------------------------------------------------------------ a small PNG

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set(new TextEncoder().encode(type), 4);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

async function deflate(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
    new CompressionStream("deflate"),
  );
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** A 240×120 "failing requests" chart screenshot, as base64 PNG. */
async function screenshotPng(): Promise<string> {
  const w = 240, h = 120;
  const raw = new Uint8Array((w * 3 + 1) * h);
  const bars = [22, 30, 26, 41, 38, 64, 90, 71, 35, 28, 24, 20];
  for (let y = 0; y < h; y++) {
    raw[y * (w * 3 + 1)] = 0;
    for (let x = 0; x < w; x++) {
      const i = y * (w * 3 + 1) + 1 + x * 3;
      let rgb = [248, 249, 251];
      if (y % 30 === 0) rgb = [225, 228, 234];
      const bar = Math.floor((x - 6) / 19);
      const inBar = x >= 6 && bar < bars.length && (x - 6) % 19 < 14;
      if (inBar && h - 8 - y < bars[bar]) rgb = bars[bar] > 60 ? [224, 49, 49] : [76, 110, 245];
      if (y >= h - 8) rgb = [200, 205, 214];
      raw.set(rgb, i);
    }
  }
  const header = new Uint8Array(13);
  const hv = new DataView(header.buffer);
  hv.setUint32(0, w);
  hv.setUint32(4, h);
  header.set([8, 2, 0, 0, 0], 8);
  const parts = [
    new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk("IHDR", header),
    chunk("IDAT", await deflate(raw)),
    chunk("IEND", new Uint8Array(0)),
  ];
  const png = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    png.set(p, at);
    at += p.length;
  }
  let binary = "";
  for (const b of png) binary += String.fromCharCode(b);
  return btoa(binary);
}

// ------------------------------------------------------------------ builders

class Session {
  readonly lines: Json[] = [];
  #clock: number;
  #n = 0;
  constructor(header: Json, readonly prefix: string, start: string) {
    this.lines.push(header);
    this.#clock = Date.parse(start);
  }
  id(): string {
    return `${this.prefix}${(++this.#n).toString(16).padStart(8 - this.prefix.length, "0")}`;
  }
  tick(seconds = 7): { iso: string; ms: number } {
    this.#clock += seconds * 1000;
    return { iso: new Date(this.#clock).toISOString(), ms: this.#clock };
  }
  add(parentId: string | null, type: string, fields: Json, seconds?: number): string {
    const id = this.id();
    const t = this.tick(seconds);
    this.lines.push({ type, id, parentId, timestamp: t.iso, ...fields });
    return id;
  }
  msg(parentId: string | null, message: Json, seconds?: number): string {
    const id = this.id();
    const t = this.tick(seconds);
    this.lines.push({
      type: "message",
      id,
      parentId,
      timestamp: t.iso,
      message: { ...message, timestamp: t.ms },
    });
    return id;
  }
  text(): string {
    return this.lines.map((l) => JSON.stringify(l)).join("\n") + "\n";
  }
}

function usage(input: number, output: number, cacheRead = 0, cacheWrite = 0): Json {
  const cost = {
    input: input * 3e-6,
    output: output * 15e-6,
    cacheRead: cacheRead * 0.3e-6,
    cacheWrite: cacheWrite * 3.75e-6,
    total: 0,
  };
  cost.total = Number((cost.input + cost.output + cost.cacheRead + cost.cacheWrite).toFixed(6));
  for (const k of ["input", "output", "cacheRead", "cacheWrite"] as const) {
    cost[k] = Number(cost[k].toFixed(6));
  }
  return {
    input,
    output,
    cacheRead,
    cacheWrite,
    totalTokens: input + output + cacheRead + cacheWrite,
    cost,
  };
}

const SONNET = { api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5" };

function assistant(content: Json[], u: Json, stopReason = "stop", extra: Json = {}): Json {
  return { role: "assistant", content, ...SONNET, usage: u, stopReason, ...extra };
}
const text = (t: string) => ({ type: "text", text: t });
const call = (id: string, name: string, args: Json) => ({
  type: "toolCall",
  id,
  name,
  arguments: args,
});
const result = (toolCallId: string, toolName: string, t: string, isError = false) => ({
  role: "toolResult",
  toolCallId,
  toolName,
  content: [text(t)],
  isError,
});

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

async function realistic(): Promise<string> {
  const s = new Session(
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

// ------------------------------------------------------------------ 02: verbatim boundary

function boundary(): string {
  const s = new Session(
    {
      type: "session",
      version: 4,
      id: "9d2e4b61-5c7a-4f08-b3e1-6a8f0c2d4e57",
      createdAt: "2026-07-14T13:00:00.000Z",
      cwd: "/home/dev/acme-billing",
    },
    "b2",
    "2026-07-14T13:00:00.000Z",
  );
  let p = s.add(null, "model_change", { provider: "anthropic", modelId: "claude-sonnet-4-5" }, 1);
  p = s.msg(p, {
    role: "user",
    content: "Migrate the billing webhooks from Stripe API 2023-10 to 2025-06.",
  });
  p = s.msg(
    p,
    assistant(
      [
        text("I'll inventory the webhook handlers first."),
        call("toolu_b1", "bash", { command: "rg -l 'stripe.webhooks' src" }),
      ],
      usage(2400, 70, 0, 2300),
      "toolUse",
    ),
  );
  p = s.msg(
    p,
    result(
      "toolu_b1",
      "bash",
      "src/billing/webhooks.ts\nsrc/billing/invoices.ts\nsrc/billing/refunds.ts",
    ),
  );
  p = s.msg(
    p,
    assistant([
      text(
        "Three handlers. The 2025-06 API renames `invoice.paid` payload fields; updating invoices.ts first.",
      ),
    ], usage(300, 110, 2400, 0)),
  );
  p = s.add(p, "compaction", {
    summary: "User asked about Stripe; the assistant listed handlers.",
    firstKeptEntryId: p,
    tokensBefore: 9000,
  }, 5);
  p = s.msg(p, { role: "user", content: "Go ahead, then refunds." });
  const keep = s.msg(
    p,
    assistant([
      text(
        "Updated invoices.ts and refunds.ts for the new field names; the old `charge` field is now `payment_intent`.",
      ),
    ], usage(2100, 260, 2700, 0)),
  );
  p = s.msg(keep, { role: "user", content: "Run the billing tests." });
  p = s.msg(
    p,
    assistant(
      [call("toolu_b2", "bash", { command: "npm test -- src/billing" })],
      usage(180, 30, 3100, 0),
      "toolUse",
    ),
  );
  p = s.msg(
    p,
    result(
      "toolu_b2",
      "bash",
      " ✓ src/billing/invoices.test.ts (11)\n ✓ src/billing/refunds.test.ts (5)\n\n      Tests  16 passed (16)",
    ),
  );
  p = s.add(p, "compaction", {
    summary:
      "[User]: Migrate the billing webhooks from Stripe API 2023-10 to 2025-06.\n[Assistant]: I'll inventory the webhook handlers first.\n[Tool bash]: src/billing/webhooks.ts src/billing/invoices.ts src/billing/refunds.ts\n(filtered 38 lines)\n[Assistant]: Three handlers. The 2025-06 API renames invoice.paid payload fields.",
    firstKeptEntryId: keep,
    tokensBefore: 51234,
    details: {
      strategy: "verbatim-lines",
      promptVersion: 3,
      rung: "planned",
      parameters: { compression_ratio: 0.5, preserve_recent: 2, query: "stripe webhook migration" },
      stats: {
        linesBefore: 812,
        linesDeleted: 417,
        linesKept: 395,
        rangeCount: 63,
        tokensBefore: 51234,
        tokensAfter: 24980,
        percentReduction: 51.2,
      },
    },
    usage: usage(5200, 40),
  }, 10);
  p = s.msg(p, { role: "user", content: "Great. Last one: webhooks.ts signature verification." });
  p = s.msg(
    p,
    assistant([
      text(
        "Updated `constructEvent` to the new tolerance parameter; webhooks.ts now verifies with the 2025-06 signing scheme. All 16 billing tests pass.",
      ),
    ], usage(1900, 150, 0, 1800)),
  );
  s.add(p, "session_info", { name: "Stripe 2025-06 webhook migration" }, 1);
  return s.text();
}

// ------------------------------------------------------------------ 03: interrupted tool call

function interrupted(): string {
  const s = new Session(
    {
      type: "session",
      version: 4,
      id: "c3a81f2d-77e4-4b9a-a0d5-19e6b4c8f203",
      createdAt: "2026-07-15T17:30:00.000Z",
      cwd: "/home/dev/acme-api",
    },
    "c3",
    "2026-07-15T17:30:00.000Z",
  );
  let p = s.msg(null, {
    role: "user",
    content: "Regenerate the OpenAPI client and check the diff.",
  });
  p = s.msg(
    p,
    assistant(
      [
        text("Running the generator and reading the config in parallel."),
        call("toolu_c1", "read", { path: "openapi/config.yaml" }),
        call("toolu_c2", "bash", { command: "npm run gen:client && git diff --stat" }),
      ],
      usage(2600, 120, 0, 2500),
      "toolUse",
    ),
  );
  s.msg(
    p,
    result(
      "toolu_c1",
      "read",
      "generator: typescript-fetch\noutput: src/client\nadditionalProperties:\n  useSingleRequestParameter: true\n",
    ),
  );
  // The process stopped before the bash result was written.
  return s.text();
}

// ------------------------------------------------------------------ 04: pi v1

function piV1(): string {
  const lines: Json[] = [
    {
      type: "session",
      id: "0c5e8a2b-3f41-4d6c-8e92-7b1a4c6d8e0f",
      timestamp: "2025-03-02T08:15:00.000Z",
      cwd: "/home/dev/dotfiles",
    },
    {
      type: "model_change",
      timestamp: "2025-03-02T08:15:01.000Z",
      provider: "openai",
      modelId: "gpt-4o",
    },
    {
      type: "message",
      timestamp: "2025-03-02T08:15:10.000Z",
      message: {
        role: "user",
        content: "Why does my zsh prompt take two seconds to show up?",
        timestamp: 1740903310000,
      },
    },
    {
      type: "message",
      timestamp: "2025-03-02T08:15:14.000Z",
      message: {
        role: "assistant",
        content: [
          text(
            "Usually a slow plugin or `compinit` running its security check on every start. Let me time it.",
          ),
          call("call_1", "bash", { command: "zsh -i -c exit --zprof | head -20" }),
        ],
        provider: "openai",
        model: "gpt-4o",
        usage: usage(900, 60),
        stopReason: "toolUse",
        timestamp: 1740903314000,
      },
    },
    {
      type: "message",
      timestamp: "2025-03-02T08:15:16.000Z",
      message: {
        role: "toolResult",
        toolCallId: "call_1",
        toolName: "bash",
        content: [
          text(
            "num  calls  time       self\n 1)    1   1843.21   1843.21  compinit\n 2)    2     88.10     44.05  nvm_auto",
          ),
        ],
        isError: false,
        timestamp: 1740903316000,
      },
    },
    {
      type: "message",
      timestamp: "2025-03-02T08:15:20.000Z",
      message: {
        role: "assistant",
        content: [
          text(
            "`compinit` takes 1.8 s. Add `compinit -C` (skip the check) or cache `.zcompdump` once a day.",
          ),
        ],
        provider: "openai",
        model: "gpt-4o",
        usage: usage(1100, 80),
        stopReason: "stop",
        timestamp: 1740903320000,
      },
    },
  ];
  return lines.map((l) => JSON.stringify(l)).join("\n") + "\n";
}

// ------------------------------------------------------------------ 05: internal workflow stage

function workflowStage(): string {
  const s = new Session(
    {
      type: "session",
      version: 4,
      id: "e5b0d3c7-2a9f-4c18-8d64-0f3e7a5b9c21",
      createdAt: "2026-07-13T09:40:00.000Z",
      cwd: "/home/dev/acme-api",
      parentSessionId: "4f7c2a9e-1b3d-4e8f-9a6b-2c5d7e9f1a3b",
      internal: true,
      workflow: { runId: "run-7f3a", stageId: "stage-review", stageName: "review" },
    },
    "e5",
    "2026-07-13T09:40:00.000Z",
  );
  let p = s.msg(null, {
    role: "user",
    content: "Review the diff of src/auth/session.ts for correctness and error handling.",
  });
  p = s.msg(
    p,
    assistant([
      text(
        "The mutex version re-checks expiry inside the lock, so a waiter does not refresh again. One nit: log the refresh failure before rethrowing.",
      ),
    ], usage(3500, 140, 0, 3300)),
  );
  return s.text();
}

const files: Record<string, string> = {
  "01-token-refresh-race.jsonl": await realistic(),
  "02-verbatim-boundary.jsonl": boundary(),
  "03-interrupted-tool-call.jsonl": interrupted(),
  "04-pi-v1-zsh-startup.jsonl": piV1(),
  "05-workflow-review-stage.jsonl": workflowStage(),
};
for (const [name, content] of Object.entries(files)) {
  await Deno.writeTextFile(`${OUT}${name}`, content);
  console.log(`${name}: ${content.length} bytes`);
}
