/**
 * The fuzzer's cases, run in a worker so the parent's watchdog can stop a hung case. Per
 * case: parse the mutated bytes in memory (bytes, and the string when they are UTF-8) and
 * from a stream of random chunks, and require the same outcome; only library errors may be
 * thrown. For accepted input: serialise and parse again (with and without the kept raw
 * text) to the same data; project the branch; export through a memory store; upgrade the
 * raw records directly without mutating them. After every case Object.prototype must be
 * as it was. The worker writes the running case number to a shared counter.
 *
 * @module
 */
import {
  buildContextEntries,
  buildSessionProjection,
  exportSessionJsonl,
  MemorySessionStore,
  type ParsedSession,
  parseSessionJsonl,
  parseSessionJsonlSync,
  serializeSessionJsonl,
  SessionError,
  SessionFormatError,
} from "../../core.ts";
import { upgradeRecords } from "../../src/_migrate.ts";
import { chunkedStream, mutate, type Mutated } from "./_mutate.ts";
import { deriveSeed, Rng } from "./_shared.ts";

/** What the parent sends. */
export interface FuzzJob {
  seed: number;
  from: number;
  count: number;
  corpus: Uint8Array[];
  /** Int32Array view: [0] = the case running now. */
  progress: SharedArrayBuffer;
}

/** One failed check. */
export interface FuzzFailure {
  message: string;
}

/** What the worker answers. */
export interface FuzzResult {
  accepted: number;
  rejected: number;
  /** Rejected for nesting deeper than MAX_NESTING_DEPTH (finding 6 exercised). */
  tooDeep: number;
  failures: FuzzFailure[];
}

type Outcome = { ok: true; parsed: ParsedSession } | { ok: false; error: unknown };

// ignoreBOM keeps a leading BOM in the string, as a caller reading the file as text has it.
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const prototypeKeys = () =>
  [Object.prototype, Array.prototype, Function.prototype]
    .map((proto) => Object.getOwnPropertyNames(proto).sort().join(","))
    .join("|");
const cleanPrototypes = prototypeKeys();

async function outcome(run: () => Promise<ParsedSession> | ParsedSession): Promise<Outcome> {
  try {
    return { ok: true, parsed: await run() };
  } catch (error) {
    return { ok: false, error };
  }
}

function describe(result: Outcome): string {
  if (result.ok) return `accepted (${result.parsed.entries.length} entries)`;
  const error = result.error as Error & { byteOffset?: number };
  return `${error?.name}: ${error?.message} @${error?.byteOffset}`;
}

/** Names the finding a stack overflow (too deep a nesting got through) regresses. */
const deep = (error: unknown) => error instanceof RangeError ? " (issue 11 finding 6)" : "";

/** A canonical text of parsed data, or why there is none (too deep to serialise). */
function canonical(value: unknown): string {
  return JSON.stringify(value);
}

/** The parser's reason for a record nested past MAX_NESTING_DEPTH. */
const TOO_DEEP = /^SessionFormatError: .*deeper than \d+ levels/;

async function runCase(
  index: number,
  seed: number,
  corpus: Uint8Array[],
  fail: (f: FuzzFailure) => void,
): Promise<"accepted" | "rejected" | "too deep"> {
  const rng = new Rng(deriveSeed(seed, `fuzz ${index}`));
  const input: Mutated = mutate(rng, corpus);
  const label = `fuzz case ${index} [${input.steps.join("; ")}]`;
  const bad = (what: string) => fail({ message: `${label}: ${what}` });

  const fromBytes = await outcome(() => parseSessionJsonlSync(input.bytes));
  const fromStream = await outcome(() => parseSessionJsonl(chunkedStream(rng, input.bytes)));
  const results = [fromBytes, fromStream];
  let text: string | undefined;
  try {
    text = utf8.decode(input.bytes);
  } catch {
    // not UTF-8: only the byte paths apply
  }
  if (text !== undefined) results.push(await outcome(() => parseSessionJsonlSync(text!)));
  // One report per case: the three paths are compared below.
  const unexpected = results.find((result) =>
    !result.ok && !(result.error instanceof SessionError)
  );
  if (unexpected && !unexpected.ok) {
    const error = unexpected.error as Error;
    // Issue 11 finding 6: nesting past MAX_NESTING_DEPTH is a SessionFormatError at parse,
    // so a RangeError (a recursive path overflowing) is a regression.
    bad(`parse threw ${error?.name}: ${error?.message}${deep(error)}`);
  }
  const seen = results.map(describe);
  if (new Set(seen).size > 1) bad(`bytes, stream and string disagree: ${seen.join(" | ")}`);

  if (input.pureTruncation && !fromBytes.ok && fromBytes.error instanceof SessionFormatError) {
    const sourceOk = await outcome(() => parseSessionJsonlSync(input.source));
    // Issue 11 finding 10: a record cut inside a multi-byte character is torn, not invalid.
    if (sourceOk.ok && /UTF-8/.test(fromBytes.error.reason)) {
      bad(`a cut record is reported as "${fromBytes.error.reason}", not torn (finding 10)`);
    }
  }
  if (!fromBytes.ok) return TOO_DEEP.test(describe(fromBytes)) ? "too deep" : "rejected";
  await acceptedChecks(rng, fromBytes.parsed, input.bytes, bad);
  return "accepted";
}

