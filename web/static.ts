/**
 * Serving the built viewer as static files, the same way from `mu serve` (Deno or Node)
 * and the test servers: the security headers every response carries (CSP, cross-origin
 * isolation so sqlite-wasm's `opfs` VFS is available, no sniffing, no framing) and a file
 * handler that refuses path escapes. Uses `node:fs`, which Deno and Node both provide.
 *
 * @module
 */
import { open, stat } from "node:fs/promises";

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
    const info = await stat(file);
    if (!info.isFile()) return new Response("not found", { status: 404, headers });
    const ext = path.slice(path.lastIndexOf(".") + 1).toLowerCase();
    headers.set("content-type", Object.hasOwn(MIME, ext) ? MIME[ext] : "application/octet-stream");
    headers.set("content-length", String(info.size));
    if (request.method === "HEAD") return new Response(null, { headers });
    const handle = await open(file, "r");
    return new Response(fileStream(handle), { headers });
  } catch {
    return new Response("not found", { status: 404, headers });
  }
}

type FileHandle = Awaited<ReturnType<typeof open>>;

/** A file's bytes as a web stream that closes the handle when done or cancelled. */
function fileStream(handle: FileHandle): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    type: "bytes",
    async pull(controller) {
      const buffer = new Uint8Array(64 * 1024);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) {
        await handle.close();
        controller.close();
      } else {
        controller.enqueue(buffer.subarray(0, bytesRead));
      }
    },
    async cancel() {
      await handle.close();
    },
  });
}
