/**
 * The end of a session file, checked before anything is appended: the older
 * implementations glued new records onto a torn or unterminated last line and lost both
 * (anchor notes §1.2). Also the explicit repair of such a file.
 *
 * @module
 */
import { SessionNotFoundError, SessionStorageError } from "../../src/errors.ts";
import { parseSessionJsonl } from "../../src/jsonl.ts";
import type { Durability, FileStat, JsonlFolderFs } from "./_folder.ts";

/**
 * How a file ends.
 *
 * @example
 * ```ts
 * import { type TailState } from "./_tail.ts";
 * declare const tail: TailState;
 * if (tail.kind === "torn") console.log("torn record at byte", tail.start);
 * ```
 */
export type TailState =
  | { kind: "empty" }
  | { kind: "newline" }
  /** The last line is a complete JSON object without a `\n` (accepted by readers). */
  | { kind: "complete"; start: number }
  /** The last line is cut off: not valid JSON, no `\n`. */
  | { kind: "torn"; start: number };

const BACK_CHUNK = 64 * 1024;

/**
 * Inspect the last line of a file of `size` bytes. Reads one byte when the file ends in
 * `\n` (the normal case), otherwise back to the previous `\n`.
 *
 * @example
 * ```ts
 * import { inspectTail } from "./_tail.ts";
 * import { NodeJsonlFolderFs } from "@mu/sessions/stores/jsonl";
 * const fs = new NodeJsonlFolderFs("/tmp/sessions");
 * const tail = await inspectTail(fs, "a.jsonl", (await fs.stat("a.jsonl"))!.size);
 * ```
 */
export async function inspectTail(
  fs: JsonlFolderFs,
  path: string,
  size: number,
): Promise<TailState> {
  if (size === 0) return { kind: "empty" };
  const last = await fs.read(path, size - 1, size);
  if (last[0] === 10) return { kind: "newline" };
  const parts: Uint8Array[] = [];
  let start = size;
  let total = 0;
  while (start > 0) {
    const from = Math.max(0, start - BACK_CHUNK);
    const chunk = await fs.read(path, from, start);
    const newline = chunk.lastIndexOf(10);
    if (newline !== -1) {
      parts.unshift(chunk.subarray(newline + 1));
      total += chunk.length - newline - 1;
      start = from + newline + 1;
      break;
    }
    parts.unshift(chunk);
    total += chunk.length;
    start = from;
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes).replace(/^\uFEFF/, "");
  } catch {
    return { kind: "torn", start };
  }
  if (text.trim() === "") return { kind: "newline" }; // trailing blank characters are harmless
  try {
    const value = JSON.parse(text.endsWith("\r") ? text.slice(0, -1) : text);
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      return { kind: "complete", start };
    }
  } catch {
    // fall through: torn
  }
  return { kind: "torn", start };
}

/**
 * Appending was refused because the file ends in a torn record (a cut-off write). Nothing
 * was written. Run `repairSession` (it keeps a backup) to drop the torn record.
 *
 * @example
 * ```ts
 * import { TornTailError } from "@mu/sessions/stores/jsonl";
 * const error = new TornTailError("/s/x.jsonl", 120);
 * error instanceof Error; // true (and a SessionStorageError)
 * ```
 */
export class TornTailError extends SessionStorageError {
  override name = "TornTailError";
  /** The file (as shown to people). */
  readonly path: string;
  /** Where the torn record starts. */
  readonly byteOffset: number;
  constructor(path: string, byteOffset: number) {
    super(
      `${path} ends in a torn record at byte ${byteOffset} (an earlier write was cut off); nothing was appended. Run repairSession() on it to drop the torn record (a backup is kept).`,
    );
    this.path = path;
    this.byteOffset = byteOffset;
  }
}

/**
 * Append `lines` (complete, `\n`-terminated records) to a file of `size` bytes, under the
 * caller's lock: refuse after a torn record ({@link TornTailError}); terminate a complete
 * unterminated record in the same write (readers accept it, so it is data to keep); on a
 * failed write, cut the file back to `size` so it is byte-identical to before.
 *
 * @example
 * ```ts
 * import { appendAfterTail } from "./_tail.ts";
 * import { NodeJsonlFolderFs } from "@mu/sessions/stores/jsonl";
 * const fs = new NodeJsonlFolderFs("/tmp/sessions");
 * const size = (await fs.stat("a.jsonl"))!.size;
 * await appendAfterTail(fs, "a.jsonl", size, new TextEncoder().encode("{}\n"), false);
 * ```
 */
export async function appendAfterTail(
  fs: JsonlFolderFs,
  path: string,
  size: number,
  lines: Uint8Array,
  knownToEndInNewline: boolean,
  durability: Durability = "durable",
): Promise<{ payload: Uint8Array; newlineFirst: boolean; after: FileStat }> {
  let newlineFirst = false;
  if (!knownToEndInNewline) {
    const tail = await inspectTail(fs, path, size);
    if (tail.kind === "torn") throw new TornTailError(fs.describe(path), tail.start);
    newlineFirst = tail.kind === "complete";
  }
  const payload = newlineFirst ? new Uint8Array(lines.length + 1) : lines;
  if (newlineFirst) {
    payload[0] = 10;
    payload.set(lines, 1);
  }
  let after: FileStat;
  try {
    after = await fs.append(path, payload, size, { durability });
  } catch (error) {
    return await rollBackAppend(fs, path, size, error);
  }
  return { payload, newlineFirst, after };
}

