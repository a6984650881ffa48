/**
 * Where the JSONL store keeps the resume index of a session file (`_resume_index.ts`):
 * `.mu-index/<the file's folder path>.idx` in the folder's root. Like the listing cache
 * (`_persist.ts`) it lives in the folder, so every backend can reach it and it moves and is
 * deleted with the folder; the directory's name starts with a dot, so no reader (this one,
 * pi, Atomic) walks into it or takes a file in it for a session. Written atomically without
 * `fsync`: an index lost in a power cut is rebuilt, a torn one is refused by its MAC.
 * A read-only folder simply gets no index.
 *
 * @module
 */
import type { ScanFile } from "./_scan.ts";
import type { ResumeIndexFile } from "./_resume_index.ts";
import { backendOf } from "../_backend.ts";
import type { JsonlFolderFs } from "../_folder.ts";

/** The directory of resume indexes, in the folder root. */
export const RESUME_INDEX_DIR = ".mu-index";

/**
 * The folder path of the resume index of the session file at `path`.
 *
 * @example
 * ```ts
 * import { resumeIndexPath } from "./_resume_file.ts";
 * resumeIndexPath("--work--/a.jsonl"); // ".mu-index/--work--/a.jsonl.idx"
 * ```
 */
export function resumeIndexPath(path: string): string {
  return `${RESUME_INDEX_DIR}/${path}.idx`;
}

/**
 * The folder path of the directory holding the indexes of the sessions in folder `dir`.
 *
 * @example
 * ```ts
 * import { resumeIndexDir } from "./_resume_file.ts";
 * resumeIndexDir(""); // ".mu-index"
 * resumeIndexDir("--work--"); // ".mu-index/--work--"
 * ```
 */
export function resumeIndexDir(dir: string): string {
  return dir ? `${RESUME_INDEX_DIR}/${dir}` : RESUME_INDEX_DIR;
}

function indexFile(fs: JsonlFolderFs, path: string): ResumeIndexFile {
  const at = resumeIndexPath(path);
  const backend = backendOf(fs);
  return {
    async load() {
      const stat = await fs.stat(at);
      return stat ? await fs.read(at, 0, stat.size) : undefined;
    },
    async save(bytes) {
      await fs.writeAtomic(at, bytes, { durability: "relaxed" });
    },
    key: () => backend.indexKey(),
    boundTo: path,
    digest: backend.digest,
    identity: backend.fileIdentity && (() => backend.fileIdentity!(path)),
  };
}

/**
 * The session file at `path` as the checking pass reads it, with its resume index unless
 * `withIndex` is false.
 *
 * @example
 * ```ts
 * import { scanFileOf } from "./_resume_file.ts";
 * import { NodeJsonlFolderFs } from "@mu/sessions/stores/jsonl";
 * const file = scanFileOf(new NodeJsonlFolderFs("/tmp/sessions"), "a.jsonl", true);
 * ```
 */
export function scanFileOf(fs: JsonlFolderFs, path: string, withIndex: boolean): ScanFile {
  return {
    source: fs.describe(path),
    stream: (start) => fs.readStream(path, start),
    read: (start, end) => fs.read(path, start, end),
    index: withIndex ? indexFile(fs, path) : undefined,
    text: backendOf(fs).byteText,
  };
}

/**
 * Remove the resume index of `path` (its session was deleted); never throws.
 *
 * @example
 * ```ts
 * import { removeResumeIndex } from "./_resume_file.ts";
 * import { NodeJsonlFolderFs } from "@mu/sessions/stores/jsonl";
 * await removeResumeIndex(new NodeJsonlFolderFs("/tmp/sessions"), "a.jsonl");
 * ```
 */
export async function removeResumeIndex(fs: JsonlFolderFs, path: string): Promise<void> {
  await fs.remove(resumeIndexPath(path)).catch(() => {});
}
