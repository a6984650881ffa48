/**
 * The cheapest read of a session file: its header line alone (lookups by id, listing
 * filters, append checks), in small steps, never the whole file.
 *
 * @module
 */
import { unparseableLineReason } from "../../src/_line_reason.ts";
import { SessionFormatError } from "../../src/errors.ts";
import { headerVersion, upgradeRecords } from "../../src/_migrate.ts";
import type { SessionHeader } from "../../src/schema.ts";
import { headerProblem } from "../../src/_entry_check.ts";
import type { JsonlFolderFs } from "./_folder.ts";

/**
 * The first record of a file, as read by {@link readHeadLine}.
 *
 * @example
 * ```ts
 * import { type HeadLine } from "./_head_line.ts";
 * const head: HeadLine = { text: '{"type":"session"}', line: 1, end: 19, terminated: true };
 * ```
 */
export interface HeadLine {
  text: string;
  /** 1-based physical line number (blank lines before the header are allowed). */
  line: number;
  /** Byte offset just after the header line's `\n` (or the file size when unterminated). */
  end: number;
  terminated: boolean;
}

// Headers are usually well under 1 KiB; long ones (deep cwd, markers) read on in bigger steps.
const HEAD_FIRST_CHUNK = 4 * 1024;
const HEAD_CHUNK = 64 * 1024;
const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * Read up to the first non-blank line, 4 KiB first, then in 64 KiB steps (headers can be long: cwd paths,
 * workflow markers). Resolves `undefined` for a file with no non-blank line.
 *
 * @example
 * ```ts
 * import { readHeadLine } from "./_head_line.ts";
 * import { NodeJsonlFolderFs } from "@mu/sessions/stores/jsonl";
 * const fs = new NodeJsonlFolderFs("/tmp/sessions");
 * const head = await readHeadLine(fs, "a.jsonl", (await fs.stat("a.jsonl"))!.size);
 * ```
 */
export async function readHeadLine(
  fs: JsonlFolderFs,
  path: string,
  size: number,
): Promise<HeadLine | undefined> {
  let buffer = new Uint8Array(0);
  let bufferStart = 0; // file offset of buffer[0]
  let lineStart = 0;
  let line = 1;
  while (lineStart < size) {
    let newline = buffer.indexOf(10, lineStart - bufferStart);
    while (newline === -1 && bufferStart + buffer.length < size) {
      const readFrom = bufferStart + buffer.length;
      const step = readFrom === 0 ? HEAD_FIRST_CHUNK : HEAD_CHUNK;
      const more = await fs.read(path, readFrom, readFrom + step);
      if (more.length === 0) break;
      const kept = buffer.subarray(lineStart - bufferStart);
      const joined = new Uint8Array(kept.length + more.length);
      joined.set(kept);
      joined.set(more, kept.length);
      buffer = joined;
      bufferStart = lineStart;
      newline = buffer.indexOf(10, kept.length);
    }
    const from = lineStart - bufferStart;
    const to = newline === -1 ? buffer.length : newline;
    let text: string;
    try {
      text = decoder.decode(buffer.subarray(from, to));
    } catch {
      throw new SessionFormatError("line is not valid UTF-8", {
        line,
        byteOffset: lineStart,
        source: fs.describe(path),
      });
    }
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.endsWith("\r")) text = text.slice(0, -1);
    const end = bufferStart + to + (newline === -1 ? 0 : 1);
    if (text.trim() !== "") return { text, line, end, terminated: newline !== -1 };
    if (newline === -1) return undefined;
    lineStart = end;
    line++;
  }
  return undefined;
}

/**
 * A parsed header line.
 *
 * @example
 * ```ts
 * import { type HeaderInfo } from "./_head_line.ts";
 * declare const info: HeaderInfo;
 * if (info.needsUpgrade) console.log(`format ${info.version}`);
 * ```
 */
export interface HeaderInfo {
  /** The header upgraded to format 4 (what listings show). */
  header: SessionHeader;
  /** The session id (unchanged by upgrades). */
  id: string;
  /** The version as written (1-4). */
  version: number;
  /** Older format or early-v4 field names: load upgrades, writers must `replace` first. */
  needsUpgrade: boolean;
  /** Byte offset just after the header line. */
  end: number;
  line: number;
}

/**
 * Parse and check a header line; throws {@link SessionFormatError} when unloadable.
 *
 * @example
 * ```ts
 * import { parseHeaderLine } from "./_head_line.ts";
 * const text = '{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}';
 * parseHeaderLine({ text, line: 1, end: text.length + 1, terminated: true }, "a.jsonl").needsUpgrade; // true
 * ```
 */
export function parseHeaderLine(head: HeadLine | undefined, source: string): HeaderInfo {
  if (!head) throw new SessionFormatError("empty source: no session header", { source });
  const where = { line: head.line, byteOffset: 0, source };
  let raw: unknown;
  try {
    raw = JSON.parse(head.text);
  } catch (error) {
    throw new SessionFormatError(
      unparseableLineReason(head.text, head.terminated, error),
      where,
    );
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw new SessionFormatError("record is not a JSON object", where);
  }
  const record = raw as Record<string, unknown>;
  if (record.type !== "session") {
    throw new SessionFormatError('first record is not a session header (type "session")', where);
  }
  const version = headerVersion(record, head.line, source);
  const upgrade = upgradeRecords(record, [], source);
  const problem = headerProblem(upgrade.header);
  if (problem) throw new SessionFormatError(`invalid session header: ${problem}`, where);
  return {
    header: upgrade.header as SessionHeader,
    id: record.id as string,
    version,
    needsUpgrade: upgrade.upgraded,
    end: head.end,
    line: head.line,
  };
}

/**
 * Read and parse the header of a file.
 *
 * @example
 * ```ts
 * import { readHeader } from "./_head_line.ts";
 * import { NodeJsonlFolderFs } from "@mu/sessions/stores/jsonl";
 * const fs = new NodeJsonlFolderFs("/tmp/sessions");
 * const { id } = await readHeader(fs, "a.jsonl", (await fs.stat("a.jsonl"))!.size);
 * ```
 */
export async function readHeader(
  fs: JsonlFolderFs,
  path: string,
  size: number,
): Promise<HeaderInfo> {
  return parseHeaderLine(await readHeadLine(fs, path, size), fs.describe(path));
}
