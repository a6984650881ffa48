/**
 * Starts the edge handler inside the real runtimes it claims, for tests/edge/ and the bench:
 * workerd (Cloudflare's runtime, npm `workerd`) from a generated config, and Vercel's
 * edge-runtime (npm `edge-runtime`) under Node, each on a loopback port with a 128 MB V8
 * heap. Both run tests/edge/worker.ts, the README's Cloudflare Worker, bundled by esbuild
 * exactly as wrangler would (ESM, no `node:` imports).
 *
 * @module
 */
import * as esbuild from "esbuild";

const ROOT = new URL("../../", import.meta.url).pathname;
/**
 * The native workerd binary of this platform's package. Not `.bin/workerd`: without its
 * postinstall (denied in allowScripts) that is a Node shim that spawns the binary, and
 * stopping the shim left the binary running, serving, after every test run.
 */
function workerdBinary(): string {
  const os = { linux: "linux", darwin: "darwin", windows: "windows" }[Deno.build.os as string];
  const arch = Deno.build.arch === "aarch64" ? "arm64" : "64";
  const native = `${ROOT}node_modules/@cloudflare/workerd-${os}-${arch}/bin/workerd`;
  try {
    if (Deno.statSync(native).isFile) return native;
  } catch { /* another layout: fall back to the package's launcher */ }
  return `${ROOT}node_modules/.bin/workerd`;
}
const WORKERD = workerdBinary();
/** The compatibility date the README's wrangler.toml names, and the tests run. */
export const COMPATIBILITY_DATE = "2025-09-01";
/**
 * workerd's first date: before 2022-11-30 there is no `new ReadableStream` and a
 * `TransformStream`'s transformer is ignored; the handler needs neither.
 */
export const OLD_COMPATIBILITY_DATE = "2021-11-03";

/** The heap every runtime gets: Cloudflare's and Vercel's per-isolate memory. */
export const HEAP_MB = 128;

/** A started runtime: its base URL, and how to stop it. */
export interface Runtime {
  name: string;
  url: string;
  /** The runtime's process (for its CPU time in the bench). */
  pid: number;
  /** Whether the process is still running (a dead isolate takes workerd with it). */
  alive(): boolean;
  stop(): Promise<void>;
}

/** The worker's bindings, as text (wrangler.toml `[vars]`). */
export type WorkerEnv = Record<string, string>;

/** tests/edge/worker.ts (or `entry`) bundled: an ES module, or an IIFE for edge-runtime. */
export async function bundleWorker(
  format: "esm" | "iife",
  entry = `${ROOT}tests/edge/worker.ts`,
): Promise<string> {
  const result = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    format,
    globalName: format === "iife" ? "__worker" : undefined,
    platform: "neutral",
    mainFields: ["module", "main"],
    conditions: ["workerd", "worker", "edge-light"],
    minify: true,
    write: false,
    logLevel: "silent",
  });
  return result.outputFiles[0].text;
}

/** Stops esbuild's service (Deno's test sanitizer wants no open child). */
export function stopBundler(): Promise<void> {
  return esbuild.stop();
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

async function waitForPort(port: number, child: Deno.ChildProcess, log: () => string) {
  for (let i = 0; i < 200; i++) {
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port })).close();
      return;
    } catch {
      await new Promise((tick) => setTimeout(tick, 50));
    }
  }
  child.kill();
  throw new Error(`the runtime did not listen on ${port}: ${log()}`);
}

/** Collects a child's output (for failures) without blocking it. */
function drain(stream: ReadableStream<Uint8Array>, into: string[]) {
  const decoder = new TextDecoder();
  (async () => {
    for await (const chunk of stream) into.push(decoder.decode(chunk, { stream: true }));
  })().catch(() => {});
}

function handle(name: string, url: string, child: Deno.ChildProcess, dir?: string): Runtime {
  let exited = false;
  const status = child.status.then((s) => (exited = true, s));
  return {
    name,
    url,
    pid: child.pid,
    alive: () => !exited,
    async stop() {
      if (!exited) child.kill("SIGTERM");
      await status;
      if (dir) await Deno.remove(dir, { recursive: true });
    },
  };
}

const capnpText = (value: string) => JSON.stringify(value); // capnp text literals are JSON-like

/**
 * workerd serving `bundle` (an ES module worker) with `env` as text bindings, outbound
 * fetches allowed to loopback (the tests' object storage), V8 heap capped at {@link HEAP_MB}.
 */
export async function startWorkerd(
  bundle: string,
  env: WorkerEnv,
  compatibilityDate: string,
): Promise<Runtime> {
  const dir = await Deno.makeTempDir({ prefix: "mu-workerd-" });
  await Deno.writeTextFile(`${dir}/worker.js`, bundle);
  const port = freePort();
  const bindings = Object.entries(env)
    .map(([name, value]) => `(name = ${capnpText(name)}, text = ${capnpText(value)})`)
    .join(", ");
  await Deno.writeTextFile(
    `${dir}/config.capnp`,
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = (
      modules = [(name = "worker.js", esModule = embed "worker.js")],
      compatibilityDate = ${capnpText(compatibilityDate)},
      bindings = [${bindings}],
      globalOutbound = "net",
    )),
    (name = "net", network = (allow = ["public", "private", "local"])),
  ],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
  v8Flags = ["--max-old-space-size=${HEAP_MB}"],
);
`,
  );
  const output: string[] = [];
  const child = new Deno.Command(WORKERD, {
    args: ["serve", `${dir}/config.capnp`],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  drain(child.stdout, output);
  drain(child.stderr, output);
  await waitForPort(port, child, () => output.join(""));
  return handle(`workerd ${compatibilityDate}`, `http://127.0.0.1:${port}`, child, dir);
}

/** Vercel's edge-runtime under Node with a {@link HEAP_MB} heap, serving `bundle` (IIFE). */
export async function startEdgeRuntime(bundle: string, env: WorkerEnv): Promise<Runtime> {
  const dir = await Deno.makeTempDir({ prefix: "mu-edge-runtime-" });
  await Deno.writeTextFile(`${dir}/worker.js`, bundle);
  const child = new Deno.Command("node", {
    args: [
      `--max-old-space-size=${HEAP_MB}`,
      `${ROOT}tests/edge/edge_runtime_server.mjs`,
      `${dir}/worker.js`,
      JSON.stringify(env),
    ],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const errors: string[] = [];
  drain(child.stderr, errors);
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let first = "";
  while (!first.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`edge-runtime did not start: ${errors.join("")}`);
    first += value;
  }
  (async () => { // keep reading, so a chatty runtime never blocks on a full pipe
    while (!(await reader.read()).done);
  })().catch(() => {});
  return handle("edge-runtime", `http://127.0.0.1:${first.trim()}`, child, dir);
}
