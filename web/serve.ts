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
import { serveFile } from "./static.ts";

export { securityHeaders, serveFile, VIEWER_CSP } from "./static.ts";

/** Default port. */
export const DEFAULT_PORT = 8787;

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
