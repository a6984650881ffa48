/**
 * The edge handler inside workerd with a 128 MB heap (issue 17): the largest linear session
 * it projects, the compact answer's size against the body, CPU per MB of body (the workerd
 * process's own CPU time, from /proc: workerd freezes clocks inside a request), the bundle's
 * minified + gzip size, and the bundle's cold top-level evaluation (a fresh Node process per
 * sample, V8 like workerd). Run with `deno task bench --only=edge`.
 *
 * @module
 */
import type { Row } from "../jobs.ts";
import { linearSessionChunks } from "../../tests/edge/linear.ts";
import { rawPost } from "../../tests/edge/raw_http.ts";
import {
  bundleWorker,
  COMPATIBILITY_DATE,
  startWorkerd,
  stopBundler,
} from "../../tests/edge/runtimes.ts";
import * as esbuild from "esbuild";

const MB = 1024 * 1024;
const ROOT = new URL("../../", import.meta.url).pathname;

/** User + system CPU time of a process so far, in ms (Linux). */
export async function cpuMs(pid: number): Promise<number> {
  // Through `cat`: Deno reads /proc only with --allow-all, the bench has --allow-run.
  const stat = await new Deno.Command("cat", { args: [`/proc/${pid}/stat`], stdout: "piped" })
    .output();
  const fields = new TextDecoder().decode(stat.stdout).split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10; // clock ticks of 10 ms
}

/** The middle value. */
export const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];

/** Reads the body and answers as many bytes: workerd's HTTP work for one projection. */
const FLOOR_WORKER = `export default { async fetch(request) {
  const reader = request.body.getReader();
  let bytes = 0;
  for (;;) { const { done, value } = await reader.read(); if (done) break; bytes += value.length; }
  return new Response(new Uint8Array(bytes));
} };`;

/** The workerd process's CPU ms per MB of a linear session POSTed to `path`, 3 samples. */
async function workerdCpuPerMb(bundle: string, mb: number, path: string): Promise<number[]> {
  const runtime = await startWorkerd(
    bundle,
    { SESSIONS_ORIGIN: "https://none.example" },
    COMPATIBILITY_DATE,
  );
  try {
    const perMb: number[] = [];
    for (let i = 0; i < 4; i++) { // the first warms the JIT up
      const before = await cpuMs(runtime.pid);
      const answer = await rawPost(`${runtime.url}${path}`, linearSessionChunks(mb * MB, "cpu"));
      const used = await cpuMs(runtime.pid) - before;
      if (answer.status !== 200) throw new Error(`cpu run answered ${answer.status}`);
      if (i > 0) perMb.push(used / (answer.sent / MB));
    }
    return perMb;
  } finally {
    await runtime.stop();
  }
}

/** The edge handler's figures; `sizesMb` are tried in order until one fails. */
export async function runEdgeBench(sizesMb = [40, 64, 96], cpuMb = 16): Promise<Row[]> {
  const base = { section: "edge", runtime: "deno" as const };
  const rows: Row[] = [];
  const esm = await bundleWorker("esm");
  const lib = await esbuild.build({
    entryPoints: [`${ROOT}web/edge.ts`],
    bundle: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    minify: true,
    write: false,
  });
  await stopBundler();
  const libBytes = lib.outputFiles[0].contents;
  const gzip = await new Response(
    new Blob([libBytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
      new CompressionStream("gzip"),
    ),
  ).arrayBuffer();
  rows.push({
    ...base,
    subject: "web/edge.ts bundle",
    name: "minified + gzip KB",
    medianMs: gzip.byteLength / 1024,
    facts: { rawKB: Math.round(libBytes.length / 1024), gzipBytes: gzip.byteLength },
  });

  // Cold top-level evaluation: import the bundle in a fresh process, 5 times.
  const dir = await Deno.makeTempDir({ prefix: "mu-edge-bench-" });
  await Deno.writeFile(`${dir}/edge.mjs`, libBytes);
  await Deno.writeTextFile(
    `${dir}/cold.mjs`,
    "const t = performance.now(); await import('./edge.mjs'); console.log(performance.now() - t);",
  );
  const cold: number[] = [];
  for (let i = 0; i < 5; i++) {
    const out = await new Deno.Command("node", { args: [`${dir}/cold.mjs`], stdout: "piped" })
      .output();
    cold.push(Number(new TextDecoder().decode(out.stdout)));
  }
  await Deno.remove(dir, { recursive: true });
  rows.push({
    ...base,
    subject: "web/edge.ts bundle",
    name: "cold top-level eval",
    medianMs: median(cold),
    samples: cold,
  });

  // Largest session and answer size: one workerd per size (a death ends the series).
  let largest = 0;
  for (const mb of sizesMb) {
    const runtime = await startWorkerd(
      esm,
      { SESSIONS_ORIGIN: "https://none.example", MAX_BYTES: String(1024 * MB) },
      COMPATIBILITY_DATE,
    );
    try {
      const answer = await rawPost(
        `${runtime.url}/?form=compact`,
        linearSessionChunks(mb * MB, "bench"),
      );
      const ok = answer.status === 200 && runtime.alive();
      rows.push({
        ...base,
        subject: `workerd 128 MB, linear ${mb} MB`,
        name: "compact answer / body",
        medianMs: ok ? answer.text.length / answer.sent : undefined,
        error: ok ? undefined : `status ${answer.status}, alive ${runtime.alive()}`,
        facts: { bodyBytes: answer.sent, answerBytes: answer.text.length },
      });
      if (!ok) break;
      largest = mb;
    } finally {
      await runtime.stop();
    }
  }
  rows.push({
    ...base,
    subject: "workerd 128 MB",
    name: "largest linear session MB",
    medianMs: largest,
    facts: { tried: sizesMb.join(",") },
  });

  // CPU per MB: the workerd process's CPU per request. Locally that includes workerd's own
  // HTTP work (receiving the body, sending the answer), which Cloudflare does not count as
  // the Worker's CPU time; a floor worker that only reads the body and answers as many
  // bytes measures it, and the target row is the handler less that floor.
  const handlerMs = await workerdCpuPerMb(esm, cpuMb, "/?form=compact");
  const floorMs = await workerdCpuPerMb(FLOOR_WORKER, cpuMb, "/");
  rows.push({
    ...base,
    subject: `workerd, linear ${cpuMb} MB, compact, with HTTP`,
    name: "CPU ms per MB of body, process",
    medianMs: median(handlerMs),
    samples: handlerMs,
    facts: { httpFloorMsPerMb: median(floorMs) },
  });
  rows.push({
    ...base,
    subject: `workerd, linear ${cpuMb} MB, compact`,
    name: "CPU ms per MB of body",
    medianMs: median(handlerMs) - median(floorMs),
    facts: { processMsPerMb: median(handlerMs), httpFloorMsPerMb: median(floorMs) },
  });
  return rows;
}
