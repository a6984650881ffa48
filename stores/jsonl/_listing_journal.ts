/**
 * The listing cache's journal: the entries changed since the cache file was last written
 * whole, in a small side file beside it, so a save after a few appends among thousands of
 * sessions writes those entries instead of the whole cache file again. Each journal holds
 * every change since its base (a later one replaces it, atomically), and the next whole
 * save folds it in (`_persist.ts` decides which to write).
 *
 * Trust: like the cache file, it goes through the side-file codec (`_side_file.ts`: format,
 * version, length and SHA-256 in its head), and its body names the checksum of the cache
 * file it extends. A torn, edited or foreign-version journal, or one written on top of a
 * cache file since replaced (by another process, or a whole save that crashed before it
 * could remove the journal), fails one of those checks and is ignored: the cache file is
 * then used alone, and every entry is still believed only while its file's (size, mtime)
 * match.
 *
 * @module
 */
import type { JsonlFolderFs } from "./_folder.ts";
import { decodeSideFile, encodeSideFile } from "./_side_file.ts";

/** The journal's name in the folder root: a dot file not ending in `.jsonl`, as the cache. */
export const LISTING_JOURNAL_FILE = ".mu-listing-cache.journal";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The checksum a side file's head line carries (what a journal names as its base), or
 * undefined when there is none. Only called on bytes the codec accepted or produced.
 *
 * @example
 * ```ts
 * import { headChecksum } from "./_listing_journal.ts";
 * headChecksum(new TextEncoder().encode('{"sha256":"ab"}\n{}')); // "ab"
 * ```
 */
export function headChecksum(bytes: Uint8Array): string | undefined {
  const newline = bytes.indexOf(10);
  if (newline < 0) return undefined;
  try {
    const head = JSON.parse(decoder.decode(bytes.subarray(0, newline)));
    return typeof head?.sha256 === "string" ? head.sha256 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The journal file's bytes: `members` are `"path":<entry JSON or null>` texts (null: the
 * path's entry is gone since the base), `base` the cache file's {@link headChecksum}.
 *
 * @example
 * ```ts
 * import { encodeListingJournal } from "./_listing_journal.ts";
 * const bytes = await encodeListingJournal({ format: "j", version: 1 }, "ab", ['"a.jsonl":null']);
 * ```
 */
export function encodeListingJournal(
  kind: { format: string; version: number },
  base: string,
  members: readonly string[],
): Promise<Uint8Array> {
  const text = `{"base":${JSON.stringify(base)},"files":{${members.join(",")}}}`;
  return encodeSideFile(kind, encoder.encode(text));
}

/**
 * The journal's entries (path -> stored entry, or null when gone) when the folder has a
 * whole journal of `kind` written on top of the cache file whose checksum is `base`;
 * `found` tells whether a journal file exists at all (a stale one is removed at the next
 * whole save). Never throws.
 *
 * @example
 * ```ts
 * import { readListingJournal } from "./_listing_journal.ts";
 * import { NodeJsonlFolderFs } from "@mu/sessions/stores/jsonl";
 * const fs = new NodeJsonlFolderFs("/tmp/sessions");
 * const { files } = await readListingJournal(fs, { format: "j", version: 1 }, "ab");
 * ```
 */
export async function readListingJournal(
  fs: JsonlFolderFs,
  kind: { format: string; version: number },
  base: string,
): Promise<{ found: boolean; files?: Record<string, unknown> }> {
  try {
    const stat = await fs.stat(LISTING_JOURNAL_FILE);
    if (!stat) return { found: false };
    const body = await decodeSideFile(kind, await fs.read(LISTING_JOURNAL_FILE, 0, stat.size));
    if (!body) return { found: true };
    const journal = JSON.parse(decoder.decode(body));
    const files = journal?.files;
    if (journal?.base !== base || !files || typeof files !== "object") return { found: true };
    return { found: true, files };
  } catch {
    return { found: true };
  }
}
