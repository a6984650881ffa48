/**
 * Helpers shared by the stress suite (`tests/stress/run.ts`): a seeded random source, the
 * check collector, child processes (Deno, or Node 20 through an esbuild bundle) that print
 * one line per acknowledged write, entry builders, the session invariants checked after
 * every kill, and directory-tree snapshots.
 *
 * @module
 */
import type { SessionEntry, SessionHeader } from "../../core.ts";
import { NODE_BUNDLE_FLAGS } from "../../tools/node_bundle.ts";

export const ROOT = new URL("../../", import.meta.url).pathname;

// ---------------------------------------------------------------- seeded randomness

/** mulberry32: small, fast, good enough to pick mutations and kill moments reproducibly. */
export class Rng {
  #state: number;
  constructor(seed: number) {
    this.#state = seed >>> 0;
  }
  /** Uniform in [0, 1). */
  next(): number {
    let t = (this.#state = (this.#state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }
}

/** A sub-seed per section and case, so one printed seed reproduces any single part. */
export function deriveSeed(seed: number, label: string | number): number {
  let h = (seed ^ 0x9e3779b9) >>> 0;
  for (const ch of String(label)) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return h;
}

// ---------------------------------------------------------------- checks

/**
 * Collects failed checks instead of stopping at the first, so a full run still reports its
 * figures. Every failure fails the run, the CI slice included; a check that guards a fixed
 * finding (issue 11, or a later one in RESULTS.md) names it in its message.
 */
export class Checks {
  readonly failures: string[] = [];
  constructor(readonly ci: boolean, readonly seed: number) {}

  check(ok: boolean, message: string): boolean {
    if (ok) return true;
    this.failures.push(`${message} [seed ${this.seed}]`);
    console.error(`  FAIL ${message}`);
    return false;
  }
}

/** The CI slice's seed unless one is given. */
export const CI_SEED = 11;

/** The command line of the suite: `--ci` (the small slice), `--seed N`, `--only a,b`. */
export interface StressOptions {
  ci: boolean;
  seed: number;
  only?: string[];
}

export function parseStressArgs(args: string[]): StressOptions {
  const at = (name: string) => {
    const i = args.indexOf(name);
    return i === -1 ? undefined : args[i + 1];
  };
  const seedText = at("--seed") ?? Deno.env.get("STRESS_SEED");
  return {
    ci: args.includes("--ci"),
    // The CI slice has a fixed default seed, so `npm test` is repeatable; the full run
    // explores a new one each time (printed, and in every failure).
    seed: seedText !== undefined
      ? Number(seedText) >>> 0
      : args.includes("--ci")
      ? CI_SEED
      : (Math.random() * 2 ** 32) >>> 0,
    only: at("--only")?.split(","),
  };
}

// ---------------------------------------------------------------- child processes

export type Runtime = "deno" | "node";

let nodeBundle: Promise<string> | undefined;

/** Bundle `child.ts` for Node 20 once (it cannot run TypeScript); npm packages stay external. */
export function nodeChildBundle(): Promise<string> {
  nodeBundle ??= (async () => {
    const out = `${ROOT}dist/stress/child.mjs`;
    const { code, stderr } = await new Deno.Command(`${ROOT}node_modules/.bin/esbuild`, {
      args: [
        "tests/stress/child.ts",
        ...NODE_BUNDLE_FLAGS,
        "--log-level=warning",
        `--outfile=${out}`,
      ],
      cwd: ROOT,
      stderr: "piped",
    }).output();
    if (code !== 0) throw new Error(`esbuild failed: ${new TextDecoder().decode(stderr)}`);
    return out;
  })();
  return nodeBundle;
}

/** A running child: its lines so far, a promise of its end, and SIGKILL. */
export interface Child {
  lines: string[];
  /** Resolves with the exit status once stdout is drained (never rejects). */
  done: Promise<{ code: number; signal: string | null; stderr: string }>;
  /** Resolves when `predicate` holds for the lines, or with false once the child ended. */
  until(predicate: (lines: string[]) => boolean): Promise<boolean>;
  kill(): void;
}

/**
 * The permissions the README gives a Deno application: writers are killed and judged under
 * them (no `--allow-run` to ask about a pid, no `--allow-sys` for the host name).
 */
const README_PERMISSIONS = ["--allow-read", "--allow-write", "--allow-env"];

/** Start `child.ts` with a JSON argument in Deno or Node; stdout is read line by line. */
export async function spawnChild(runtime: Runtime, args: unknown): Promise<Child> {
  const json = JSON.stringify(args);
  const command = runtime === "deno"
    ? new Deno.Command(Deno.execPath(), {
      args: ["run", ...README_PERMISSIONS, `${ROOT}tests/stress/child.ts`, json],
      stdout: "piped",
      stderr: "piped",
    })
    : new Deno.Command(Deno.env.get("NODE_BINARY") ?? "node", {
      args: [await nodeChildBundle(), json],
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
    });
  const process = command.spawn();
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  let ended = false;
  const notify = () => waiters.forEach((wake) => wake());
  const reading = (async () => {
    let pending = "";
    for await (const text of process.stdout.pipeThrough(new TextDecoderStream())) {
      pending += text;
      const parts = pending.split("\n");
      pending = parts.pop()!; // an unterminated line may be cut by the kill: not acknowledged
      lines.push(...parts);
      notify();
    }
  })();
  const stderr = new Response(process.stderr).text();
  const done = (async () => {
    const status = await process.status;
    await reading;
    ended = true;
    notify();
    return { code: status.code, signal: status.signal, stderr: await stderr };
  })();
  return {
    lines,
    done,
    until: (predicate) =>
      new Promise((resolve) => {
        const test = () => {
          if (predicate(lines)) resolve(true);
          else if (ended) resolve(false);
          else return;
          waiters.delete(test);
        };
        waiters.add(test);
        test();
      }),
    kill: () => {
      try {
        process.kill("SIGKILL");
      } catch {
        // already exited
      }
    },
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------- entries and invariants

export function header(id: string, cwd = "/stress"): SessionHeader {
  return { type: "session", version: 4, id, createdAt: new Date().toISOString(), cwd };
}

/** A user message entry; `size` characters of content vary the write sizes. */
export function messageEntry(id: string, parentId: string | null, size = 20): SessionEntry {
  return {
    type: "message",
    id,
    parentId,
    timestamp: new Date().toISOString(),
    message: { role: "user", content: `${id} ${"é".repeat(size)}`, timestamp: Date.now() },
  };
}

/**
 * What must hold for every session after a crash: no duplicate ids, every parent earlier in
 * the session, every acknowledged id present. Returns the problems found.
 */
export function sessionProblems(entries: readonly SessionEntry[], acked: Iterable<string>) {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    if (seen.has(entry.id)) problems.push(`duplicate id ${entry.id}`);
    if (entry.parentId !== null && !seen.has(entry.parentId)) {
      problems.push(`dangling parent ${entry.parentId} of ${entry.id}`);
    }
    seen.add(entry.id);
  }
  let lost = 0;
  for (const id of acked) if (!seen.has(id)) lost++;
  if (lost) problems.push(`${lost} acknowledged entries lost`);
  return { problems, lost };
}

// ---------------------------------------------------------------- directory snapshots

/** Every path under `dir` with its kind and size (symlinks not followed). */
export async function snapshotTree(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (at: string) => {
    for await (const item of Deno.readDir(at)) {
      const path = `${at}/${item.name}`;
      const info = await Deno.lstat(path);
      out.set(path, `${item.isSymlink ? "link" : item.isDirectory ? "dir" : "file"}:${info.size}`);
      if (item.isDirectory) await walk(path);
    }
  };
  await walk(dir);
  return out;
}

/** Paths added, removed or changed between two snapshots. */
export function treeDiff(before: Map<string, string>, after: Map<string, string>): string[] {
  const diff: string[] = [];
  for (const [path, what] of after) if (before.get(path) !== what) diff.push(`+${path} ${what}`);
  for (const path of before.keys()) if (!after.has(path)) diff.push(`-${path}`);
  return diff;
}

/** A fresh temp directory for a section, removed by the caller. */
export function tempDir(label: string): Promise<string> {
  return Deno.makeTempDir({ prefix: `mu-stress-${label}-` });
}
