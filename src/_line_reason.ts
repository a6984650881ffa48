/**
 * Why a JSONL line did not parse, shared by the parser and the JSONL store's readers so one
 * input gets one answer. Private to the package (not re-exported by core.ts).
 *
 * @module
 */
import { TORN_FINAL_RECORD } from "./_jsonl_lines.ts";

/**
 * The reason for a line that is not JSON. Only a final line without a newline that starts
 * like a record (`{`) can be a cut-off write ("torn": repair drops it); anything else, even
 * unterminated (`curl --data-binary 'not json'`), is invalid JSON, but for a Git LFS pointer
 * (a clone without `git lfs pull` holds these in place of the files), which says so.
 *
 * @example
 * ```ts
 * import { unparseableLineReason } from "./_line_reason.ts";
 * unparseableLineReason("not json", false, new SyntaxError("x")); // "invalid JSON: x"
 * ```
 */
export function unparseableLineReason(text: string, terminated: boolean, error: unknown): string {
  if (text.startsWith(LFS_POINTER)) return "Git LFS pointer, not a session; run git lfs pull";
  if (!terminated && /^\s*\{/.test(text)) return TORN_FINAL_RECORD;
  return `invalid JSON: ${(error as Error).message}`;
}

/** How a Git LFS pointer file starts (https://github.com/git-lfs/git-lfs/blob/main/docs/spec.md). */
const LFS_POINTER = "version https://git-lfs";
