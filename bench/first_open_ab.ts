/**
 * `deno run -A bench/first_open_ab.ts [--ref=242fb67] [--rounds=5] [--runtimes=deno,node]
 * [--byte-text]`: the first open of the 100k JSONL session by this tree against a git ref
 * (default: the commit before the lean-core redesign began), in one process per runtime
 * (`cases/first_open_ab.ts`). The ref is extracted with `git archive` into
 * `/tmp/mu-bench-ref-<ref>` (no worktree is registered; `node_modules` is linked from this
 * checkout); Node runs one esbuild bundle holding every tree. `--byte-text` adds a third
 * tree, the ref with its file-system backend's `byteText` (the ISO-8859-1 line path the
 * redesign deleted) taken out, so the ref against it is what that path saves, and this tree
 * against it is what changed besides. Prints the medians and the per-round ratios' medians
 * and writes `bench/results/first_open_ab-<date>.json` (`--no-write`: print only).
 * @module
 */
import { DEFAULT_SEED, ensureSession } from "./generate.ts";
import { REPO } from "./jobs.ts";
import { median } from "./rt.ts";
import { NODE_BUNDLE_FLAGS } from "../tools/node_bundle.ts";
import type { FirstOpenAbParams, FirstOpenAbResult } from "./cases/first_open_ab.ts";

const option = (name: string) =>
  Deno.args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const ref = option("ref") ?? "242fb67";
const rounds = Number(option("rounds") ?? 5);
const runtimes = (option("runtimes") ?? "deno,node").split(",");

