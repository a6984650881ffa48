/**
 * Page-side test runner for browser tests. A bundled page registers tests with
 * {@link register} (the conformance suite's `Register` shape), then calls
 * {@link runRegisteredTests}; results go back to the Deno side (`tests/browser/harness.ts`)
 * one by one through the exposed `__muReport` function, with `globalThis.__muTests` as a
 * polling fallback. This module must stay browser-only: no Deno, no node: imports.
 *
 * @example
 * ```ts
 * import { register, runRegisteredTests } from "./runner.ts";
 * register("adds", async () => { if (1 + 1 !== 2) throw new Error("math"); });
 * await runRegisteredTests();
 * ```
 *
 * @module
 */

/**
 * One finished test, as reported to the Deno side (structured-clone and JSON safe).
 *
 * @example
 * ```ts
 * import type { PageTestResult } from "./runner.ts";
 * const result: PageTestResult = { name: "store opens", ok: true, ms: 12 };
 * ```
 */
export interface PageTestResult {
  name: string;
  ok: boolean;
  /** `name: message` plus the stack, when the test failed. */
  error?: string;
  ms: number;
}

/**
 * Messages sent through `__muReport` (the harness understands exactly these).
 *
 * @example
 * ```ts
 * import type { PageReport } from "./runner.ts";
 * const report: PageReport = { type: "fatal", error: "Error: setup failed" };
 * ```
 */
export type PageReport =
  | { type: "start"; total: number }
  | { type: "result"; result: PageTestResult }
  | { type: "done"; results: PageTestResult[] }
  | { type: "fatal"; error: string };

interface RegisteredTest {
  name: string;
  fn: () => Promise<void>;
}

const registered: RegisteredTest[] = [];

declare global {
  var __muReport: ((report: PageReport) => Promise<void>) | undefined;
  var __muTests: { done: boolean; results: PageTestResult[]; fatal?: string } | undefined;
}

/**
 * Register one test; pass it straight to `conformance(register, subject)`.
 *
 * @example
 * ```ts
 * import { register } from "./runner.ts";
 * register("store opens", async () => {});
 * ```
 */
export function register(name: string, fn: () => Promise<void>): void {
  registered.push({ name, fn });
}

/**
 * Render any thrown value as one readable string (the name matters: typed errors).
 *
 * @example
 * ```ts
 * import { describeError } from "./runner.ts";
 * describeError(new TypeError("bad")); // "TypeError: bad\n    at ..."
 * ```
 */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const head = `${error.name}: ${error.message}`;
    // V8 stacks repeat "name: message" first; keep only the frames after it.
    const stack = error.stack ?? "";
    const frames = stack.startsWith(head) ? stack.slice(head.length) : stack ? `\n${stack}` : "";
    return head + frames;
  }
  if (typeof DOMException !== "undefined" && error instanceof DOMException) {
    return `${error.name}: ${error.message}`;
  }
  return String(error);
}

async function send(report: PageReport): Promise<void> {
  try {
    await globalThis.__muReport?.(report);
  } catch {
    // The Deno side may have gone away (timeout); the polling fallback still has it.
  }
}

function withTimeout(fn: () => Promise<void>, ms: number, name: string): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`test "${name}" timed out after ${ms} ms`)), ms);
  });
  return Promise.race([fn(), timeout]).finally(() => clearTimeout(timer));
}

/**
 * Options for {@link runRegisteredTests}.
 *
 * @example
 * ```ts
 * import { runRegisteredTests } from "./runner.ts";
 * await runRegisteredTests({ timeoutMs: 30_000, grep: "indexeddb" });
 * ```
 */
export interface RunOptions {
  /** Per-test limit; a hung test fails instead of hanging CI (default 20 s). */
  timeoutMs?: number;
  /** Only tests whose name includes this (default: the page URL's `?grep=`). */
  grep?: string;
}

/**
 * Run the registered tests one after another and report each result, then `done`.
 *
 * @example
 * ```ts
 * import { runRegisteredTests } from "./runner.ts";
 * const results = await runRegisteredTests({ timeoutMs: 10_000 });
 * ```
 */
export async function runRegisteredTests(options: RunOptions = {}): Promise<PageTestResult[]> {
  const timeoutMs = options.timeoutMs ?? 20_000;
  const grep = options.grep ?? new URLSearchParams(location.search).get("grep") ?? "";
  const tests = registered.splice(0).filter((test) => test.name.includes(grep));
  const state = { done: false, results: [] as PageTestResult[] };
  globalThis.__muTests = state;
  await send({ type: "start", total: tests.length });
  for (const test of tests) {
    const started = performance.now();
    let result: PageTestResult;
    try {
      await withTimeout(test.fn, timeoutMs, test.name);
      result = { name: test.name, ok: true, ms: Math.round(performance.now() - started) };
    } catch (error) {
      result = {
        name: test.name,
        ok: false,
        error: describeError(error),
        ms: Math.round(performance.now() - started),
      };
    }
    state.results.push(result);
    await send({ type: "result", result });
  }
  state.done = true;
  await send({ type: "done", results: state.results });
  return state.results;
}

/**
 * Report a failure that happened outside any test (page setup): the harness fails at once
 * with this message instead of waiting for its timeout.
 *
 * @example
 * ```ts
 * import { reportFatal } from "./runner.ts";
 * try { await setUp(); } catch (e) { await reportFatal(e); }
 * ```
 */
export async function reportFatal(error: unknown): Promise<void> {
  const text = describeError(error);
  globalThis.__muTests = { done: true, results: [], fatal: text };
  await send({ type: "fatal", error: text });
}
