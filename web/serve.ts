/**
 * Serve the built viewer (`dist/web/`) on 127.0.0.1, building it first when it is
 * missing or older than its sources. Every response carries
 * `Cross-Origin-Opener-Policy: same-origin` and `Cross-Origin-Embedder-Policy:
 * require-corp`, so the page is cross-origin isolated and sqlite-wasm's `opfs` VFS is
 * available. Port: `--port N`, else env `MU_VIEWER_PORT` or `PORT`, else 8787; when that
 * port is taken a free one is used. Prints the URL.
 *
 * Usage: `deno run --allow-read --allow-write --allow-env --allow-run --allow-net web/serve.ts [--port 8787] [--rebuild]`
 *
 * @module
 */
import { buildIsStale, buildViewer, DEFAULT_OUT_DIR } from "./build.ts";

/** Default port. */
export const DEFAULT_PORT = 8787;

const MIME: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  json: "application/json; charset=utf-8",
  jsonl: "application/jsonl; charset=utf-8",
  map: "application/json; charset=utf-8",
  wasm: "application/wasm",
  txt: "text/plain; charset=utf-8",
  png: "image/png",
  ico: "image/x-icon",
};

/** Options for {@link startViewerServer}. */
export interface ViewerServerOptions {
  /** Folder to serve (default `dist/web`). */
  root?: string;
  /** Port to try first (0: any free port). Default {@link DEFAULT_PORT}. */
  port?: number;
  /** Default `127.0.0.1`. */
  hostname?: string;
}

/** A running viewer server. */
export interface ViewerServer {
  /** `http://127.0.0.1:<port>/` */
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * The page's Content-Security-Policy, also sent as a header so it covers the worker (a
 * `<meta>` policy does not) and can forbid framing. `wasm-unsafe-eval` lets sqlite-wasm
 * compile; nothing may be fetched from another origin.
 */
export const VIEWER_CSP = [
  "default-src 'none'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "worker-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data: blob:",
  "style-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** The headers every response gets: isolation, CSP, no sniffing, no stale builds. */
export function securityHeaders(): Headers {
  return new Headers({
    "content-security-policy": VIEWER_CSP,
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-embedder-policy": "require-corp",
    "cross-origin-resource-policy": "same-origin",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": "no-cache",
  });
}

/** Answer one request from `root` (GET/HEAD only, no path escapes). */
export async function serveFile(root: string, request: Request): Promise<Response> {
  const headers = securityHeaders();
  if (request.method !== "GET" && request.method !== "HEAD") {
    headers.set("allow", "GET, HEAD");
    return new Response("method not allowed", { status: 405, headers });
  }
  let path: string;
  try {
    path = decodeURIComponent(new URL(request.url).pathname);
  } catch {
    return new Response("bad path", { status: 400, headers });
  }
  if (path.endsWith("/")) path += "index.html";
  const parts = path.split("/");
  if (parts.includes("..") || path.includes("\0") || path.includes("\\")) {
    return new Response("bad path", { status: 400, headers });
  }
  try {
    const file = `${root}${path}`;
    const info = await Deno.stat(file);
    if (!info.isFile) return new Response("not found", { status: 404, headers });
    const ext = path.slice(path.lastIndexOf(".") + 1).toLowerCase();
    headers.set("content-type", Object.hasOwn(MIME, ext) ? MIME[ext] : "application/octet-stream");
    headers.set("content-length", String(info.size));
    if (request.method === "HEAD") return new Response(null, { headers });
    const handle = await Deno.open(file, { read: true });
    return new Response(handle.readable, { headers });
  } catch {
    return new Response("not found", { status: 404, headers });
  }
}

/**
 * Start serving. Falls back to a free port when the wanted one is in use.
 *
 * @example
 * ```ts
 * import { startViewerServer } from "./serve.ts";
 * const server = await startViewerServer({ port: 0 });
 * console.log(server.url);
 * await server.close();
 * ```
 */
export async function startViewerServer(options: ViewerServerOptions = {}): Promise<ViewerServer> {
  const root = (options.root ?? DEFAULT_OUT_DIR).replace(/\/+$/, "");
  const hostname = options.hostname ?? "127.0.0.1";
  const handler = (request: Request) => serveFile(root, request);
  const listen = (port: number) => Deno.serve({ hostname, port, onListen: () => {} }, handler);
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = listen(options.port ?? DEFAULT_PORT);
  } catch (error) {
    if (!(error instanceof Deno.errors.AddrInUse)) throw error;
    server = listen(0);
  }
  const port = server.addr.port;
  await Promise.resolve();
  return { url: `http://${hostname}:${port}/`, port, close: () => server.shutdown() };
}

function portFromArgs(args: string[]): number | undefined {
  const at = args.findIndex((a) => a === "--port" || a.startsWith("--port="));
  const raw = at < 0
    ? Deno.env.get("MU_VIEWER_PORT") ?? Deno.env.get("PORT")
    : args[at].includes("=")
    ? args[at].split("=")[1]
    : args[at + 1];
  if (raw === undefined) return undefined;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid port ${raw}`);
  return port;
}

if (import.meta.main) {
  const args = Deno.args;
  if (args.includes("--rebuild") || await buildIsStale()) {
    console.log("building the viewer…");
    await buildViewer();
  }
  const wanted = portFromArgs(args) ?? DEFAULT_PORT;
  const server = await startViewerServer({ port: wanted });
  if (wanted !== 0 && server.port !== wanted) {
    console.warn(
      `port ${wanted} is in use, so this runs on ${server.port}. A different port is a different ` +
        `origin: sessions imported at port ${wanted} are not visible here.`,
    );
  }
  console.log(`mu sessions viewer: ${server.url}`);
  console.log("(cross-origin isolated: SQLite on OPFS is available; Ctrl+C to stop)");
}
