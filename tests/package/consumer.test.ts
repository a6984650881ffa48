/**
 * The npm package as a consumer gets it: `npm pack` the repository, install the tarball
 * into an empty project, then use it from (a) Node, (b) Deno and (c) a browser bundle in
 * Chromium. Also: the tarball holds only the compiled package, installing it prints no
 * engine or install-script warning, and a browser bundle reaches no `node:` module.
 *
 * Run: `deno task test:package` (part of `npm test`).
 */
import "../browser/node_os_shim.ts"; // must run before playwright-core loads
import * as esbuild from "esbuild";
import { assert, assertEquals } from "../conformance/assert.ts";
import { launchChromium } from "../browser/harness.ts";
import { parseSessionJsonlSync } from "../../src/jsonl.ts";
import { buildSessionProjection } from "../../src/projection.ts";
import { SessionIndex } from "../../src/tree.ts";
import { entrySources, NPM_OUT_DIR } from "../../npm/exports.ts";
import { installConsumer, packedText, packRepository, ROOT, run } from "./kit.ts";
import { isRelativeTarget } from "../../npm/published.ts";

const FIXTURE = `${ROOT}fixtures/projection/interrupted-tool-call.jsonl`;
/**
 * The package's size unpacked: the compiled library, its declarations and the built viewer
 * (sqlite3.wasm is a quarter of it), without source maps.
 */
const MAX_UNPACKED_MIB = 3.75;

interface Created {
  jsonl: { id: string; file: string };
  sqlite: { id: string };
}
interface Listed {
  id: string;
  messageCount: number;
  firstMessage: string;
}
interface Reopened {
  reopened: { jsonl: string; sqlite: string };
  jsonl: Listed[];
  sqlite: Listed[];
}

/**
 * Run tests/package/app.mjs (copied into the project) twice with `runtime`, in two
 * processes: create, then reopen + list; check both stores kept both messages.
 */
async function roundTrip(project: string, runtime: string[], name: string): Promise<void> {
  const agentDir = `${project}/${name}-agent`, jsonlDir = `${project}/${name}-sessions`;
  const state = `${project}/${name}-state.json`;
  const env = { PI_CODING_AGENT_DIR: agentDir };
  const app = (mode: string) =>
    run(runtime[0], [...runtime.slice(1), "app.mjs", mode, jsonlDir, state], {
      cwd: project,
      env,
    });
  const created: Created = JSON.parse((await app("create")).stdout);
  assert(created.jsonl.file.startsWith(`${jsonlDir}/`), `JSONL file in ${jsonlDir}`);
  assert((await Deno.stat(`${agentDir}/sessions.db`)).isFile, "default SQLite store created");
  const after: Reopened = JSON.parse((await app("reopen")).stdout);
  assertEquals(after.reopened, { jsonl: created.jsonl.id, sqlite: created.sqlite.id });
  assertEquals(after.jsonl, [
    { id: created.jsonl.id, messageCount: 2, firstMessage: "first in jsonl" },
  ]);
  assertEquals(after.sqlite, [
    { id: created.sqlite.id, messageCount: 2, firstMessage: "first in sqlite" },
  ]);
}

/** The consumer's browser entry: project a session with the runtime-agnostic entry. */
const BROWSER_ENTRY = `
import { buildSessionProjection, parseSessionJsonlSync, SessionIndex } from "@mu/sessions/core";
globalThis.project = (text) => {
  const { entries } = parseSessionJsonlSync(text);
  const index = SessionIndex.build(entries);
  return JSON.parse(JSON.stringify(buildSessionProjection(entries, index.lastEntry?.id ?? null, index)));
};
`;

