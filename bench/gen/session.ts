/**
 * Realistic format-4 session content: turns of user -> assistant (thinking a third of the
 * time, 1-3 tool calls) -> tool results -> assistant, with the entry kinds a long-lived
 * agent session accumulates (model/thinking changes, custom entries, labels, renames,
 * context edits, summaries), a branch about every 1,000 entries (half with a
 * branch_summary) and a verbatim-lines compaction about every 2,500.
 *
 * Entries are yielded one at a time so a 100k-entry session is never held in memory.
 * @module
 */
import type { Rng, TextPools } from "./text.ts";

type Json = Record<string, unknown>;

/** What to generate. */
export interface SessionShape {
  entries: number;
  /** Multiplies text sizes (small sessions in folders use less). */
  contentScale?: number;
  /** Branches and compactions (off for small sessions: they never reach the intervals). */
  structure?: boolean;
  /** Start time of the session, epoch ms. */
  startMs: number;
  /** Base64 images: about one per this many entries (0 = none). */
  imageEvery?: number;
  /** Name the session (a session_info entry after the first turn). */
  named?: boolean;
  /** Continue an existing session: the first entry's parent. */
  parentId?: string | null;
  /** Ids already used by that session (new ids avoid them). */
  reserved?: { has(id: string): boolean };
}

const MODELS = [
  ["anthropic", "claude-sonnet-4-5", "anthropic-messages"],
  ["anthropic", "claude-opus-4-1", "anthropic-messages"],
  ["openai", "gpt-5", "openai-responses"],
  ["google", "gemini-2.5-pro", "google-generative-ai"],
] as const;
const LEVELS = ["off", "low", "medium", "high"];
const TOOLS = ["read", "bash", "edit", "write", "grep", "find", "ls"];

interface PathItem {
  id: string;
  kind: string; // "user" | "assistant" | "final" | "toolResult" | other entry types
}

/** Builds entries; `run()` yields exactly `shape.entries` of them. */
export class SessionWriter {
  readonly #rng: Rng;
  readonly #text: TextPools;
  readonly #shape: Required<SessionShape>;
  readonly #ids = new Set<string>();
  #path: PathItem[] = [];
  #leaf: string | null = null;
  #clock: number;
  #model: readonly [string, string, string] = MODELS[0];
  /** Index in `#path` of the latest compaction on the current branch (-1: none). */
  #lastCompaction = -1;
  count = 0;
  lastId: string | null = null;