/**
 * After an append to `path` failed with `error`: cut the file back to its previous `size`
 * (byte-identical to before), then reject with `error`, or with both errors when the cut
 * failed too.
 *
 * @example
 * ```ts
 * import { rollBackAppend } from "./_tail.ts";
 * import { NodeJsonlFolderFs } from "@mu/sessions/stores/jsonl";
 * await rollBackAppend(new NodeJsonlFolderFs("/tmp/sessions"), "a.jsonl", 120, new Error("EIO")).catch(() => {});
 * ```
 */
export async function rollBackAppend(
  fs: JsonlFolderFs,
  path: string,
  size: number,
  error: unknown,
): Promise<never> {
  try {
    await fs.truncate(path, size);
  } catch (rollback) {
    throw new SessionStorageError(
      `append to ${
        fs.describe(path)
      } failed and restoring its previous ${size} bytes failed too; repair the file`,
      { cause: new AggregateError([error, rollback]) },
    );
  }
  throw error;
}

/**
 * What {@link repairSessionFile} did.
 *
 * @example
 * ```ts
 * import { type RepairReport } from "@mu/sessions/stores/jsonl";
 * declare const report: RepairReport;
 * console.log(report.action, report.backupPath ?? "no backup needed");
 * ```
 */
export interface RepairReport {
  /** The file (as shown to people). */
  path: string;
  /** `none`: nothing to repair at the end of the file. */
  action: "none" | "dropped-torn-record" | "added-newline";
  /** Copy of the file before the repair (only when something changed). */
  backupPath?: string;
  /** Bytes removed from the end. */
  droppedBytes: number;
  /** Why the file would not load even repaired (repair only fixes the tail); it was left untouched. */
  remainingProblem?: string;
}

/**
 * Repair the end of a session file, under the caller's lock: copy the file to
 * `<path>.<time>.bak`, then drop a torn final record, or terminate a complete final record
 * with `\n`. Never runs automatically. The bytes it would keep are checked first: when they
 * do not load (other damage, or not a session at all), nothing is written and the report's
 * `remainingProblem` says why (`action` "none").
 *
 * @example
 * ```ts
 * import { repairSessionFile } from "./_tail.ts";
 * import { NodeJsonlFolderFs } from "@mu/sessions/stores/jsonl";
 * const report = await repairSessionFile(new NodeJsonlFolderFs("/tmp/sessions"), "a.jsonl");
 * ```
 */
export async function repairSessionFile(fs: JsonlFolderFs, path: string): Promise<RepairReport> {
  const stat = await fs.stat(path);
  if (!stat) {
    throw new SessionNotFoundError(fs.describe(path), `No such session file: ${fs.describe(path)}`);
  }
  const tail = await inspectTail(fs, path, stat.size);
  const report: RepairReport = { path: fs.describe(path), action: "none", droppedBytes: 0 };
  // What the repair would keep must load before anything is written: a file that is not a
  // session (notes, a binary) also "ends in a torn record", and must come out untouched.
  const kept = tail.kind === "torn" ? tail.start : stat.size;
  const problem = await loadProblem(fs, path, kept);
  if (problem !== undefined) return { ...report, remainingProblem: problem };
  if (tail.kind === "torn" || tail.kind === "complete") {
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    const backup = `${path}.${stamp}.bak`;
    await fs.writeAtomic(backup, fs.readStream(path));
    report.backupPath = fs.describe(backup);
    if (tail.kind === "torn") {
      await fs.truncate(path, tail.start);
      report.action = "dropped-torn-record";
      report.droppedBytes = stat.size - tail.start;
    } else {
      await fs.append(path, new Uint8Array([10]), stat.size);
      report.action = "added-newline";
    }
  }
  // Nothing more to check: what is left is exactly the bytes that loaded above.
  return report;
}

/** Why the first `length` bytes of `path` do not load as a session, or undefined. */
async function loadProblem(
  fs: JsonlFolderFs,
  path: string,
  length: number,
): Promise<string | undefined> {
  try {
    await parseSessionJsonl(prefixOf(fs.readStream(path), length), {
      source: fs.describe(path),
      retainRaw: false,
    });
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** The first `length` bytes of a byte stream. */
async function* prefixOf(
  chunks: AsyncIterable<Uint8Array>,
  length: number,
): AsyncIterable<Uint8Array> {
  let left = length;
  for await (const chunk of chunks) {
    if (left <= 0) return;
    yield chunk.length <= left ? chunk : chunk.subarray(0, left);
    left -= chunk.length;
  }
}
