/**
 * Object storage for the range-reader tests, on loopback: serves in-memory objects the way
 * R2 and S3 do (`Accept-Ranges: bytes`, a single `Range` answered 206 with `Content-Range`,
 * a strong `ETag` per object version, `If-Match` answered 412 when the version changed,
 * several ranges in one request refused with 416), and under `/plain/` the same objects from
 * a server that ignores Range (200 with the whole body). Counts requests and body bytes sent
 * per object, and lets a test replace an object between two requests.
 *
 * @module
 */
import { serveHttp } from "../../cli/http_server.ts";

/** An object and its version (the ETag changes with every replacement). */
interface StoredObject {
  bytes: Uint8Array;
  version: number;
}

/** What the storage served for one object name. */
export interface Served {
  requests: number;
  bytes: number;
  ranges: string[];
}

/** A started storage: put objects, read counts, stop. */
export interface RangeStorage {
  origin: string;
  /** Store (or replace) an object at `/o/<name>` (and `/plain/<name>`). */
  put(name: string, bytes: Uint8Array | string): void;
  remove(name: string): void;
  /** Called before answering each request for `name` (its request number, from 1). */
  onRequest?: (name: string, count: number) => void;
  served(name: string): Served;
  /** Answer a request in-process, as the server would (no network: for CPU measures). */
  fetch(request: Request): Response;
  reset(): void;
  stop(): Promise<void>;
}

const encoder = new TextEncoder();

/** Starts the storage on a free loopback port (`Deno.serve`). */
export function startRangeStorage(): RangeStorage {
  const storage = rangeObjects();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, storage.fetch);
  storage.origin = `http://127.0.0.1:${server.addr.port}`;
  storage.stop = () => server.shutdown();
  return storage;
}

/** The same storage served over `node:http`, which Deno and Node both run. */
export async function serveRangeStorage(): Promise<RangeStorage> {
  const storage = rangeObjects();
  const running = await serveHttp(async (request) => storage.fetch(request), "127.0.0.1", 0);
  storage.origin = `http://127.0.0.1:${running.port}`;
  storage.stop = () => running.close();
  return storage;
}

/** The objects and their answers, not yet served. */
function rangeObjects(): RangeStorage {
  const objects = new Map<string, StoredObject>();
  let stats = new Map<string, Served>();
  let generation = 0;
  const statsOf = (name: string) => {
    let served = stats.get(name);
    if (!served) stats.set(name, served = { requests: 0, bytes: 0, ranges: [] });
    return served;
  };
  const storage: RangeStorage = {
    origin: "",
    put(name, bytes) {
      const data = typeof bytes === "string" ? encoder.encode(bytes) : bytes;
      objects.set(name, { bytes: data, version: ++generation });
    },
    remove: (name) => void objects.delete(name),
    served: (name) => statsOf(name),
    reset() {
      stats = new Map();
    },
    stop: () => Promise.resolve(),
    fetch: (request) => answer(request),
  };
  const answer = (request: Request): Response => {
    const path = new URL(request.url).pathname;
    const plain = path.startsWith("/plain/");
    if (!plain && !path.startsWith("/o/")) return new Response("not found", { status: 404 });
    const name = decodeURIComponent(path.slice(plain ? 7 : 3));
    const served = statsOf(name);
    served.requests++;
    storage.onRequest?.(name, served.requests);
    const object = objects.get(name);
    if (!object) return new Response("no such key", { status: 404 });
    const etag = `"v${object.version}"`;
    const headers = new Headers({ etag, "content-type": "application/octet-stream" });
    const send = (status: number, body: Uint8Array) => {
      served.bytes += body.length;
      return new Response(body as Uint8Array<ArrayBuffer>, { status, headers });
    };
    const range = request.headers.get("range");
    if (plain || range === null) return send(200, object.bytes);
    headers.set("accept-ranges", "bytes");
    const ifMatch = request.headers.get("if-match");
    if (ifMatch !== null && ifMatch !== etag) return new Response(null, { status: 412, headers });
    served.ranges.push(range);
    const match = /^bytes=(\d+)-(\d*)$/.exec(range);
    const size = object.bytes.length;
    if (!match || Number(match[1]) >= size) {
      headers.set("content-range", `bytes */${size}`);
      return new Response(null, { status: 416, headers });
    }
    const start = Number(match[1]);
    const end = Math.min(size - 1, match[2] === "" ? size - 1 : Number(match[2]));
    headers.set("content-range", `bytes ${start}-${end}/${size}`);
    return send(206, object.bytes.subarray(start, end + 1));
  };
  return storage;
}
