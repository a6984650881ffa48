/**
 * Every code block of README.md and docs/ works as written, so the documentation cannot
 * drift from the code: `ts`/`js` blocks are type-checked together, then each runs in Deno
 * in a temporary directory with its own agent directory (blocks marked `node` also run in
 * Node 20, bundled as a consumer's bundler would resolve `@mu/sessions`); `sh` blocks must
 * be `mu` commands and each line runs against a temporary home holding pi's session folder;
 * `json`/`jsonc` blocks must parse. Markers (see blocks.ts) opt a block out, with a reason.
 */
import * as esbuild from "esbuild";
import { parse as parseJsonc, type ParseError } from "jsonc-parser";
import { assert, assertEquals } from "../conformance/assert.ts";
import { copyFixture } from "../jsonl/helpers.ts";
import { removeDir, tempDir } from "../jsonl/subjects.ts";
import { runCli } from "../../cli/main.ts";
import { type DocBlock, extractBlocks, shellLines } from "./blocks.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
// Bundles for Node stay inside the checkout (their npm imports resolve from node_modules);
// the blocks themselves go outside it: deno.json excludes test-output/ from type-checking.
const NODE_OUT = `${ROOT}test-output/docs/`;
const PAGES = [
  "README.md",
  ...[...Deno.readDirSync(`${ROOT}docs`)]
    .filter((entry) => entry.isFile && entry.name.endsWith(".md"))
    .map((entry) => `docs/${entry.name}`)
    .sort(),
];

function blocksOf(page: string): DocBlock[] {
  return extractBlocks(page, Deno.readTextFileSync(`${ROOT}${page}`));
}

const where = (block: DocBlock) => `${block.page}:${block.line}`;
const scriptName = (block: DocBlock) => `${block.page.replace(/[/.]/g, "_")}_L${block.line}.ts`;

/**
 * The block's source with relative imports made absolute: relative to the file its first
 * line names (`// tests/deno/x.test.ts`), else to its page.
 */
