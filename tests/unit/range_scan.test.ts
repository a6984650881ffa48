/**
 * The checking pass in ranges (src/range_scan.ts, `scanFile` in src/context_scan.ts): a
 * file cut into ranges at any byte, whatever order the ranges are checked in, gives exactly
 * what one pass over it gives (every column, the listing, every entry, the same resume
 * index), on files with CRLF, blank lines, a byte-order mark, no final newline, lines longer
 * than a range and order-dependent listing entries; and it never accepts what the full parser
 * rejects (seeded mutations). Ranges run on this thread here; `tests/jsonl/parallel_cases.ts`
 * runs them on worker threads. Runs under `deno test` and, bundled, under Node 20.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { serializeSessionJsonl, type SessionEntry } from "../../core.ts";
import { type ParallelScan, scanContext, type ScanFile } from "../../src/context_scan.ts";
import { scanLazy } from "../../src/lazy_scan.ts";
import { mutate } from "../stress/_mutate.ts";
import { Rng } from "../stress/_shared.ts";
import { generatedSession } from "./context_sessions.ts";
import { agrees, BLOCK, memoryFile } from "./scan_files.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

type Order = (count: number) => number[];
const forward: Order = (n) => [...Array(n).keys()];
const backward: Order = (n) => forward(n).reverse();
const shuffled = (seed: number): Order => (n) => {
  const rng = new Rng(seed);
  const order = forward(n);
  for (let i = n - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
};

/** `bytes` checked in ranges of `rangeBytes`, run on this thread in `order`. */
function rangedFile(
  bytes: Uint8Array,
  kept: { index?: Uint8Array },
  rangeBytes: number,
  order: Order,
) {
  const file = memoryFile(bytes, kept);
  const jobs = { count: 0 };
  const parallel: ParallelScan = {
    minBytes: 0,
    rangeBytes,
    async run(list, local) {
      jobs.count = list.length;
      const scans = new Array(list.length);
      for (const k of order(list.length)) scans[k] = await local(list[k]);
      return scans;
    },
  };
  return Object.assign(file, { parallel, size: () => Promise.resolve(bytes.length), jobs });
}

/**
 * Everything a lazy open of `file` (of `bytes`) holds, or undefined when it declined. Its
 * bodies are read by offset: a lazy open that keeps the bytes it reads checks in one pass.
 */
async function holds(file: ScanFile, bytes: Uint8Array) {
  const lazy = await scanLazy(file, {
    key: "a",
    readSync: (start, end) => bytes.slice(start, end),
  });
  if (!lazy) return undefined;
  const s = lazy.session;
  const bodies = s.ids.map((_, i) => s.read(i));
  return [s.header, s.ids, s.parents, s.flags, s.listing, s.labelPositions(), bodies];
}

/** The generated session with order-dependent listing entries spread through it. */
function layoutSource(): { header: string; lines: string[] } {
  const { header, entries } = generatedSession(260, 77);
  const out: SessionEntry[] = [];
  entries.forEach((entry, i) => {
    out.push(entry);
    const extra = { id: `x${i}`, parentId: entry.id, timestamp: entry.timestamp };
    if (i % 61 === 5) out.push({ ...extra, type: "session_info", name: `name ${i}` });
    if (i === 200) out.push({ ...extra, type: "session_info", name: "  " }); // clears the name
    if (i % 97 === 50) {
      out.push({
        ...extra,
        type: "session_summary",
        summary: `s${i}`,
        summarizedThroughId: entry.id,
      });
    }
    if (i === 150) out.push({ ...extra, type: "branch_summary", fromId: null, summary: "b" });
    if (i === 120) out.push({ ...extra, type: "label", targetId: entry.id, label: "L" });
  });
  const text = serializeSessionJsonl(header, out);
  const [first, ...lines] = text.trimEnd().split("\n");
  return { header: first, lines };
}

