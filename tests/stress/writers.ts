/**
 * Two and four writer processes append to one session at once, in Deno only and in Deno
 * and Node 20 together, for each persistent store. Afterwards, in a fresh store: every
 * entry of every writer is there once, in that writer's order, and the session parses (no
 * torn or interleaved record). Throughput (appends/s) is printed as information only.
 *
 * @module
 */
import type { SessionStore } from "../../core.ts";
import { openJsonlFsStore } from "../../stores/jsonl/fs.ts";
import { openSqliteStore } from "../../stores/sqlite/file.ts";
import type { ChildArgs } from "./child.ts";
import {
  type Checks,
  header,
  type Runtime,
  sessionProblems,
  spawnChild,
  tempDir,
} from "./_shared.ts";

/** Deno only and Deno with Node, two and four writers; the CI slice runs the mixed ones. */
const MIXES: Runtime[][] = [
  ["deno", "deno"],
  ["deno", "node"],
  ["deno", "deno", "deno", "deno"],
  ["deno", "node", "deno", "node"],
];
const CI_MIXES = MIXES.filter((mix) => mix.includes("node"));

/** Figures of one run. */
export interface WriterFigures {
  store: ChildArgs["store"];
  runtimes: Runtime[];
  appends: number;
  lost: number;
  appendsPerSecond: number;
}

async function open(store: ChildArgs["store"], location: string): Promise<SessionStore> {
  return store === "jsonl"
    ? await openJsonlFsStore(location, { trashCommand: false })
    : await openSqliteStore(location);
}

async function writersRun(
  checks: Checks,
  kind: ChildArgs["store"],
  runtimes: Runtime[],
  count: number,
): Promise<WriterFigures> {
  const dir = await tempDir(`writers-${kind}`);
  const location = kind === "jsonl" ? `${dir}/sessions` : `${dir}/sessions.db`;
  const label = `${kind} ${runtimes.join("+")}`;
  const sessionId = "shared";
  const goFile = `${dir}/go`;
  try {
    const setup = await open(kind, location);
    await setup.create(header(sessionId));
    await setup.close();
    const prefixes = runtimes.map((_, i) => String.fromCharCode(97 + i));
    const children = await Promise.all(runtimes.map((runtime, i) =>
      spawnChild(
        runtime,
        {
          mode: "writer",
          store: kind,
          location,
          sessionId,
          prefix: prefixes[i],
          count,
          goFile,
        } satisfies ChildArgs,
      )
    ));
    const ready = await Promise.all(
      children.map((child) => child.until((l) => l.includes("ready"))),
    );
    // Released together by one file, so their appends really overlap.
    await Deno.writeTextFile(goFile, "");
    const released = performance.now();
    const results = await Promise.all(children.map((child) => child.done));
    const seconds = (performance.now() - released) / 1000;
    results.forEach((result, i) =>
      checks.check(
        ready[i] && result.code === 0,
        `writers ${label}: writer ${prefixes[i]} exited ${result.code}: ${result.stderr}`,
      )
    );
    const store = await open(kind, location);
    let lost = 0;
    try {
      const { entries } = await store.load(sessionId);
      const expected = (prefix: string) =>
        Array.from({ length: count }, (_, i) => `${prefix}${i.toString(36).padStart(5, "0")}`);
      const found = sessionProblems(entries, prefixes.flatMap(expected));
      lost = found.lost;
      for (const problem of found.problems) checks.check(false, `writers ${label}: ${problem}`);
      for (const prefix of prefixes) {
        const mine = entries.filter((entry) => entry.id.startsWith(prefix)).map((e) => e.id);
        checks.check(
          JSON.stringify(mine) === JSON.stringify(expected(prefix)),
          `writers ${label}: writer ${prefix}'s entries are not all there once, in order`,
        );
      }
      checks.check(
        entries.length === count * runtimes.length,
        `writers ${label}: ${entries.length} entries, expected ${count * runtimes.length}`,
      );
    } finally {
      await store.close();
    }
    const appends = count * runtimes.length;
    return { store: kind, runtimes, appends, lost, appendsPerSecond: appends / seconds };
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/** Every store x mix of runtimes, `count` appends per writer. */
export async function writersSection(checks: Checks, count: number): Promise<WriterFigures[]> {
  const figures: WriterFigures[] = [];
  for (const kind of ["jsonl", "sqlite"] as const) {
    for (const runtimes of checks.ci ? CI_MIXES : MIXES) {
      const result = await writersRun(checks, kind, runtimes, count);
      console.log(
        `  ${kind} ${runtimes.join("+")}: ${result.appends} appends, ${result.lost} lost, ` +
          `${Math.round(result.appendsPerSecond)} appends/s (information)`,
      );
      figures.push(result);
    }
  }
  return figures;
}
