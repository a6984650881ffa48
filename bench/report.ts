/**
 * Results: targets evaluated from the rows (ratios from the same run), written as JSON
 * (`bench/results/latest.json` + a dated copy) and as the table between the markers in
 * `bench/README.md`. Smoke and partial runs go to `bench/results/tmp/` (git-ignored) and
 * leave the README alone.
 * @module
 */
import type { FolderData, SessionData } from "./generate.ts";
import { REPO, type Row } from "./jobs.ts";
import { evaluate, type Evaluation } from "./targets.ts";
import { renderTables } from "./table.ts";

/** Everything a run produced. */
export interface RunResults {
  startedAt: Date;
  durationS: number;
  mode: string;
  seed: number;
  sessions: SessionData[];
  folders: FolderData[];
  rows: Row[];
  /** Full run: write latest.json, the dated copy and the README table. */
  official: boolean;
}

/** The JSON written to disk. */
export interface ResultsFile {
  schema: 1;
  startedAt: string;
  durationS: number;
  mode: string;
  seed: number;
  machine: Record<string, unknown>;
  data: { sessions: Omit<SessionData, "file" | "dir">[]; folders: Omit<FolderData, "dir">[] };
  evaluations: Evaluation[];
  rows: Row[];
  /** Sections measured again on their own and merged in (`render.ts --merge`). */
  merged?: {
    startedAt: string;
    mode: string;
    sections: string[];
    machine: Record<string, unknown>;
  }[];
}

async function machine(): Promise<Record<string, unknown>> {
  // Deno asks for --allow-all to read most of /proc directly; `cat` (run permission) is fine.
  const read = (path: string) =>
    new Deno.Command("cat", { args: [path], stdout: "piped", stderr: "null" }).output()
      .then((out) => new TextDecoder().decode(out.stdout)).catch(() => "");
  const cpu = /model name\s*:\s*(.*)/.exec(await read("/proc/cpuinfo"))?.[1];
  const memKb = Number(/MemTotal:\s+(\d+)/.exec(await read("/proc/meminfo"))?.[1] ?? NaN);
  const node = await new Deno.Command(Deno.env.get("NODE_BINARY") ?? "node", {
    args: ["--version"],
    stdout: "piped",
  }).output().then((out) => new TextDecoder().decode(out.stdout).trim()).catch(() => null);
  const load = (await read("/proc/loadavg")).split(" ").slice(0, 3).join(" ");
  return {
    cpu,
    cores: navigator.hardwareConcurrency,
    memGiB: Math.round(memKb / 1024 / 1024),
    deno: Deno.version.deno,
    v8: Deno.version.v8,
    node,
    loadAverageAtEnd: load,
  };
}

const MARK_START = "<!-- bench:table:start -->";
const MARK_END = "<!-- bench:table:end -->";

/** Replace the table between the README's markers; false when the markers are missing. */
export async function updateReadme(file: ResultsFile): Promise<boolean> {
  const readmePath = `${REPO}bench/README.md`;
  const readme = await Deno.readTextFile(readmePath).catch(() => "");
  const start = readme.indexOf(MARK_START);
  const end = readme.indexOf(MARK_END);
  if (start === -1 || end < start) return false;
  const table = renderTables(file);
  await Deno.writeTextFile(
    readmePath,
    `${readme.slice(0, start + MARK_START.length)}\n${table}\n${readme.slice(end)}`,
  );
  // `deno task check` runs `deno fmt --check`, which aligns Markdown tables: align them now.
  await new Deno.Command(Deno.execPath(), { args: ["fmt", "--quiet", readmePath], cwd: REPO })
    .output().catch(() => undefined);
  return true;
}

/** Write the results; returns the paths written. */
export async function writeResults(run: RunResults): Promise<string[]> {
  const evaluations = evaluate(run.rows, run.sessions);
  const file: ResultsFile = {
    schema: 1,
    startedAt: run.startedAt.toISOString(),
    durationS: Math.round(run.durationS),
    mode: run.mode,
    seed: run.seed,
    machine: await machine(),
    data: {
      sessions: run.sessions.map(({ file: _f, dir: _d, ...rest }) => rest),
      folders: run.folders.map(({ dir: _d, ...rest }) => rest),
    },
    evaluations,
    rows: run.rows,
  };
  const json = JSON.stringify(file, null, 1) + "\n";
  const dir = `${REPO}bench/results`;
  const written: string[] = [];
  if (run.official) {
    await Deno.mkdir(dir, { recursive: true });
    const day = file.startedAt.slice(0, 10);
    for (const name of ["latest.json", `${day}.json`]) {
      await Deno.writeTextFile(`${dir}/${name}`, json);
      written.push(`bench/results/${name}`);
    }
    if (await updateReadme(file)) written.push("bench/README.md");
  } else {
    await Deno.mkdir(`${dir}/tmp`, { recursive: true });
    const name = run.mode === "smoke" ? "smoke.json" : "partial.json";
    await Deno.writeTextFile(`${dir}/tmp/${name}`, json);
    written.push(`bench/results/tmp/${name}`);
    console.log(renderTables(file));
  }
  for (const e of evaluations) {
    const status = e.met === null ? "n/a " : e.met ? "MET " : "MISS";
    console.log(`  [${status}] ${e.label}: ${e.measured} (target ${e.target})`);
  }
  return written;
}