function scriptSource(block: DocBlock): string {
  const named = block.code.match(/^\/\/ (\S+\.(?:ts|js|mjs))\b/)?.[1];
  const base = new URL(named ?? block.page, `file://${ROOT}`);
  return block.code.replace(
    /(from\s+|import\s*\(\s*)(["'])(\.\.?\/[^"']+)\2/g,
    (_all, lead, quote, spec) => `${lead}${quote}${new URL(spec, base).href}${quote}`,
  );
}

async function run(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number; output: string }> {
  const { code, stdout, stderr } = await new Deno.Command(command, {
    args,
    cwd,
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
  }).output();
  const text = new TextDecoder();
  return { code, output: text.decode(stdout) + text.decode(stderr) };
}

/** A fresh directory to run one block in, with its own agent directory and home. */
async function sandbox<T>(fn: (dir: string, env: Record<string, string>) => Promise<T>) {
  const dir = await tempDir("mu-docs-");
  try {
    return await fn(dir, {
      HOME: dir,
      PI_CODING_AGENT_DIR: `${dir}/agent`,
      XDG_DATA_HOME: `${dir}/data`,
    });
  } finally {
    await removeDir(dir);
  }
}

/** Resolve `@mu/sessions[/sub]` through deno.json's exports, as the package's exports do. */
const EXPORTS: Record<string, string> = JSON.parse(
  Deno.readTextFileSync(`${ROOT}deno.json`),
).exports;
const packageEntries: esbuild.Plugin = {
  name: "mu-sessions-entries",
  setup(build) {
    build.onResolve({ filter: /^@mu\/sessions(\/.*)?$/ }, (args) => {
      const target = EXPORTS[`.${args.path.slice("@mu/sessions".length)}`];
      return target
        ? { path: `${ROOT}${target.slice(2)}` }
        : { errors: [{ text: `no export ${args.path}` }] };
    });
  },
};

async function runInNode(block: DocBlock, file: string): Promise<void> {
  const bundle = `${NODE_OUT}${scriptName(block).replace(/\.ts$/, ".mjs")}`;
  await esbuild.build({
    entryPoints: [file],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    plugins: [packageEntries],
    outfile: bundle,
    logLevel: "silent",
  });
  await sandbox(async (dir, env) => {
    const { code, output } = await run("node", [bundle], dir, env);
    assertEquals(code, 0, `${where(block)} in Node:\n${output}`);
  });
}

async function runInDeno(block: DocBlock, file: string): Promise<void> {
  await sandbox(async (dir, env) => {
    const args = ["run", "-A", "--no-check", `--config=${ROOT}deno.json`, file];
    const { code, output } = await run(Deno.execPath(), args, dir, env);
    assertEquals(code, 0, `${where(block)} in Deno:\n${output}`);
  });
}

/** Run each line of an `sh` block as `mu`, in a home whose agent folder holds pi's sessions. */
async function runShell(block: DocBlock): Promise<void> {
  await sandbox(async (home) => {
    const agentDir = `${home}/.pi/agent`;
    await Deno.mkdir(`${agentDir}/sessions`, { recursive: true });
    await copyFixture("pi-layout", `${agentDir}/sessions`);
    const cwd = `${home}/project`;
    await Deno.mkdir(cwd);
    for (const line of shellLines(block.code, home)) {
      const words = line.words[0] === "npm" && line.words.slice(1, 4).join(" ") === "run mu --"
        ? line.words.slice(4)
        : line.words[0] === "mu"
        ? line.words.slice(1)
        : undefined;
      assert(
        words !== undefined,
        `${where(block)}: "${line.text}" is not a mu command; run it or mark the block ` +
          `<!-- docs-test: skip (why) -->`,
      );
      let output = "";
      const code = await runCli(words, {
        out: (text) => void (output += text),
        err: (text) => void (output += text),
        cwd,
        env: { HOME: home, XDG_DATA_HOME: `${home}/data` },
        stderrIsTTY: false,
        ask: () => Promise.resolve("y"),
      });
      assertEquals(code, line.expectedCode, `${where(block)}: ${line.text}\n${output}`);
    }
  });
}

function parseJson(block: DocBlock): void {
  const errors: ParseError[] = [];
  parseJsonc(block.code, errors, { allowTrailingComma: true });
  assertEquals(errors, [], `${where(block)} does not parse`);
}

const ALL = PAGES.flatMap(blocksOf);
const SCRIPTS = ALL.filter((block) => ["ts", "js"].includes(block.lang) && block.mode !== "skip");

Deno.test("docs: every block runs, is type-checked, or says why not", () => {
  for (const block of ALL) {
    if (block.mode === "skip" || block.mode === "typecheck") {
      assert(block.reason, `${where(block)}: a ${block.mode} marker needs a reason in brackets`);
    }
    if (block.mode !== "skip") {
      assert(
        ["ts", "js", "sh", "json", "jsonc"].includes(block.lang),
        `${where(block)}: a "${block.lang}" block cannot be run; mark it skip with a reason`,
      );
    }
    if (block.mode === "typecheck" || block.mode === "node") {
      assert(["ts", "js"].includes(block.lang), `${where(block)}: ${block.mode} is for code`);
    }
  }
  assert(SCRIPTS.length > 0 && PAGES.length > 1, "the pages have code blocks");
});

Deno.test("docs: the README stays short and reaches every page; long pages open with contents", () => {
  const readme = Deno.readTextFileSync(`${ROOT}README.md`);
  const lines = readme.trimEnd().split("\n");
  assert(lines.length <= 160, `README.md has ${lines.length} lines (at most 160)`);
  const sections = readme.split(/^(?=## )/m).slice(1);
  for (const section of sections) {
    const length = section.trimEnd().split("\n").length;
    assert(length <= 30, `README section "${section.split("\n")[0]}" has ${length} lines`);
  }
  for (const page of PAGES.slice(1)) {
    assert(readme.includes(`](${page})`), `README.md does not link ${page}`);
    const text = Deno.readTextFileSync(`${ROOT}${page}`);
    if (text.split("\n").length > 100) {
      const opening = text.split(/^## /m)[0];
      assert(/^- \[.+\]\(#/m.test(opening), `${page}: over 100 lines without contents on top`);
    }
  }
});

Deno.test("docs: every relative link of the pages reaches a file", () => {
  for (const page of PAGES) {
    const text = Deno.readTextFileSync(`${ROOT}${page}`);
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target) || target.startsWith("#")) continue;
      const path = new URL(target.split("#")[0], `file://${ROOT}${page}`).pathname;
      let found = false;
      try {
        Deno.statSync(path);
        found = true;
      } catch { /* reported below */ }
      assert(found, `${page}: the link ${target} reaches no file`);
    }
  }
});

Deno.test("docs: every code block works as written", async (t) => {
  await Deno.mkdir(NODE_OUT, { recursive: true });
  const scripts = await tempDir("mu-docs-blocks-");
  const files = new Map<DocBlock, string>();
  for (const block of SCRIPTS) {
    const file = `${scripts}/${scriptName(block)}`;
    // Each block is a module of its own (a block without imports is a script otherwise).
    await Deno.writeTextFile(file, `${scriptSource(block)}export {};\n`);
    files.set(block, file);
  }
  await t.step("type-check every ts/js block", async () => {
    const args = ["check", "--quiet", `--config=${ROOT}deno.json`, ...files.values()];
    const { code, output } = await run(Deno.execPath(), args, ROOT, {});
    assertEquals(code, 0, output);
  });
  for (const block of ALL) {
    if (block.mode === "skip" || block.mode === "typecheck") continue;
    await t.step(
      `${where(block)} (${block.lang}${block.mode === "node" ? ", node" : ""})`,
      async () => {
        if (block.lang === "sh") return await runShell(block);
        if (block.lang === "json" || block.lang === "jsonc") return parseJson(block);
        await runInDeno(block, files.get(block)!);
        if (block.mode === "node") await runInNode(block, files.get(block)!);
      },
    );
  }
  await esbuild.stop();
  await removeDir(scripts);
});
