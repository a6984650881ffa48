/**
 * Whether the checking pass's ISO-8859-1 shortcut (`ByteText`, `stores/jsonl/_byte_text.ts`)
 * pays: the first open of the 100k session (`SessionManager.open` + `buildSessionContext()`,
 * no resume index) with and without it, in pairs alternated in one process so a busy
 * machine slows both alike; prints one JSON line. The rule it answers: the shortcut stays
 * only while it saves at least a tenth of a first open on Deno and on Node.
 *
 * `deno run -A bench/byte_text_ab.ts [<session meta.json>] [pairs]`; on Node, bundle it as
 * `bench/run_node.ts` does. The meta file is the one `deno task bench` generates for the
 * 100k session (`dist/bench-data/v<N>-s<seed>/session-100000.meta.json`).
 * @module
 */
import { readFileSync } from "node:fs";
import process from "node:process";
import { SessionManager } from "../core.ts";
import { NodeJsonlFolderFs } from "../stores/jsonl/fs.ts";
import { JsonlSessionStore } from "../stores/jsonl/store.ts";
import { attachBackend, backendOf } from "../stores/jsonl/_backend.ts";

const [metaPath, pairsArg] = process.argv.slice(2);
const meta = JSON.parse(readFileSync(metaPath, "utf8")) as { dir: string; sessionId: string };
const pairs = Number(pairsArg ?? 7);

async function firstOpen(shortcut: boolean): Promise<number> {
  const fs = new NodeJsonlFolderFs(meta.dir, { trashCommand: false });
  const backend = backendOf(fs);
  attachBackend(fs, { ...backend, byteText: shortcut ? backend.byteText : undefined });
  const store = new JsonlSessionStore(fs, { resumeIndex: false });
  const started = performance.now();
  (await SessionManager.open(store, meta.sessionId)).buildSessionContext();
  const ms = performance.now() - started;
  await store.close();
  return ms;
}

await firstOpen(true);
await firstOpen(false);
const saved: number[] = [];
const runs: [number, number][] = [];
for (let i = 0; i < pairs; i++) {
  const first = i % 2 === 0;
  const a = await firstOpen(first);
  const b = await firstOpen(!first);
  const [withMs, withoutMs] = first ? [a, b] : [b, a];
  runs.push([Math.round(withMs), Math.round(withoutMs)]);
  saved.push(1 - withMs / withoutMs);
}
saved.sort((x, y) => x - y);
console.log(JSON.stringify({
  runtime: "Deno" in globalThis ? "deno" : "node",
  pairs: runs,
  medianSaved: Number(saved[saved.length >> 1].toFixed(3)),
}));
