/**
 * The range reader inside the runtimes it claims: the README's Cloudflare Worker
 * (tests/edge/worker.ts), bundled, in workerd and Vercel's edge-runtime (128 MB heaps),
 * against a loopback object storage with Range support and one that ignores Range
 * (tests/edge/range_storage.ts). Each indexed fixture's range answer equals the whole-body
 * answer of the same bytes in the same runtime (both forms, a few leaves each), a 10k-entry
 * session is answered from a counted fraction of its bytes, and a flipped byte or an object
 * replaced mid-read is the typed JSON error.
 */
import { buildExportIndex, serializeExportIndex } from "../../src/export_index.ts";
import { parseSessionJsonlSync } from "../../core.ts";
import { generatedSession } from "../unit/context_sessions.ts";
import { startRangeStorage } from "./range_storage.ts";
import { exportFiles, indexedExports } from "./range_exports.ts";
import {
  bundleWorker,
  COMPATIBILITY_DATE,
  OLD_COMPATIBILITY_DATE,
  type Runtime,
  startEdgeRuntime,
  startWorkerd,
  stopBundler,
} from "./runtimes.ts";

function assert(condition: unknown, message = "assertion failed"): asserts condition {
  if (!condition) throw new Error(message);
}

const encoder = new TextEncoder();

Deno.test({
  name: "range reads in workerd and edge-runtime: whole-body bytes, counted fetches, typed errors",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const storage = startRangeStorage();
    const exports = await indexedExports(await exportFiles());
    for (const { name, bytes, index } of exports) {
      storage.put(name, bytes);
      storage.put(`${name}.idx`, serializeExportIndex(index));
      storage.put(`whole/${name}`, bytes);
    }
    const session = generatedSession(10_000, 11);
    const big = encoder.encode(
      [session.header, ...session.entries].map((line) => JSON.stringify(line)).join("\n") + "\n",
    );
    const bigIndex = await buildExportIndex(big);
    storage.put("gen.jsonl", big);
    storage.put("gen.jsonl.idx", serializeExportIndex(bigIndex));
    storage.put("whole/gen.jsonl", big);
    const flipped = big.slice();
    flipped[big.length - 10] ^= 1;
    storage.put("flipped.jsonl", flipped);
    storage.put("flipped.jsonl.idx", serializeExportIndex(bigIndex));

    const [esm, iife] = [await bundleWorker("esm"), await bundleWorker("iife")];
    await stopBundler();
    const env = { SESSIONS_ORIGIN: storage.origin };
    const runtimes: Runtime[] = [];
    try {
      for (
        const start of [
          () => startWorkerd(esm, env, COMPATIBILITY_DATE),
          () => startWorkerd(esm, env, OLD_COMPATIBILITY_DATE),
          () => startEdgeRuntime(iife, env),
        ]
      ) {
        const runtime = await start();
        runtimes.push(runtime);
        const ask = async (query: string) => {
          const response = await fetch(`${runtime.url}/?${query}`);
          return { status: response.status, text: await response.text() };
        };
        const same = async (name: string, query: string, prefix = "o") => {
          const want = await ask(`url=${storage.origin}/o/whole/${name}${query}`);
          const got = await ask(`url=${storage.origin}/${prefix}/${name}${query}`);
          assert(
            got.status === want.status && got.text === want.text,
            `${runtime.name} ${name}${query}: ${got.status} ${got.text.slice(0, 200)}\n${
              want.text.slice(0, 200)
            }`,
          );
        };
        await t.step(`${runtime.name}: indexed fixtures answer the whole-body bytes`, async () => {
          for (const { name, bytes } of exports) {
            const ids = parseSessionJsonlSync(bytes).entries.map((entry) => entry.id);
            const leaves = ["", ...ids.slice(0, 2), ...ids.slice(-2)].map((id) =>
              id ? `&leaf=${encodeURIComponent(id)}` : ""
            );
            for (const leaf of leaves) {
              for (const form of ["", "&form=compact"]) await same(name, `${leaf}${form}`);
            }
          }
        });
        await t.step(`${runtime.name}: 10k entries from a fraction of the bytes`, async () => {
          storage.reset();
          await same("gen.jsonl", "&form=compact");
          const served = storage.served("gen.jsonl");
          assert(served.ranges.length === served.requests, `${runtime.name}: not by ranges`);
          assert(served.bytes < big.length * 0.1, `${served.bytes} of ${big.length} bytes`);
          await same("gen.jsonl", "", "plain"); // a server that ignores Range
        });
        await t.step(`${runtime.name}: a flipped byte is 502, a replaced object 409`, async () => {
          const flippedAnswer = await ask(`url=${storage.origin}/o/flipped.jsonl`);
          assert(flippedAnswer.status === 502, flippedAnswer.text);
          assert(JSON.parse(flippedAnswer.text).error === "ExportIndexMismatch");
          storage.reset();
          storage.onRequest = (name, count) => {
            if (name === "gen.jsonl" && count === 2) {
              storage.put(name, new Uint8Array([...big, ...encoder.encode("\n")]));
            }
          };
          const moved = await ask(`url=${storage.origin}/o/gen.jsonl`);
          storage.onRequest = undefined;
          storage.put("gen.jsonl", big);
          assert(moved.status === 409, `${runtime.name}: ${moved.status} ${moved.text}`);
          assert(JSON.parse(moved.text).error === "ExportChanged");
        });
        assert(runtime.alive(), `${runtime.name} died`);
      }
    } finally {
      for (const runtime of runtimes) await runtime.stop();
      await storage.stop();
    }
  },
});
