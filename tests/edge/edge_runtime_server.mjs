// Runs the bundled worker (an IIFE defining `globalThis.__worker`) inside Vercel's
// edge-runtime (npm `edge-runtime`, the runtime `vercel dev` and Next.js middleware use) on a
// loopback port, and prints that port. Started by tests/edge/runtimes.ts under Node with
// `--max-old-space-size=128`, the platform's 128 MB. Args: <bundle.js> <env JSON>.
import { readFileSync } from "node:fs";
import { EdgeRuntime, runServer } from "edge-runtime";

const [bundle, env] = process.argv.slice(2);
const runtime = new EdgeRuntime({
  initialCode: `${readFileSync(bundle, "utf8")}
const ENV = ${env};
addEventListener("fetch", (event) => event.respondWith(__worker.default.fetch(event.request, ENV)));`,
});
const server = await runServer({ runtime, host: "127.0.0.1", port: 0 });
console.log(new URL(server.url).port);
