/**
 * Whole-file writes of a session file that need no store state: the header line as it will
 * be written, and a header swap that copies the entries as bytes.
 *
 * @module
 */
import { SessionNotFoundError } from "../../src/errors.ts";
import { parseSessionJsonl, serializeSessionJsonl, toJsonLine } from "../../src/jsonl.ts";
import type { SessionEntry, SessionHeader } from "../../src/schema.ts";
import type { JsonlFolderFs } from "./_folder.ts";
import { type HeaderInfo, parseHeaderLine, readHeader } from "./_head_line.ts";

const encoder = new TextEncoder();

/**
 * The header line of a file as it will be written, parsed as a reader would (for caches).
 *
 * @example
 * ```ts
 * import { headerInfoOf } from "./_rewrite.ts";
 * const { info } = headerInfoOf({ type: "session", version: 4, id: "s", createdAt: "2026-01-01T00:00:00.000Z", cwd: "/p" }, "x.jsonl");
 * info.end; // bytes of the line plus its newline
 * ```
 */
export function headerInfoOf(
  header: SessionHeader,
  source: string,
): { info: HeaderInfo; text: string } {
  const text = toJsonLine(header);
  const end = encoder.encode(text).length + 1;
  return { info: parseHeaderLine({ text, line: 1, end, terminated: true }, source), text };
}

/**
 * A new format-4 header for a file opened by path that does not exist yet.
 *
 * @example
 * ```ts
 * import { freshHeader } from "./_rewrite.ts";
 * freshHeader("/work").version; // 4
 * ```
 */
export function freshHeader(cwd: string): SessionHeader {
  const createdAt = new Date().toISOString();
  return { type: "session", version: 4, id: crypto.randomUUID(), createdAt, cwd };
}

/**
 * Replace a file's header atomically, under the caller's lock. Format-4 entries are copied
 * as bytes (no parsing); older entries cannot sit under a format-4 header, so an older file
 * is written upgraded, and its entries are returned.
 *
 * @example
 * ```ts
 * import { rewriteHeader } from "./_rewrite.ts";
 * import { NodeJsonlFolderFs } from "@mu/sessions/stores/jsonl";
 * const fs = new NodeJsonlFolderFs("/tmp/sessions");
 * await rewriteHeader(fs, "x.jsonl", { type: "session", version: 4, id: "s", createdAt: "2026-01-01T00:00:00.000Z", cwd: "/p" });
 * ```
 */
export async function rewriteHeader(
  fs: JsonlFolderFs,
  path: string,
  header: SessionHeader,
): Promise<{ upgraded?: { entries: SessionEntry[]; bytes: Uint8Array } }> {
  const line = encoder.encode(toJsonLine(header) + "\n");
  const stat = await fs.stat(path);
  if (!stat) throw new SessionNotFoundError(header.id);
  const info = await readHeader(fs, path, stat.size);
  if (info.needsUpgrade) {
    const parsed = await parseSessionJsonl(fs.readStream(path), { source: fs.describe(path) });
    const bytes = encoder.encode(serializeSessionJsonl(header, parsed.entries));
    await fs.writeAtomic(path, bytes);
    return { upgraded: { entries: parsed.entries, bytes } };
  }
  await fs.writeAtomic(path, prepend(line, fs.readStream(path, info.end)));
  return {};
}

async function* prepend(
  first: Uint8Array,
  rest: AsyncIterable<Uint8Array>,
): AsyncGenerator<Uint8Array> {
  yield first;
  yield* rest;
}
