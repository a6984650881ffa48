/**
 * Bundling and serving for browser tests (see `harness.ts`, which re-exports all of this):
 * esbuild bundles of page and worker entries with the sqlite-wasm files next to them, and
 * a 127.0.0.1 static server with the right MIME types and optional cross-origin isolation.
 *
 * @example
 * ```ts
 * import { bundleBrowserEntries, serveDirectory } from "./static.ts";
 * const root = await bundleBrowserEntries({ name: "demo", pages: ["tests/browser/pages/smoke_page.ts"] });
 * const server = serveDirectory({ root, isolated: false });
 * await server.close();
 * ```
 *
 * @module
 */

/**
 * The repository root (absolute, with a trailing slash).
 *
 * @example
 * ```ts
 * import { REPO_ROOT } from "./static.ts";
 * const worker = `${REPO_ROOT}stores/browser/opfs_worker.ts`;
 * ```
 */
export const REPO_ROOT: string = new URL("../../", import.meta.url).pathname;

const SQLITE_WASM_DIST = `${REPO_ROOT}node_modules/@sqlite.org/sqlite-wasm/dist/`;

/**
 * Options for {@link bundleBrowserEntries}.
 *
 * @example
 * ```ts
 * import type { BundleOptions } from "./static.ts";
 * const options: BundleOptions = { name: "viewer", pages: ["web/main.ts"], workers: ["web/worker.ts"] };
 * ```
 */
export interface BundleOptions {
  /** Output folder name under `dist/browser/` (wiped first). */
  name: string;
  /** Page entries (repo-relative or absolute); each also gets `<basename>.html`. */
  pages?: string[];
  /** Worker and other entries: bundled next to the pages, no HTML. */
  workers?: string[];
  /** Extra files copied as-is into the output folder. */
  copy?: string[];
  /** Copy `sqlite3.wasm` + `sqlite3-opfs-async-proxy.js` next to the bundles (default true). */
  sqliteAssets?: boolean;
  /** Extra esbuild CLI flags (e.g. `--minify`, `--define:X=Y`). */
  esbuildArgs?: string[];
}

function basenameOf(path: string): string {
  const file = path.slice(path.lastIndexOf("/") + 1);
  return file.replace(/\.[cm]?[jt]sx?$/, "");
}

function absolute(path: string): string {
  return path.startsWith("/") ? path : `${REPO_ROOT}${path}`;
}

/**
 * Bundle browser entries (platform browser, ESM, flat output) into `dist/browser/<name>/`,
 * write an HTML page per page entry, and copy the sqlite-wasm files esbuild cannot see.
 * Returns the absolute output folder.
 *
 * @example
 * ```ts
 * import { bundleBrowserEntries } from "./harness.ts";
 * const dir = await bundleBrowserEntries({
 *   name: "stores", pages: ["tests/browser/pages/stores_page.ts"], workers: ["stores/browser/opfs_worker.ts"],
 * });
 * ```
 */
