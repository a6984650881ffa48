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

import { assistant, call, DemoSession, type Json, result, text, usage } from "./builder.ts";
import { realistic } from "./realistic.ts";

const OUT = new URL("./", import.meta.url).pathname;

// ------------------------------------------------------------------ 02: verbatim boundary

function boundary(): string {
  const s = new DemoSession(
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
  const s = new DemoSession(
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
  const s = new DemoSession(
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
