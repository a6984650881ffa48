/**
 * A `(Request) => Response` handler served over `node:http`, which Deno and Node both
 * provide, so `mu serve` runs the same in both. The raw `Host` header reaches the handler
 * untouched (the same-origin guard depends on it), a client that goes away aborts
 * `request.signal`, and response bodies stream.
 *
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

/** A running server. */
export interface RunningServer {
  port: number;
  close(): Promise<void>;
}

/**
 * The request body as a web stream that reads from the socket only as fast as the handler
 * consumes (a few chunks ahead): an import parsed and stored as it arrives must not have
 * the rest of a fast upload piling up in memory meanwhile. Cancelling, or `stop`, ends
 * the stream's reading and leaves the rest to the lingering close below.
 */
function bodyStream(req: IncomingMessage): { stream: ReadableStream<Uint8Array>; stop(): void } {
  let open = true;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      req.pause();
      req.on("data", (chunk: Uint8Array) => {
        if (!open) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) req.pause();
      });
      req.on("end", () => {
        if (open) controller.close();
        open = false;
      });
      req.on("error", (error) => {
        if (open) controller.error(error);
        open = false;
      });
      req.on("close", () => {
        if (open) controller.error(new Error("the client closed the connection mid-upload"));
        open = false;
      });
    },
    pull() {
      req.resume();
    },
    cancel() {
      open = false;
      req.pause();
    },
  }, { highWaterMark: 4 });
  return { stream, stop: () => open = false };
}

/** The web request of `req`, and how to stop its body's reading. */
function toRequest(req: IncomingMessage, signal: AbortSignal): { request: Request; stop(): void } {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  // node:http keeps the first of repeated Host headers; pass them all so the guard sees them.
  const hostValues: string[] = [];
  for (let at = 0; at < req.rawHeaders.length; at += 2) {
    if (req.rawHeaders[at].toLowerCase() === "host") hostValues.push(req.rawHeaders[at + 1]);
  }
  if (hostValues.length > 1) {
    headers.delete("host");
    for (const value of hostValues) headers.append("host", value);
  }
  const body = req.method !== "GET" && req.method !== "HEAD" ? bodyStream(req) : undefined;
  // The URL's host is a placeholder: the real one is the Host header the guard checks.
  const request = new Request(`http://127.0.0.1${req.url ?? "/"}`, {
    method: req.method,
    headers,
    signal,
    body: body?.stream,
    // @ts-ignore: Node and Deno need duplex for streamed request bodies
    duplex: body ? "half" : undefined,
  });
  return { request, stop: () => body?.stop() };
}

async function send(response: Response, res: ServerResponse): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) return void res.end();
  const reader = response.body.getReader();
  res.on("close", () => void reader.cancel().catch(() => {}));
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await new Promise((resolve) => res.once("drain", resolve));
    }
  } catch {
    // The client went away mid-body.
  } finally {
    res.end();
  }
}

/** Discard what is still arriving for at most 2 s or 8 MiB, then close the socket. */
function lingerThenClose(req: IncomingMessage): void {
  let discarded = 0;
  const socket = req.socket; // node clears req.socket once the response is done
  const close = () => {
    clearTimeout(timer);
    socket?.destroy();
  };
  const timer = setTimeout(close, 2000);
  req.on("data", (chunk: Uint8Array) => {
    discarded += chunk.byteLength;
    if (discarded > 8 * 1024 * 1024) close();
  });
  req.on("end", close);
  req.resume();
}

/** Serve `handler` on `hostname:port` (0: any free port). Rejects when the port is taken. */
export function serveHttp(
  handler: (request: Request) => Promise<Response>,
  hostname: string,
  port: number,
): Promise<RunningServer> {
  const server = createServer(async (req, res) => {
    const abort = new AbortController();
    res.on("close", () => abort.abort());
    let response: Response;
    const { request, stop } = toRequest(req, abort.signal);
    try {
      response = await handler(request);
    } catch {
      response = new Response('{"error":"InternalError"}', { status: 500 });
    }
    // A refused upload (413, 403) is not read to its end: answer, then close the
    // connection. Closing at once would reset it while the client is still sending, and a
    // reset can destroy the answer before the client reads it, so the rest of the upload
    // is discarded for a short, bounded time first (as web servers' lingering close does).
    const unread = req.method !== "GET" && req.method !== "HEAD" && !req.complete;
    if (unread) response.headers.set("connection", "close");
    await send(response, res);
    if (unread && !req.complete) {
      stop();
      lingerThenClose(req);
    }
  });
  // node:http answers 408 to any request not received whole within 5 minutes, which cut a
  // large import off while it was being stored; an upload is bounded instead by the API's
  // idle timeout between chunks (and its size limit), headers by node's headersTimeout.
  server.requestTimeout = 0;
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, hostname, () => {
      const address = server.address();
      const actual = typeof address === "object" && address ? address.port : port;
      resolve({
        port: actual,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections?.();
            server.close(() => done());
          }),
      });
    });
  });
}
