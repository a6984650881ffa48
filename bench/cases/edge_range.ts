/**
 * The edge handler reading an indexed export by HTTP Range (issue 30), on the generated 100k
 * session served by a loopback object storage with Range support (tests/edge/range_storage.ts):
 * bytes fetched for the default leaf's context / file size, index size / JSONL size, wall time
 * of the range answer against the whole-body answer of the same export (the handler in Deno,
 * where the whole body fits), the handler's own CPU per answer (in-process, the storage
 * answering from memory with no network, split into reading and writing the answer), and CPU
 * per answer in workerd with a 128 MB heap (the process's CPU over several answers, its HTTP
 * included, index fetched each time). Run with `deno task bench --only=edge-range`.
 *
 * @module
 */
import type { Row } from "../jobs.ts";
import { cpuMs, median } from "./edge.ts";
import { ensureSession } from "../generate.ts";
import { cpuUsage } from "node:process";
import {
  buildExportIndex,
  EXPORT_INDEX_BLOCK_SIZE,
  EXPORT_INDEX_VERSION,
  parseExportIndex,
  serializeExportIndex,
} from "../../src/export_index.ts";
import { createProjectionHandler } from "../../web/edge.ts";
import { type RangeStorage, startRangeStorage } from "../../tests/edge/range_storage.ts";
import {
  bundleWorker,
  COMPATIBILITY_DATE,
  startWorkerd,
  stopBundler,
} from "../../tests/edge/runtimes.ts";

/**
 * The range rows on the session of `entries` entries; `huge`: only whether workerd answers it
 * under a 128 MB heap (the whole-body comparison would need the whole file in memory).
 */
export async function runEdgeRangeBench(
  entries = 100_000,
  seed?: number,
  huge = false,
): Promise<Row[]> {
  const base = { section: "edge", runtime: "deno" as const, subject: `${entries} entries` };
  const data = await ensureSession(entries, seed);
  const bytes = await Deno.readFile(data.file);
  // Per index version: bench data is shared between trees that may write another version.
  const indexPath = `${data.file}.v${EXPORT_INDEX_VERSION}.idx`;
  let indexText = await Deno.readTextFile(indexPath).catch(() => undefined);
  if (!indexText) {
    indexText = serializeExportIndex(await buildExportIndex(bytes));
    await Deno.writeTextFile(indexPath, indexText);
  }
  const storage = startRangeStorage();
  storage.put("s.jsonl", bytes);
  storage.put("s.jsonl.idx", indexText);
  storage.put("whole/s.jsonl", bytes);
  const rows: Row[] = [];
  try {
    const handler = createProjectionHandler({
      allowUrl: (url) => url.origin === storage.origin,
      maxBytes: 2 * bytes.length,
      timeoutMs: 600_000,
    });
    const answer = async (path: string) => {
      const t = performance.now();
      const response = await handler(
        new Request(`http://edge/?url=${storage.origin}/o/${path}&form=compact`),
      );
      const text = await response.text();
      if (response.status !== 200) throw new Error(`${path}: ${response.status} ${text}`);
      return { ms: performance.now() - t, text };
    };
    storage.reset();
    const first = await answer("s.jsonl");
    const served = storage.served("s.jsonl");
    rows.push({
      ...base,
      name: "range bytes fetched / file",
      medianMs: served.bytes / bytes.length,
      facts: { bytesFetched: served.bytes, fileBytes: bytes.length, requests: served.requests },
    });
    rows.push({
      ...base,
      name: "export index / JSONL",
      medianMs: indexText.length / bytes.length,
      facts: { indexBytes: indexText.length, fileBytes: bytes.length },
    });
    const whole: number[] = [], ranged: number[] = [];
    for (let i = 0; i < (huge ? 0 : 3); i++) {
      const w = await answer("whole/s.jsonl");
      if (w.text !== first.text) throw new Error("the range answer differs from the whole body");
      whole.push(w.ms);
      ranged.push((await answer("s.jsonl")).ms);
    }
    if (!huge) {
      rows.push({
        ...base,
        name: "range answer wall / whole-body answer",
        medianMs: median(ranged) / median(whole),
        samples: ranged.map((ms, i) => ms / whole[i]),
        facts: { rangeMs: median(ranged), wholeMs: median(whole) },
      });
    }

    rows.push(await handlerCpuRow(storage, first.text, base));

    const esm = await bundleWorker("esm");
    await stopBundler();
    const runtime = await startWorkerd(
      esm,
      { SESSIONS_ORIGIN: storage.origin },
      COMPATIBILITY_DATE,
    );
    try {
      const url = `${runtime.url}/?url=${storage.origin}/o/s.jsonl&form=compact`;
      const once = async () => {
        const response = await fetch(url);
        const text = await response.text();
        if (response.status !== 200) throw new Error(`workerd: ${response.status} ${text}`);
        return text;
      };
      if (await once() !== first.text) throw new Error("workerd's range answer differs");
      if (huge) {
        rows.push({
          ...base,
          subject: `workerd 128 MB, ${entries} entries (${Math.round(bytes.length / 2 ** 20)} MB)`,
          name: "largest indexed session answered MB",
          medianMs: runtime.alive() ? bytes.length / 2 ** 20 : 0,
          facts: { fileBytes: bytes.length, indexBytes: indexText.length },
        });
      }
      const runs = huge ? 3 : 10;
      const before = await cpuMs(runtime.pid);
      const t = performance.now();
      for (let i = 0; i < runs; i++) await once();
      const wallMs = (performance.now() - t) / runs;
      rows.push({
        ...base,
        subject: `workerd 128 MB, ${entries} entries`,
        name: "CPU ms per range answer, index fetched",
        medianMs: (await cpuMs(runtime.pid) - before) / runs,
        facts: { wallMs, alive: runtime.alive() ? 1 : 0 },
      });
    } finally {
      await runtime.stop();
    }
  } finally {
    await storage.stop();
  }
  return rows;
}