/** esbuild a browser bundle in the consumer project; returns its text and input files. */
async function bundleForBrowser(
  project: string,
  contents: string,
): Promise<{ text: string; inputs: string[] }> {
  const result = await esbuild.build({
    stdin: { contents, resolveDir: project, loader: "js" },
    absWorkingDir: project,
    bundle: true,
    platform: "browser",
    format: "esm",
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  return { text: result.outputFiles[0].text, inputs: Object.keys(result.metafile.inputs) };
}

Deno.test({
  name: "npm package: pack, install into an empty project, use from Node, Deno and a browser",
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  const work = await Deno.makeTempDir({ prefix: "mu-sessions-package-" });
  const project = `${work}/consumer`;
  let tarball = "";
  let packedFiles: string[] = [];
  const step = async (name: string, fn: () => Promise<void>) => {
    if (!await t.step(name, fn)) throw new Error(`step failed: ${name} (later steps need it)`);
  };
  try {
    await step("npm pack builds a tarball of the compiled package only", async () => {
      const packed = await packRepository(work);
      tarball = packed.tarball;
      packedFiles = packed.files;
      const stray = packed.files.filter((path) =>
        !path.startsWith(`${NPM_OUT_DIR}/`) &&
        !["package.json", "README.md", "LICENSE"].includes(path)
      );
      assertEquals(stray, [], "files outside dist/npm/ in the tarball");
      assert(packed.files.includes("LICENSE"), "the package carries its license");
      // Source maps carried every source again (half the package) for a minified viewer.
      assertEquals(packed.files.filter((path) => path.endsWith(".map")), [], "source maps");
      const mib = packed.unpackedBytes / 1024 / 1024;
      assert(mib <= MAX_UNPACKED_MIB, `${mib.toFixed(2)} MiB unpacked`);
      const sources = packed.files.filter((p) => p.endsWith(".ts") && !p.endsWith(".d.ts"));
      assertEquals(sources, [], "TypeScript sources in the tarball");
      for (
        const source of entrySources(
          JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`)).exports,
        )
      ) {
        const stem = `${NPM_OUT_DIR}/${source.slice(0, -3)}`;
        assert(packed.files.includes(`${stem}.js`), `${stem}.js missing from the tarball`);
        assert(packed.files.includes(`${stem}.d.ts`), `${stem}.d.ts missing from the tarball`);
      }
    });

    await step(
      "the packed manifest and README are a user's: no dev fields, no dead link",
      async () => {
        const manifest = JSON.parse(await packedText(tarball, "package.json"));
        assertEquals([manifest.scripts, manifest.devDependencies], [undefined, undefined]);
        assertEquals(
          manifest.exports,
          JSON.parse(await Deno.readTextFile(`${ROOT}package.json`)).exports,
        );
        for (const [name, range] of Object.entries(manifest.peerDependencies)) {
          assert(String(range).startsWith("^"), `${name}: ${range}`);
        }
        // Every relative link of the README and of the guides it links to is a packed file.
        const readmes = [
          "README.md",
          ...packedFiles.filter((path) => path.startsWith(`${NPM_OUT_DIR}/docs/`)),
        ];
        assert(readmes.length > 5, `the guides are packed: ${readmes.join(", ")}`);
        const dead: string[] = [];
        for (const file of readmes) {
          const text = await packedText(tarball, file);
          for (const [, target] of text.matchAll(/\]\(([^)\s]+)/g)) {
            if (!isRelativeTarget(target)) continue;
            const path = new URL(target.split("#")[0], `file:///${file}`).pathname.slice(1);
            if (!packedFiles.includes(decodeURI(path))) dead.push(`${file}: ${target}`);
          }
        }
        assertEquals(dead, [], "relative links to files the package does not hold");
        // The checkout's own files are back after the pack.
        assert(JSON.parse(await Deno.readTextFile(`${ROOT}package.json`)).scripts.prepack);
        assert((await Deno.readTextFile(`${ROOT}README.md`)).includes("](docs/viewer.png)"));
      },
    );

    await step("npm install of the tarball warns about nothing and runs no script", async () => {
      const { stdout, stderr } = await installConsumer(project, tarball);
      const printed = stdout + stderr;
      assert(!printed.includes("EBADENGINE"), `engine warning on install:\n${printed}`);
      assert(!printed.includes("install-scripts"), `install-script warning:\n${printed}`);
      const manifest = JSON.parse(
        await Deno.readTextFile(`${project}/node_modules/@mu/sessions/package.json`),
      );
      const hooks = ["preinstall", "install", "postinstall", "prepare"];
      assertEquals(hooks.filter((hook) => manifest.scripts?.[hook]), [], "install hooks");
      await Deno.copyFile(`${ROOT}tests/package/app.mjs`, `${project}/app.mjs`);
    });

    await t.step(
      "(a) Node: JSONL folder and default SQLite store, reopened by a second process",
      () => roundTrip(project, ["node"], "node"),
    );

    await t.step("(b) Deno: the same through the installed package", async () => {
      const denoConfig = { nodeModulesDir: "manual" };
      await Deno.writeTextFile(`${project}/deno.json`, JSON.stringify(denoConfig));
      await roundTrip(project, [Deno.execPath(), "run", "--allow-all"], "deno");
      // The declarations resolve: a typed consumer checks (and a wrong type would not).
      await Deno.writeTextFile(
        `${project}/typed.ts`,
        `import { SessionManager, type SessionInfo } from "@mu/sessions";\n` +
          `import { buildSessionProjection } from "@mu/sessions/core";\n` +
          `const manager: SessionManager = await SessionManager.create("/p", "./typed");\n` +
          `const id: string = manager.getSessionId();\n` +
          `const listed: SessionInfo[] = await SessionManager.list("/p", "./typed");\n` +
          `console.log(id, listed, buildSessionProjection);\n`,
      );
      await run(Deno.execPath(), ["check", "typed.ts"], { cwd: project });
    });

    await t.step(
      "(d) the mu command: import, ls, export --html and mu serve with the packaged viewer",
      async () => {
        const env = { PI_CODING_AGENT_DIR: `${work}/mu-agent`, PATH: Deno.env.get("PATH") ?? "" };
        const mu = `${project}/node_modules/.bin/mu`;
        await run(mu, ["import", FIXTURE], { cwd: project, env });
        const listed = JSON.parse(
          (await run(mu, ["ls", "--all", "--json"], { cwd: project, env })).stdout,
        );
        assertEquals(listed.sessions.length, 1);
        // The HTML export finds the renderer built into the package's viewer.
        const html = (await run(mu, ["export", listed.sessions[0].id, "--html"], {
          cwd: project,
          env,
        })).stdout;
        assert(html.includes("script-src 'sha256-") && html.includes('id="mu-session"'), html);
        const server = new Deno.Command(mu, {
          args: ["serve", "--port", "0"],
          cwd: project,
          env,
          stdout: "piped",
          stderr: "piped",
        }).spawn();
        try {
          const reader = server.stdout.pipeThrough(new TextDecoderStream()).getReader();
          let printed = "";
          while (!/http:\/\/\S+\//.test(printed)) {
            const { value, done } = await reader.read();
            assert(!done, `mu serve ended: ${printed}`);
            printed += value;
          }
          void reader.cancel().catch(() => {});
          const origin = new URL(printed.match(/http:\/\/\S+\//)![0]).origin;
          const page = await fetch(`${origin}/`);
          assert((await page.text()).includes("<script"), "the packaged viewer is served");
          const sessions = await (await fetch(`${origin}/api/sessions`)).json();
          assertEquals(sessions.sessions.length, 1);
        } finally {
          server.kill("SIGTERM");
          await server.status;
          await server.stderr.cancel().catch(() => {});
        }
      },
    );

    await t.step(
      "(c) browser: an esbuild bundle of @mu/sessions/core projects in Chromium",
      async () => {
        const bundle = await bundleForBrowser(project, BROWSER_ENTRY);
        assert(!/["']node:/.test(bundle.text), "the browser bundle imports a node: module");
        // A browser bundler resolving the main entry gets the core, not the Node entry.
        const main = await bundleForBrowser(project, `export * from "@mu/sessions";`);
        assert(main.inputs.some((path) => path.endsWith(`${NPM_OUT_DIR}/core.js`)), "core.js");
        assert(!main.inputs.some((path) => path.endsWith(`${NPM_OUT_DIR}/mod.js`)), "mod.js");
        assert(!/["']node:/.test(main.text), "the browser bundle of . imports a node: module");

        const text = await Deno.readTextFile(FIXTURE);
        const { entries } = parseSessionJsonlSync(text);
        const index = SessionIndex.build(entries);
        const expected = JSON.parse(JSON.stringify(
          buildSessionProjection(entries, index.lastEntry?.id ?? null, index),
        ));
        assert(
          expected.messages.some((m: { role: string; isError?: boolean }) =>
            m.role === "toolResult" && m.isError
          ),
          "the fixture's projection has a synthetic interrupted-call result",
        );
        const browser = await launchChromium();
        try {
          const page = await browser.newPage();
          await page.setContent("<!doctype html><title>consumer</title>");
          await page.addScriptTag({ content: bundle.text, type: "module" });
          await page.waitForFunction(() => "project" in globalThis, null, { timeout: 10_000 });
          const projected = await page.evaluate(
            (source) => (globalThis as unknown as { project(s: string): unknown }).project(source),
            text,
          );
          assertEquals(projected, expected, "projection in Chromium");
        } finally {
          await browser.close();
        }
      },
    );
  } finally {
    await esbuild.stop();
    await Deno.remove(work, { recursive: true });
  }
});
