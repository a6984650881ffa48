/**
 * The Cloudflare Worker of the README, run as-is by tests/edge/runtimes.test.ts inside workerd
 * and Vercel's edge-runtime: projects a session POSTed to it, or fetched with `?url=` from
 * the one object-storage origin in `SESSIONS_ORIGIN` (an R2 public bucket or S3 URL).
 * The optional limit variables exist for the tests (and for tuning without a redeploy).
 *
 * @module
 */
import { createProjectionHandler } from "../../web/edge.ts";

/** The worker's bindings (wrangler.toml `[vars]`). */
export interface Env {
  SESSIONS_ORIGIN: string;
  MAX_BYTES?: string;
  TIMEOUT_MS?: string;
  BODY_TIMEOUT_MS?: string;
  MAX_CONCURRENT?: string;
  MAX_QUEUED?: string;
}

const num = (value?: string) => value ? Number(value) : undefined;
let handler: ((request: Request) => Promise<Response>) | undefined;

export default {
  fetch(request: Request, env: Env): Promise<Response> {
    handler ??= createProjectionHandler({
      allowUrl: (url) => url.origin === env.SESSIONS_ORIGIN, // the allowlist: one bucket
      maxBytes: num(env.MAX_BYTES),
      timeoutMs: num(env.TIMEOUT_MS),
      bodyTimeoutMs: num(env.BODY_TIMEOUT_MS),
      maxConcurrent: num(env.MAX_CONCURRENT),
      maxQueued: num(env.MAX_QUEUED),
    });
    return handler(request);
  },
};