/** CPU ms of this process (user + system) since `start`. */
const cpuSince = (start: NodeJS.CpuUsage) => {
  const used = cpuUsage(start);
  return (used.user + used.system) / 1000;
};

/**
 * The handler's own CPU per range answer: the handler and the storage in this process, the
 * storage answering from memory (no sockets), so the CPU is the handler's work plus slicing
 * the stored bytes. Split into the read (index fetch and parse, ranges, block digests, line
 * parse, projection: until the handler returns its Response) and the write (the answer's JSON
 * streamed out); two of the read's phases are measured on their own for the facts.
 */
async function handlerCpuRow(
  storage: RangeStorage,
  expected: string,
  base: Omit<Row, "name" | "medianMs">,
): Promise<Row> {
  const handler = createProjectionHandler({
    allowUrl: () => true,
    fetch: (input, init) => Promise.resolve(storage.fetch(new Request(input, init))),
    maxBytes: 1 << 30,
    timeoutMs: 600_000,
  });
  const url = `${storage.origin}/o/s.jsonl`;
  const reads: number[] = [], writes: number[] = [], totals: number[] = [];
  for (let i = 0; i < 8; i++) {
    const start = cpuUsage();
    const response = await handler(new Request(`http://edge/?url=${url}&form=compact`));
    const read = cpuSince(start);
    const text = await response.text();
    const total = cpuSince(start);
    if (text !== expected) throw new Error("the in-process range answer differs");
    if (i < 2) continue; // warm-up
    reads.push(read), writes.push(total - read), totals.push(total);
  }
  storage.reset();
  await handler(new Request(`http://edge/?url=${url}&form=compact`)).then((r) => r.text());
  const fetched = storage.served("s.jsonl").bytes;
  const indexBytes = storage.served("s.jsonl.idx").bytes;
  const indexText = await storage.fetch(new Request(`${url}.idx`)).text();
  const jsonl = await storage.fetch(
    new Request(url, { headers: { range: `bytes=0-${fetched - 1}` } }),
  )
    .bytes();
  const parseMs: number[] = [], hashMs: number[] = [];
  for (let i = 0; i < 5; i++) {
    let start = cpuUsage();
    parseExportIndex(indexText);
    parseMs.push(cpuSince(start));
    start = cpuUsage();
    for (let at = 0; at < jsonl.length; at += EXPORT_INDEX_BLOCK_SIZE) {
      await crypto.subtle.digest("SHA-256", jsonl.subarray(at, at + EXPORT_INDEX_BLOCK_SIZE));
    }
    hashMs.push(cpuSince(start));
  }
  return {
    ...base,
    subject: `handler in-process (no network), ${base.subject}`,
    name: "handler CPU ms per range answer, index fetched",
    medianMs: median(totals),
    samples: totals,
    facts: {
      readMs: median(reads),
      writeAnswerMs: median(writes),
      indexParseMs: median(parseMs),
      blockHashMs: median(hashMs),
      indexBytes,
      bytesFetched: fetched,
      answerBytes: expected.length,
    },
  };
}