  constructor(rng: Rng, text: TextPools, shape: SessionShape) {
    this.#rng = rng;
    this.#text = text;
    this.#shape = {
      contentScale: 1,
      structure: true,
      imageEvery: 3000,
      named: true,
      parentId: null,
      reserved: new Set<string>(),
      ...shape,
    };
    this.#clock = shape.startMs;
    this.#leaf = this.#shape.parentId;
  }

  /** Yields entries until the requested count. */
  *run(): Generator<Json> {
    const rng = this.#rng;
    const n = this.#shape.entries;
    const structure = this.#shape.structure;
    let nextBranch = rng.int(800, 1200);
    let nextCompaction = rng.int(2200, 2800);
    let nextRename = rng.int(2500, 3500);
    if (this.#leaf === null) {
      yield* this.#cap(this.#model_change(), n);
      if (n > 100) yield* this.#cap([this.#thinking()], n);
    }
    let named = !this.#shape.named;
    while (this.count < n) {
      if (structure && this.count >= nextBranch) {
        nextBranch += rng.int(800, 1200);
        yield* this.#cap(this.#branch(), n);
      }
      if (structure && this.count >= nextCompaction) {
        nextCompaction += rng.int(2200, 2800);
        yield* this.#cap(this.#compaction(), n);
      }
      if (structure && this.count >= nextRename) {
        nextRename += rng.int(2500, 3500);
        yield* this.#cap([this.#sessionInfo()], n);
      }
      yield* this.#cap(this.#turn(), n);
      if (!named) {
        named = true; // named after the first turn, as agents title a session
        yield* this.#cap([this.#sessionInfo()], n);
      }
      yield* this.#cap(this.#extras(), n);
    }
  }

  /** Stop an entry source once `n` entries exist (pulling one more would create it). */
  *#cap(entries: Iterable<Json>, n: number): Generator<Json> {
    if (this.count >= n) return;
    for (const entry of entries) {
      yield entry;
      if (this.count >= n) return;
    }
  }

  /** Stamp id/parent/time on an entry and move the leaf to it. */
  #emit(kind: string, body: Json): Json {
    let id = this.#rng.hex(8);
    while (this.#ids.has(id) || this.#shape.reserved.has(id)) id = this.#rng.hex(8);
    this.#ids.add(id);
    this.#clock += this.#rng.int(200, 40_000);
    const entry: Json = {
      type: body.type,
      id,
      parentId: this.#leaf,
      timestamp: new Date(this.#clock).toISOString(),
      ...body,
    };
    this.#leaf = id;
    this.#path.push({ id, kind });
    this.count++;
    this.lastId = id;
    return entry;
  }

  #size(min: number, max: number): number {
    return Math.max(20, Math.round(this.#rng.logInt(min, max) * this.#shape.contentScale));
  }

  *#turn(): Generator<Json> {
    const rng = this.#rng;
    yield this.#emit("user", { type: "message", message: this.#user() });
    const rounds = rng.chance(0.25) ? 2 : 1;
    for (let round = 0; round < rounds; round++) {
      const calls = rng.int(1, 3);
      const toolCalls: Json[] = [];
      for (let i = 0; i < calls; i++) toolCalls.push(this.#toolCall());
      yield this.#emit("assistant", {
        type: "message",
        message: this.#assistant(toolCalls, "toolUse"),
      });
      for (const call of toolCalls) {
        yield this.#emit("toolResult", { type: "message", message: this.#toolResult(call) });
      }
    }
    const text = [{ type: "text", text: this.#text.prose(rng, this.#size(150, 2400)) }];
    yield this.#emit("final", { type: "message", message: this.#assistant(text, "stop") });
  }

  #user(): Json {
    const rng = this.#rng;
    const text = this.#text.prose(rng, this.#size(40, 900));
    const every = this.#shape.imageEvery;
    const withImage = every > 0 && (this.count === 40 || rng.chance(5 / every));
    const content = withImage
      ? [
        { type: "text", text },
        {
          type: "image",
          data: this.#text.image(rng, rng.int(20_000, 120_000)),
          mimeType: "image/png",
        },
      ]
      : rng.chance(0.5)
      ? text
      : [{ type: "text", text }];
    return { role: "user", content, timestamp: this.#clock };
  }

  #toolCall(): Json {
    const rng = this.#rng;
    const name = rng.pick(TOOLS);
    const file = `src/${this.#text.code(rng, 1).replace(/[^a-z]/gi, "").slice(0, 12) || "mod"}.ts`;
    const args: Json = name === "bash"
      ? { command: `deno test --allow-read ${file} 2>&1 | tail -n ${rng.int(5, 80)}`, timeout: 120 }
      : name === "edit"
      ? {
        path: file,
        oldText: this.#text.code(rng, this.#size(40, 600)),
        newText: this.#text.code(rng, this.#size(40, 600)),
      }
      : name === "write"
      ? { path: file, content: this.#text.code(rng, this.#size(200, 3000)) }
      : name === "grep"
      ? { pattern: "parseSession\\w+\\(", path: "src/", glob: "*.ts" }
      : { path: file };
    return { type: "toolCall", id: `toolu_${rng.base62(24)}`, name, arguments: args };
  }

  #assistant(blocks: Json[], stopReason: string): Json {
    const rng = this.#rng;
    const content: Json[] = [];
    if (rng.chance(1 / 3)) {
      content.push({
        type: "thinking",
        thinking: this.#text.prose(rng, this.#size(100, 2500)),
        thinkingSignature: rng.base62(rng.int(200, 500)),
      });
    }
    if (stopReason === "toolUse" && rng.chance(0.6)) {
      content.push({ type: "text", text: this.#text.prose(rng, this.#size(30, 300)) });
    }
    content.push(...blocks);
    const input = rng.int(2_000, 180_000);
    const output = rng.int(20, 4_000);
    const cacheRead = rng.int(0, input);
    return {
      role: "assistant",
      content,
      api: this.#model[2],
      provider: this.#model[0],
      model: this.#model[1],
      usage: {
        input,
        output,
        cacheRead,
        cacheWrite: rng.int(0, 5_000),
        totalTokens: input + output,
        cost: {
          input: input * 3e-6,
          output: output * 15e-6,
          cacheRead: cacheRead * 3e-7,
          cacheWrite: 0,
          total: input * 3e-6 + output * 15e-6,
        },
      },
      stopReason,
      timestamp: this.#clock,
    };
  }

  #toolResult(call: Json): Json {
    const rng = this.#rng;
    // 300 B - 4 KB mostly; about one in eight is a big 6-14 KB output.
    const scale = this.#shape.contentScale;
    const size = Math.round(
      (rng.chance(0.12) ? rng.int(6_000, 14_000) : rng.int(300, 4_000)) * scale,
    );
    const content: Json[] = [{
      type: "text",
      text: this.#text.code(rng, size, call.name === "read"),
    }];
    const every = this.#shape.imageEvery;
    if (every > 0 && call.name === "read" && rng.chance(2 / every)) {
      content.push({
        type: "image",
        data: this.#text.image(rng, rng.int(10_000, 60_000)),
        mimeType: "image/png",
      });
    }
    const message: Json = {
      role: "toolResult",
      toolCallId: call.id,
      toolName: call.name,
      content,
      isError: rng.chance(0.05),
      timestamp: this.#clock,
    };
    if (call.name === "bash") {
      message.details = { exitCode: rng.chance(0.8) ? 0 : 1, truncated: false };
    }
    return message;
  }

  /** Occasional non-turn entries, at rates seen in long agent sessions. */
  *#extras(): Generator<Json> {
    const rng = this.#rng;
    if (rng.chance(0.03)) {
      yield this.#emit("custom", {
        type: "custom",
        customType: rng.pick(["atomic-todo", "plan-mode", "git-checkpoint"]),
        data: {
          items: [this.#text.prose(rng, 40), this.#text.prose(rng, 60)],
          done: rng.int(0, 5),
        },
      });
    }
    if (rng.chance(0.008)) {
      yield this.#emit("custom_message", {
        type: "custom_message",
        customType: "reminder",
        content: this.#text.prose(rng, this.#size(60, 600)),
        display: rng.chance(0.5),
      });
    }
    if (rng.chance(0.012)) yield* this.#model_change();
    if (rng.chance(0.008)) yield this.#thinking();
    if (rng.chance(0.01)) yield* this.#label();
    if (rng.chance(0.006)) yield* this.#contextEdit();
    if (rng.chance(0.004)) yield* this.#sessionSummary();
  }

  *#model_change(): Generator<Json> {
    this.#model = this.#rng.pick(MODELS);
    yield this.#emit("model_change", {
      type: "model_change",
      provider: this.#model[0],
      modelId: this.#model[1],
    });
  }

  #thinking(): Json {
    return this.#emit("thinking_level_change", {
      type: "thinking_level_change",
      thinkingLevel: this.#rng.pick(LEVELS),
    });
  }

  #sessionInfo(): Json {
    return this.#emit("session_info", {
      type: "session_info",
      name: this.#text.prose(this.#rng, 30),
    });
  }

  /** A recent path entry of one of `kinds`, searching back at most `window` entries. */
  #recent(kinds: string[], window: number, skip = 0): PathItem | undefined {
    const path = this.#path;
    const floor = Math.max(0, path.length - window, this.#lastCompaction + 1);
    const start = path.length - 1 - this.#rng.int(0, Math.max(0, skip));
    for (let i = Math.max(floor, start); i >= floor; i--) {
      if (kinds.includes(path[i].kind)) return path[i];
    }
    return undefined;
  }

  *#label(): Generator<Json> {
    const target = this.#recent(["user", "final"], 200, 150);
    if (!target) return;
    const body: Json = { type: "label", targetId: target.id };
    if (this.#rng.chance(0.85)) body.label = `checkpoint-${this.#rng.int(1, 99)}`;
    yield this.#emit("label", body);
  }

  *#contextEdit(): Generator<Json> {
    const target = this.#recent(["assistant", "toolResult"], 20);
    if (!target) return;
    const replacement = this.#rng.chance(0.5)
      ? null
      : { content: [{ type: "text", text: "[output removed: retried]" }] };
    yield this.#emit("context_edit", { type: "context_edit", targetId: target.id, replacement });
  }

  *#sessionSummary(): Generator<Json> {
    const through = this.#recent(["user", "final"], 10);
    if (!through) return;
    yield this.#emit("session_summary", {
      type: "session_summary",
      summary: this.#text.prose(this.#rng, 80),
      summarizedThroughId: through.id,
      usage: { input: this.#rng.int(500, 2000), output: this.#rng.int(10, 40) },
    });
  }

  /** /tree navigation: move the leaf back to a reply a few turns ago and continue there. */
  *#branch(): Generator<Json> {
    const target = this.#recent(["final"], 60, 40);
    if (!target) return;
    const from = this.#leaf;
    const at = this.#path.lastIndexOf(target);
    this.#path = this.#path.slice(0, at + 1);
    if (this.#lastCompaction > at) {
      this.#lastCompaction = this.#path.findLastIndex((item) => item.kind === "compaction");
    }
    this.#leaf = target.id;
    if (this.#rng.chance(0.5)) {
      yield this.#emit("branch_summary", {
        type: "branch_summary",
        fromId: from,
        summary: this.#text.prose(this.#rng, this.#size(200, 1500)),
        details: { readFiles: ["src/jsonl.ts", "src/tree.ts"], modifiedFiles: ["src/tree.ts"] },
      });
    }
  }

  /** A verbatim-lines boundary keeping the tail from a user message some turns back. */
  *#compaction(): Generator<Json> {
    const rng = this.#rng;
    const kept = this.#recent(["user"], 80, 50);
    const summary = [
      `[User]: ${this.#text.prose(rng, 200)}`,
      `(filtered ${rng.int(10, 900)} lines)`,
      `[Assistant]: ${this.#text.prose(rng, this.#size(1_000, 12_000))}`,
      `[Tool read]: ${this.#text.code(rng, this.#size(500, 6_000))}`,
    ].join("\n");
    const linesBefore = rng.int(400, 3000);
    const linesDeleted = rng.int(100, linesBefore - 100);
    const tokensBefore = rng.int(60_000, 190_000);
    yield this.#emit("compaction", {
      type: "compaction",
      summary,
      firstKeptEntryId: kept ? kept.id : null,
      tokensBefore,
      details: {
        strategy: "verbatim-lines",
        promptVersion: 3,
        rung: "planned",
        parameters: { compression_ratio: 0.5, preserve_recent: 2, query: "" },
        stats: {
          linesBefore,
          linesDeleted,
          linesKept: linesBefore - linesDeleted,
          rangeCount: rng.int(5, 90),
          tokensBefore,
          tokensAfter: Math.round(tokensBefore / 2),
          percentReduction: 50,
        },
      },
    });
    this.#lastCompaction = this.#path.length - 1;
  }
}
