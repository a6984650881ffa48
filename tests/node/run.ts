/**
 * Runs the Node test files under Node.js (20 here): Node 20 cannot run TypeScript, so the
 * test entry files are bundled with esbuild (npm packages stay external and resolve from
 * node_modules), then handed to `node --test`. Exits with node's status.
 *
 * Entry files: tests/unit/*.test.ts (runtime-agnostic, written with node:test) and
 * tests/node/*.test.ts (Node-only drivers and the conformance suite).
 */
import { NODE_BUNDLE_FLAGS } from "../../tools/node_bundle.ts";

const root = new URL("../../", import.meta.url).pathname;
const outdir = `${root}dist/node-tests`;
const entries: string[] = [];
for (const dir of ["tests/unit", "tests/node"]) {
  for await (const item of Deno.readDir(`${root}${dir}`)) {
    if (item.isFile && item.name.endsWith(".test.ts")) entries.push(`${dir}/${item.name}`);
  }
}
entries.sort();
await Deno.remove(outdir, { recursive: true }).catch(() => {});

async function run(command: string, args: string[]): Promise<number> {
  const { code } = await new Deno.Command(command, {
    args,
    cwd: root,
    stdout: "inherit",
    stderr: "inherit",
  })
    .output();
  return code;
}

const bundled = await run(`${root}node_modules/.bin/esbuild`, [
  ...entries,
  ...NODE_BUNDLE_FLAGS,
  "--log-level=warning",
  `--outdir=${outdir}`,
  "--outbase=tests",
  "--out-extension:.js=.mjs",
]);
if (bundled !== 0) Deno.exit(bundled);
const nodeBin = Deno.env.get("NODE_BINARY") ?? "node";
Deno.exit(await run(nodeBin, ["--test", "--test-reporter=spec", outdir]));