async function acceptedChecks(
  rng: Rng,
  parsed: ParsedSession,
  bytes: Uint8Array,
  bad: (what: string) => void,
): Promise<void> {
  const { header, entries } = parsed;
  let before: string;
  try {
    before = canonical({ header, entries });
  } catch (error) {
    // Issue 11 finding 6: what parses is never too deep for consumers to copy or encode.
    return bad(`accepted data cannot be JSON-encoded: ${error}${deep(error)}`);
  }
  // Round trips: the kept raw text, and plain JSON (what stores without raw text export).
  for (const retainRaw of [true, false]) {
    const again = await outcome(() => {
      const first = retainRaw ? parsed : parseSessionJsonlSync(bytes, { retainRaw: false });
      return parseSessionJsonlSync(serializeSessionJsonl(first.header, first.entries));
    });
    if (!again.ok) bad(`round trip (retainRaw ${retainRaw}) rejected: ${describe(again)}`);
    else if (canonical({ header: again.parsed.header, entries: again.parsed.entries }) !== before) {
      bad(`round trip (retainRaw ${retainRaw}) changed the data`);
    }
  }
  // Projection of the last entry's branch and of a random (maybe unknown) leaf.
  const leaves = [undefined, null, entries.length ? rng.pick(entries).id : "missing", "nope"];
  for (const leaf of leaves) {
    try {
      const projection = buildSessionProjection(entries, leaf);
      buildContextEntries(entries, leaf);
      canonical(projection);
    } catch (error) {
      if (!(error instanceof SessionError)) bad(`projection threw ${error}${deep(error)}`);
    }
  }
  // Export through a store and back.
  try {
    const store = new MemorySessionStore();
    await store.create(header, entries);
    const exported = parseSessionJsonlSync(await exportSessionJsonl(store, header.id));
    if (canonical({ header: exported.header, entries: exported.entries }) !== before) {
      bad("export through a memory store changed the data");
    }
  } catch (error) {
    if (!(error instanceof SessionError)) bad(`export threw ${error}${deep(error)}`);
  }
  // Upgrade of the raw records straight from the file never mutates them.
  const records = new TextDecoder().decode(bytes).split("\n").filter((line) => line.trim())
    .map((line) => JSON.parse(line.replace(/^\uFEFF/, "")));
  const raw = canonical(records);
  const version = rng.pick([undefined, null, 1, 2, 3, 4, 5, "3", 3.5]);
  const head = version === undefined ? records[0] : { ...records[0], version };
  try {
    upgradeRecords(head, records.slice(1));
  } catch (error) {
    if (!(error instanceof SessionFormatError)) bad(`upgradeRecords threw ${error}`);
  }
  if (canonical(records) !== raw) bad("upgradeRecords mutated its input");
}

self.onmessage = async (event: MessageEvent<FuzzJob>) => {
  const { seed, from, count, corpus, progress } = event.data;
  const current = new Int32Array(progress);
  const result: FuzzResult = { accepted: 0, rejected: 0, tooDeep: 0, failures: [] };
  const fail = (failure: FuzzFailure) => {
    if (result.failures.length < 200) result.failures.push(failure);
  };
  for (let index = from; index < from + count; index++) {
    Atomics.store(current, 0, index);
    try {
      const verdict = await runCase(index, seed, corpus, fail);
      if (verdict === "accepted") result.accepted++;
      else result.rejected++;
      if (verdict === "too deep") result.tooDeep++;
    } catch (error) {
      fail({ message: `fuzz case ${index}: the harness itself threw ${error}` });
    }
    if (prototypeKeys() !== cleanPrototypes || "polluted" in {} || "x" in {}) {
      fail({ message: `fuzz case ${index}: a built-in prototype was polluted` });
      break;
    }
  }
  self.postMessage(result);
};