async function run(command: string, args: string[], cwd = REPO): Promise<string> {
  const out = await new Deno.Command(command, { args, cwd, stdout: "piped", stderr: "piped" })
    .output();
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) {
    throw new Error(`${command} ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return text;
}

/** Point `dir`'s `node_modules` at this checkout's (a copy made from a removed checkout dangles). */
async function linkNodeModules(dir: string): Promise<void> {
  const link = `${dir}/node_modules`;
  const target = `${REPO}node_modules`;
  if ((await Deno.readLink(link).catch(() => undefined)) === target) return;
  await Deno.remove(link).catch(() => {});
  await Deno.symlink(target, link);
}

const sha = (await run("git", ["rev-parse", "--short=12", `${ref}^{commit}`])).trim();
const refDir = `/tmp/mu-bench-ref-${sha}`;
if (!(await Deno.stat(`${refDir}/core.ts`).catch(() => null))) {
  await Deno.mkdir(refDir, { recursive: true });
  await run("sh", ["-c", `git archive ${sha} | tar -x -C ${refDir}`]);
}
await linkNodeModules(refDir);

// The ref without the ISO-8859-1 line path: the one line that lends it to the pass removed.
const BYTE_TEXT_LINE = "  readonly byteText: ByteText = nodeByteText;\n";
const noByteTextDir = `${refDir}-no-byte-text`;
const withNoByteText = Deno.args.includes("--byte-text");
if (withNoByteText && !(await Deno.stat(`${noByteTextDir}/core.ts`).catch(() => null))) {
  const fsSource = await Deno.readTextFile(`${refDir}/stores/jsonl/fs.ts`);
  if (!fsSource.includes(BYTE_TEXT_LINE)) throw new Error(`${ref} lends no byteText to remove`);
  await Deno.mkdir(noByteTextDir, { recursive: true });
  await run("sh", ["-c", `git archive ${sha} | tar -x -C ${noByteTextDir}`]);
  await Deno.writeTextFile(
    `${noByteTextDir}/stores/jsonl/fs.ts`,
    fsSource.replace(BYTE_TEXT_LINE, ""),
  );
}

if (withNoByteText) await linkNodeModules(noByteTextDir);

// One 231 MB file, linked into one folder per tree (a link, not a copy: same bytes, no space).
const data = await ensureSession(100000, DEFAULT_SEED);
const base = `${REPO}dist/bench-data/first-open-ab`;
const dirs: Record<string, string> = { current: `${base}/current`, ref: `${base}/ref-${sha}` };
if (withNoByteText) dirs.refNoByteText = `${base}/ref-${sha}-no-byte-text`;
const name = data.file.split("/").pop()!;
for (const dir of Object.values(dirs)) {
  await Deno.mkdir(dir, { recursive: true });
  if (!(await Deno.stat(`${dir}/${name}`).catch(() => null))) {
    await Deno.link(data.file, `${dir}/${name}`);
  }
}
const params: FirstOpenAbParams = { file: data.file, sessionId: data.sessionId, dirs, rounds };

// The child: both trees imported statically, so Node's bundle holds both.
const out = `${REPO}dist/first-open-ab`;
await Deno.mkdir(out, { recursive: true });
await Deno.writeTextFile(
  `${out}/entry.ts`,
  `import * as current from "../../core.ts";
import { openJsonlFsStore as currentOpen } from "../../stores/jsonl/fs.ts";
import * as ref from "${refDir}/core.ts";
import { openJsonlFsStore as refOpen } from "${refDir}/stores/jsonl/fs.ts";
${
    withNoByteText
      ? `import * as refNoByteText from "${noByteTextDir}/core.ts";
import { openJsonlFsStore as refNoByteTextOpen } from "${noByteTextDir}/stores/jsonl/fs.ts";`
      : ""
  }
import { firstOpenAb } from "../../bench/cases/first_open_ab.ts";
import process from "node:process";
const result = await firstOpenAb(${JSON.stringify(params)}, {
  current: { SessionManager: current.SessionManager, openJsonlFsStore: currentOpen },
  ref: { SessionManager: ref.SessionManager, openJsonlFsStore: refOpen },${
    withNoByteText
      ? `
  refNoByteText: { SessionManager: refNoByteText.SessionManager, openJsonlFsStore: refNoByteTextOpen },`
      : ""
  }
} as never);
process.stdout.write("\\n@@AB " + JSON.stringify(result) + "\\n");
`,
);

const results: (FirstOpenAbResult & { loadAverage: string })[] = [];
for (const runtime of runtimes) {
  let stdout: string;
  if (runtime === "node") {
    await run(`${REPO}node_modules/.bin/esbuild`, [
      `${out}/entry.ts`,
      ...NODE_BUNDLE_FLAGS,
      "--log-level=error",
      `--outfile=${out}/entry.mjs`,
    ]);
    stdout = await run("node", ["--expose-gc", `${out}/entry.mjs`]);
  } else {
    stdout = await run(Deno.execPath(), [
      "run",
      "--allow-all",
      "--v8-flags=--expose-gc",
      `${out}/entry.ts`,
    ]);
  }
  const marker = stdout.lastIndexOf("@@AB ");
  const result = JSON.parse(stdout.slice(marker + 5).split("\n")[0]) as FirstOpenAbResult;
  const loadAverage = (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(" ");
  results.push({ ...result, loadAverage });
  const m = result.medianMs;
  const medians = (pairRatios: Record<string, number[]>) =>
    Object.entries(pairRatios)
      .map(([pair, ratios]) => `${pair} ${median(ratios).toFixed(3)}`).join(", ");
  const pairs = `${medians(result.pairRatios)}; of CPU time: ${medians(result.cpuPairRatios)}`;
  console.log(
    `${runtime}: floor ${m.floor.toFixed(0)} ms, current ${m.current.toFixed(0)} ms (${
      (m.current / m.floor).toFixed(2)
    }x floor), ${sha} ${m.ref.toFixed(0)} ms (${(m.ref / m.floor).toFixed(2)}x floor)` +
      (m.refNoByteText ? `, ${sha} without byteText ${m.refNoByteText.toFixed(0)} ms` : "") +
      `; median of per-round ratios: ${pairs}; load ${loadAverage}`,
  );
}

if (!Deno.args.includes("--no-write")) {
  const day = new Date().toISOString().slice(0, 10);
  const file = `${REPO}bench/results/first_open_ab-${day}.json`;
  const previous = await Deno.readTextFile(file).then(JSON.parse).catch(() => ({ runs: [] }));
  const record = {
    what: "First open of the 100k JSONL session (SessionManager.open + buildSessionContext(), " +
      "no resume index): this tree against a git ref, alternated in one process per runtime " +
      "(bench/first_open_ab.ts); with --byte-text also the ref without its byteText path. " +
      "Rows: the median of per-round ratios (pairRatios; cpuPairRatios the same of the " +
      "process's CPU time, steadier when other processes share the cores). Target: current/ref <= 1.05; " +
      "byteText comes back only if it saves >= 10 % (refNoByteText/ref >= 1.11) on Deno and Node.",
    ref: sha,
    runs: [
      ...previous.runs,
      ...results.map((r) => ({ at: new Date().toISOString(), ...r })),
    ],
  };
  await Deno.writeTextFile(file, JSON.stringify(record, null, 1) + "\n");
  console.log(`written: ${file}`);
}
