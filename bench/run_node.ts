/**
 * The Node 20 variant. Node 20 cannot run TypeScript, so the benchmark child is bundled
 * with esbuild (npm packages stay external and resolve from node_modules, as
 * `tests/node/run.ts` does). The entry is generated: it imports the Node-capable library
 * modules that exist right now (better-sqlite3 store, JSONL store, projection) and
 * registers them for `bench/drivers.ts`, so a module not written yet is reported as "not
 * available yet" instead of breaking the build.
 *
 * `deno task bench:node` runs the same plan as `bench/run.ts` with `--runtimes=node`.
 * @module
 */
import { NODE_BUNDLE_FLAGS } from "../tools/node_bundle.ts";

const REPO = new URL("../", import.meta.url).pathname;
const OUT = `${REPO}dist/bench-node`;

/** Library modules the Node child may use, when present. */
const NODE_MODULES = [
  "src/projection.ts",
  "src/context_load.ts",
  "stores/sqlite/file.ts",
  "stores/jsonl/fs.ts",
];

async function bundle(modules: string[]): Promise<{ ok: boolean; message: string }> {
  const imports = modules.map((path, i) => `import * as m${i} from "../../${path}";`).join("\n");
  const registry = modules.map((path, i) => `  ${JSON.stringify(path)}: m${i},`).join("\n");
  await Deno.mkdir(OUT, { recursive: true });
  await Deno.writeTextFile(
    `${OUT}/entry.ts`,
    `${imports}\n(globalThis as Record<string, unknown>).__benchModules = {\n${registry}\n};\n` +
      `await import("../../bench/child.ts"); // after the registry exists\n`,
  );
  const output = await new Deno.Command(`${REPO}node_modules/.bin/esbuild`, {
    args: [
      `${OUT}/entry.ts`,
      ...NODE_BUNDLE_FLAGS,
      "--log-level=error",
      `--outfile=${OUT}/child.mjs`,
    ],
    cwd: REPO,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { ok: output.success, message: new TextDecoder().decode(output.stderr).trim() };
}

/**
 * Bundle the child for Node; returns the bundle path, or why Node cannot run (no node
 * binary, nothing bundles). Modules that fail to bundle are left out (reported later).
 */
export async function buildNodeChild(): Promise<string> {
  const node = Deno.env.get("NODE_BINARY") ?? "node";
  const version = await new Deno.Command(node, { args: ["--version"], stdout: "piped" }).output()
    .then((out) => new TextDecoder().decode(out.stdout).trim())
    .catch(() => "");
  if (!version) return `no ${node} binary`;
  const present: string[] = [];
  for (const path of NODE_MODULES) {
    if (await Deno.stat(`${REPO}${path}`).catch(() => null)) present.push(path);
  }
  let result = await bundle(present);
  if (!result.ok) {
    // Find the modules that break the build (half-written files) and leave them out.
    const good: string[] = [];
    for (const path of present) if ((await bundle([...good, path])).ok) good.push(path);
    result = await bundle(good);
    if (!result.ok) return `the Node bundle does not build: ${result.message.split("\n")[0]}`;
  }
  console.log(`node ${version}: bundled the benchmark child (${OUT}/child.mjs)`);
  return `${OUT}/child.mjs`;
}

if (import.meta.main) {
  const args = Deno.args.filter((arg) => !arg.startsWith("--runtimes="));
  const { code } = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      "--allow-run",
      "--allow-net=127.0.0.1",
      `${REPO}bench/run.ts`,
      "--runtimes=node",
      "--no-browser",
      ...args,
    ],
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  Deno.exit(code);
}
