/**
 * The JSONL store's lazy open (`SessionManager.open`, see `src/lazy_scan.ts`): the scan
 * over the file, bodies read back through the backend's `readSync` when it has one, and
 * the open files remembered so the store can detach them before it rewrites a file.
 *
 * @module
 */
import { LazyHolders, type LazySession } from "../../src/lazy_index.ts";
import { scanLazy } from "../../src/lazy_scan.ts";
import type { JsonlFolderFs } from "./_folder.ts";

/** One store's lazily opened files. */
export class LazyFiles {
  readonly #held = new LazyHolders();
  readonly #fs: JsonlFolderFs;

  constructor(fs: JsonlFolderFs) {
    this.#fs = fs;
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
    const readSync = fs.readSync &&
      ((start: number, end: number) => fs.readSync!(path, start, end));
    const options = { key: path, source: fs.describe(path), readSync };
    const scanned = await scanLazy(fs.readStream(path), options);
    if (scanned?.session.header.id !== sessionId) return undefined;
    this.#held.add(scanned.bodies);
    return scanned.session;
  }

  /** Before rewriting `path` (its offsets move): open managers copy the file first. */
  detach(path: string): void {
    for (const held of this.#held.take(path)) held.detach();
  }
}