function layouts(): [string, Uint8Array][] {
  const { header, lines } = layoutSource();
  const long = JSON.parse(lines[40]);
  long.id = "long-one";
  long.parentId = JSON.parse(lines[39]).id;
  long.message = { role: "user", content: "x".repeat(9_000) }; // spans about nine ranges
  const withLong = [...lines.slice(0, 40), JSON.stringify(long), ...lines.slice(40)];
  return [
    ["plain", encoder.encode(`${header}\n${lines.join("\n")}\n`)],
    ["CRLF", encoder.encode(`${header}\r\n${lines.join("\r\n")}\r\n`)],
    ["blank lines", encoder.encode(`${header}\n\n${lines.join("\n\n  \n")}\n\n`)],
    ["byte-order mark", encoder.encode(`\ufeff${header}\n${lines.join("\n")}\n`)],
    ["no final newline", encoder.encode(`${header}\n${lines.join("\n")}`)],
    ["a line longer than a range", encoder.encode(`${header}\n${withLong.join("\n")}\n`)],
  ];
}

test("a file checked in ranges, in any order, holds exactly what one pass holds", async () => {
  for (const [name, bytes] of layouts()) {
    const single: { index?: Uint8Array } = {};
    const expected = await holds(memoryFile(bytes, single), bytes);
    assert.ok(expected, `${name}: one pass accepts it`);
    const orders: [string, Order][] = [["forward", forward], ["backward", backward]];
    orders.push(["shuffled", shuffled(bytes.length)]);
    for (const rangeBytes of [BLOCK, 3 * BLOCK, 7 * BLOCK]) {
      for (const [orderName, order] of orders) {
        const what = `${name}, ranges of ${rangeBytes}, ${orderName}`;
        const kept: { index?: Uint8Array } = {};
        const file = rangedFile(bytes, kept, rangeBytes, order);
        assert.deepStrictEqual(await holds(file, bytes), expected, what);
        assert.ok(file.jobs.count >= Math.floor(bytes.length / rangeBytes), `${what}: in ranges`);
        // The same index, digests joined from the ranges (or none without a final newline).
        assert.deepStrictEqual(kept.index, single.index, `${what}: index`);
        assert.equal(
          await agrees(rangedFile(bytes, {}, rangeBytes, order), bytes, undefined, what),
          "answered",
        );
      }
    }
  }
});

test("an index written from ranges resumes like one written by one pass", async () => {
  const [, bytes] = layouts()[0];
  const kept: { index?: Uint8Array } = {};
  await holds(rangedFile(bytes, kept, 2 * BLOCK, shuffled(3)), bytes);
  const again = memoryFile(bytes, kept);
  assert.ok(await holds(again, bytes));
  assert.equal(again.counts.streamed, 0, "nothing is checked again");
});

test("ranges never accept what the full parser rejects (seeded mutations)", async () => {
  const sources = layouts().map(([, bytes]) => bytes);
  const rng = new Rng(20261202);
  const verdicts: Record<string, number> = {};
  for (let round = 0; round < 120; round++) {
    const { bytes, steps } = mutate(rng, sources);
    const what = `round ${round}: ${steps.join(", ")}`;
    const rangeBytes = BLOCK * (1 + rng.int(4));
    const file = rangedFile(bytes, {}, rangeBytes, shuffled(round));
    const verdict = await agrees(file, bytes, undefined, what);
    verdicts[verdict] = (verdicts[verdict] ?? 0) + 1;
    // And the ranges decide as one pass decides.
    const one = (await scanContext(memoryFile(bytes, {}), undefined)) !== undefined;
    assert.equal(verdict === "answered", one, `${what}: as one pass`);
  }
  assert.ok(verdicts.answered > 10 && verdicts.declined > 10, JSON.stringify(verdicts));
});

test("a duplicate id or a parent written later is found across ranges", async () => {
  const [, bytes] = layouts()[0];
  const lines = decoder.decode(bytes).trimEnd().split("\n");
  const early = JSON.parse(lines[3]);
  const late = JSON.parse(lines.at(-1)!);
  const duplicate = [...lines, JSON.stringify({ ...late, id: early.id })].join("\n") + "\n";
  // A parent written after its child (no cycle: the parent is a new root at the end).
  const forwardRef = [...lines, JSON.stringify({ ...late, id: "late-root", parentId: null })];
  forwardRef[5] = JSON.stringify({ ...JSON.parse(lines[5]), parentId: "late-root" });
  for (const text of [duplicate, forwardRef.join("\n") + "\n"]) {
    const broken = encoder.encode(text);
    assert.equal(await scanContext(rangedFile(broken, {}, BLOCK, backward), undefined), undefined);
    assert.equal(await scanContext(memoryFile(broken, {}), undefined), undefined);
  }
});
