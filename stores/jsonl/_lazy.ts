/**
 * The JSONL store's lazy open (`SessionManager.open`, see `scan/_lazy_open.ts`): the scan
 * over the file, bodies read back through the backend's `readSync` when it has one, and
 * the open files remembered so the store can detach them before it rewrites a file.
 *
 * @module
 */
import { LazyHolders, type LazySession } from "../../src/lazy_index.ts";
import { scanLazy } from "./scan/_lazy_open.ts";
import type { JsonlFolderFs } from "./_folder.ts";
import { scanFileOf } from "./scan/_resume_file.ts";
import { backendOf } from "./_backend.ts";

/** One store's lazily opened files. */
export class LazyFiles {
  readonly #held = new LazyHolders();
  readonly #fs: JsonlFolderFs;
  readonly #withIndex: boolean;

  /** `withIndex`: use and keep the files' resume indexes (`scan/_resume_file.ts`). */
  constructor(fs: JsonlFolderFs, withIndex = true) {
    this.#fs = fs;
    this.#withIndex = withIndex;
  }

  /**
   * The lazy open of the file at `path` holding `sessionId`, or `undefined` on any doubt.
   *
   * @example
   * ```ts
   * import { LazyFiles } from "./_lazy.ts";
   * import type { JsonlFolderFs } from "./_folder.ts";
   * declare const fs: JsonlFolderFs;
   * const session = await new LazyFiles(fs).open("s1.jsonl", "s1");
   * ```
   */
  async open(path: string, sessionId: string): Promise<LazySession | undefined> {
    const fs = this.#fs;
    const backend = backendOf(fs);
    const readSync = backend.readSync &&
      ((start: number, end: number) => backend.readSync!(path, start, end));
    const file = scanFileOf(fs, path, this.#withIndex);
    const scanned = await scanLazy(file, { key: path, readSync });
    if (scanned?.session.header.id !== sessionId) return undefined;
    this.#held.add(scanned.bodies);
    return scanned.session;
  }

  /** Before rewriting `path` (its offsets move): open managers copy the file first. */
  detach(path: string): void {
    for (const held of this.#held.take(path)) held.detach();
  }
}