export async function bundleBrowserEntries(options: BundleOptions): Promise<string> {
  const outdir = `${REPO_ROOT}dist/browser/${options.name}`;
  await Deno.remove(outdir, { recursive: true }).catch(() => {});
  await Deno.mkdir(outdir, { recursive: true });
  const pages = (options.pages ?? []).map(absolute);
  const entries = [...pages, ...(options.workers ?? []).map(absolute)];
  const names = entries.map(basenameOf);
  const clash = names.find((name, i) => names.indexOf(name) !== i);
  if (clash) throw new Error(`two bundle entries are both named "${clash}"`);
  if (entries.length) {
    const { code, stderr } = await new Deno.Command(`${REPO_ROOT}node_modules/.bin/esbuild`, {
      args: [
        ...entries,
        "--bundle",
        "--platform=browser",
        "--format=esm",
        "--target=chrome120",
        "--sourcemap=inline",
        "--log-level=warning",
        `--outdir=${outdir}`,
        "--entry-names=[name]",
        ...(options.esbuildArgs ?? []),
      ],
      cwd: REPO_ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (code !== 0) {
      throw new Error(`esbuild failed (exit ${code}):\n${new TextDecoder().decode(stderr)}`);
    }
  }
  for (const page of pages) {
    const name = basenameOf(page);
    await Deno.writeTextFile(
      `${outdir}/${name}.html`,
      `<!doctype html>\n<meta charset="utf-8">\n<title>${name}</title>\n` +
        `<script type="module" src="./${name}.js"></script>\n`,
    );
  }
  if (options.sqliteAssets ?? true) {
    for (const file of ["sqlite3.wasm", "sqlite3-opfs-async-proxy.js"]) {
      await Deno.copyFile(`${SQLITE_WASM_DIST}${file}`, `${outdir}/${file}`);
    }
  }
  for (const file of options.copy ?? []) {
    const source = absolute(file);
    await Deno.copyFile(source, `${outdir}/${source.slice(source.lastIndexOf("/") + 1)}`);
  }
  return outdir;
}

const MIME_TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  mjs: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  json: "application/json",
  jsonl: "application/jsonl; charset=utf-8",
  map: "application/json",
  wasm: "application/wasm",
  txt: "text/plain; charset=utf-8",
  svg: "image/svg+xml",
  png: "image/png",
};

/**
 * Options for {@link serveDirectory}.
 *
 * @example
 * ```ts
 * import type { ServeOptions } from "./static.ts";
 * const options: ServeOptions = { root: "/tmp/out", isolated: false };
 * ```
 */
export interface ServeOptions {
  /** Absolute folder to serve. */
  root: string;
  /**
   * Send COOP `same-origin` + COEP `require-corp` (default true): pages become
   * `crossOriginIsolated`, which the sqlite-wasm `opfs` VFS needs. `false` tests the
   * `opfs-sahpool` path that works without them.
   */
  isolated?: boolean;
  /** Port (default 0: any free port). Different ports are different origins (storage). */
  port?: number;
}

/**
 * A running static server.
 *
 * @example
 * ```ts
 * import { serveDirectory } from "./static.ts";
 * const server = serveDirectory({ root: "/tmp/out" });
 * console.log(`${server.url}/index.html`);
 * await server.close();
 * ```
 */
export interface ServedDirectory {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Serve a folder on 127.0.0.1 with correct MIME types (wasm included), no caching, and
 * optionally the cross-origin isolation headers.
 *
 * @example
 * ```ts
 * import { serveDirectory } from "./harness.ts";
 * const server = serveDirectory({ root: "/work/main/dist/browser/stores", isolated: false });
 * console.log(server.url);
 * await server.close();
 * ```
 */
export function serveDirectory(options: ServeOptions): ServedDirectory {
  const root = options.root.replace(/\/+$/, "");
  const isolated = options.isolated ?? true;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: options.port ?? 0, onListen: () => {} },
    async (request) => {
      const headers = new Headers({ "cache-control": "no-store" });
      if (isolated) {
        headers.set("cross-origin-opener-policy", "same-origin");
        headers.set("cross-origin-embedder-policy", "require-corp");
        headers.set("cross-origin-resource-policy", "same-origin");
      }
      let path = decodeURIComponent(new URL(request.url).pathname);
      if (path.endsWith("/")) path += "index.html";
      // Browsers ask for it on every page; a 404 would only add noise to the page log.
      if (path === "/favicon.ico") return new Response(null, { status: 204, headers });
      if (path.split("/").includes("..")) return new Response("bad path", { status: 400, headers });
      try {
        const body = await Deno.readFile(`${root}${path}`);
        const ext = path.slice(path.lastIndexOf(".") + 1).toLowerCase();
        headers.set("content-type", MIME_TYPES[ext] ?? "application/octet-stream");
        return new Response(body, { headers });
      } catch {
        return new Response(`not found: ${path}`, { status: 404, headers });
      }
    },
  );
  const port = server.addr.port;
  return { url: `http://127.0.0.1:${port}`, port, close: () => server.shutdown() };
}
